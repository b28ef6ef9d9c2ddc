/**
 * Views live in the URL's fragment, filters included, so a view can be bookmarked and shared:
 *   #/                          the fleet
 *   #/account/primary-usd       one account
 *   #/trades?account=…&status=closed&instrument=EUR_USD&from=…&to=…   the trade history
 *   #/compare?sort=returnRatio&dir=desc&currency=USDT                 every bot side by side
 */
export type Route =
  | { view: 'fleet' }
  | { view: 'account'; account: string }
  | { view: 'trades'; query: URLSearchParams }
  | { view: 'compare'; query: URLSearchParams };

export function currentRoute(hash = window.location.hash): Route {
  const [path, search = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'account' && parts[1]) return { view: 'account', account: decodeURIComponent(parts[1]) };
  if (parts[0] === 'trades') return { view: 'trades', query: new URLSearchParams(search) };
  if (parts[0] === 'compare') return { view: 'compare', query: new URLSearchParams(search) };
  return { view: 'fleet' };
}

export function tradesHash(query: URLSearchParams): string {
  const text = query.toString();
  return `#/trades${text ? `?${text}` : ''}`;
}
