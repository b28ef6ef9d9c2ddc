/**
 * One reporting currency (issue 47): every account's NAV converted into the stage's REPORTING_CURRENCY at an
 * exchange's last price, for `reporting` on GET /api/all/balance. Pure: no I/O; the exchange feeds keep the prices
 * they read (the ledger's `@rates` items), the API reads them beside the balances.
 *
 * The rules (docs/operations.md, "One reporting currency"):
 * - a **route** is the fewest conversions from the account's currency to the reporting one over the prices the feeds
 *   read (a market BASE/QUOTE at price p converts BASE to QUOTE at p, and QUOTE to BASE at 1/p) and the stated pegs
 *   (PEGS: a USD stablecoin is 1 USD, the one step no exchange prices, e.g. EUR → USDT → USD); among equally short
 *   routes, the one whose oldest price is newest, then by the currencies' names;
 * - the **rate** is the product of the route's rates (an inverted price to RATE_PLACES places, half-even); `asOf` the
 *   time of the oldest price it used (null for the currency itself or pegs alone);
 * - the **converted NAV** is NAV × rate rounded half-even to AMOUNT_PLACES places, trailing zeros dropped; the
 *   `total` is the exact sum of the converted NAVs;
 * - an account with no route is listed **unvalued** with the reason, and left out of the total: never guessed;
 * - **history at its own time**: a point of an equity series is valued at the prices each feed last read by the end
 *   of the point's interval (the feeds keep them per hour and day), never at later ones, so a chart in the reporting
 *   currency does not move its past with today's rates.
 */
import { compareDecimals, divideDecimals, multiplyDecimals, roundDecimal, sumDecimals, trimDecimal } from './decimal';
import type { PointReporting, Reporting, ReportingRoute } from './types';

/** Places of a converted amount (an exchange's precision). */
const AMOUNT_PLACES = 8;
/** Places of a rate that an inverted price makes inexact. */
const RATE_PLACES = 18;
/** The stablecoins taken at 1 unit of the fiat they are pegged to: a stated assumption, shown in each route. */
const PEGS: Readonly<Record<string, string>> = { USDT: 'USD', USDC: 'USD', FDUSD: 'USD', TUSD: 'USD', DAI: 'USD' };

/** The last prices one exchange feed read, with when. */
export interface RatesEntry {
  exchange: string;
  time: string;
  prices: readonly { base: string; quote: string; price: string }[];
}

/** The last prices a feed read in the UTC hour or day starting at `start` (a stored time). */
export interface RatesAt extends RatesEntry {
  feed: string;
  start: string;
}

/** One step of a route: `from` to `to` at `rate`, from an exchange's market (`binance:EURUSDT`, maybe inverted) or a peg. */
type Hop = ReportingRoute[number];

interface Edge extends Hop {
  time: string | null;
}

function edgesOf(rates: readonly RatesEntry[]): Map<string, Edge[]> {
  const edges = new Map<string, Edge[]>();
  const add = (edge: Edge) => edges.set(edge.from, [...(edges.get(edge.from) ?? []), edge]);
  for (const entry of rates)
    for (const { base, quote, price } of entry.prices) {
      if (compareDecimals(price, '0') <= 0) continue;
      const market = `${entry.exchange}:${base}${quote}`;
      add({ from: base, to: quote, rate: trimDecimal(price), source: market, time: entry.time });
      const inverse = trimDecimal(divideDecimals('1', price, RATE_PLACES));
      add({ from: quote, to: base, rate: inverse, source: `${market} inverted`, time: entry.time });
    }
  for (const [coin, fiat] of Object.entries(PEGS)) {
    add({ from: coin, to: fiat, rate: '1', source: 'peg', time: null });
    add({ from: fiat, to: coin, rate: '1', source: 'peg', time: null });
  }
  return edges;
}

const oldest = (route: readonly Edge[]) =>
  route.reduce<string | null>((at, edge) => (edge.time === null ? at : at === null || edge.time < at ? edge.time : at), null);

/** A better of two equally short routes: the newer oldest price, then the currencies' names. */
function better(a: readonly Edge[], b: readonly Edge[]): boolean {
  const [x, y] = [oldest(a) ?? '', oldest(b) ?? ''];
  if (x !== y) return x > y;
  return a.map((edge) => `${edge.to}|${edge.source}`).join(',') < b.map((edge) => `${edge.to}|${edge.source}`).join(',');
}

/** The route from `from` to `to` (see the module's comment), undefined when none. */
export function routeOf(from: string, to: string, rates: readonly RatesEntry[]): Edge[] | undefined {
  if (from === to) return [];
  const edges = edgesOf(rates);
  // Breadth first, keeping the best route to each currency of a level.
  let level = new Map<string, Edge[]>([[from, []]]);
  const seen = new Set([from]);
  while (level.size) {
    const next = new Map<string, Edge[]>();
    for (const [currency, route] of level)
      for (const edge of edges.get(currency) ?? []) {
        if (seen.has(edge.to)) continue;
        const candidate = [...route, edge];
        const held = next.get(edge.to);
        if (!held || better(candidate, held)) next.set(edge.to, candidate);
      }
    if (next.has(to)) return next.get(to);
    for (const currency of next.keys()) seen.add(currency);
    level = next;
  }
  return undefined;
}

/** How `from` converts into `to` over `rates`: the route's rate, its hops and the time of its oldest price; none without a route. */
function conversionOf(
  from: string,
  to: string,
  rates: readonly RatesEntry[],
): { rate: string; route: Hop[]; asOf: string | null } | undefined {
  const route = routeOf(from, to, rates);
  if (!route) return undefined;
  const product = route.reduce((rate, edge) => multiplyDecimals(rate, edge.rate), '1');
  return {
    rate: trimDecimal(roundDecimal(product, RATE_PLACES)),
    route: route.map(({ from: a, to: b, rate: r, source }) => ({ from: a, to: b, rate: r, source })),
    asOf: oldest(route),
  };
}

/**
 * `nav` converted by `conversion` (rounded half-even to AMOUNT_PLACES places, trailing zeros dropped) with its rate,
 * route and time; with no conversion, unvalued for `reason`.
 */
function valued(nav: string, conversion: ReturnType<typeof conversionOf>, reason: string) {
  if (!conversion) return { unvalued: true as const, reason };
  const { rate, route, asOf } = conversion;
  return { nav: trimDecimal(roundDecimal(multiplyDecimals(nav, rate), AMOUNT_PLACES)), rate, route, asOf };
}

/** The accounts' NAVs in `currency`; see the module's comment. */
export function reportingOf(
  currency: string,
  balances: readonly { accountId: string; currency: string; nav: string }[],
  rates: readonly RatesEntry[],
): Reporting {
  const accounts: Reporting['accounts'] = balances.map(({ accountId, currency: from, nav }) => {
    const reason = `no price converts ${from} to ${currency}: no exchange feed reads a market between them`;
    return { accountId, ...valued(nav, conversionOf(from, currency, rates), reason) };
  });
  const total = trimDecimal(sumDecimals(['0', ...accounts.flatMap((account) => ('nav' in account ? [account.nav] : []))]));
  return { currency, total, accounts };
}

/**
 * An equity series' points (`start`: their interval's, oldest first) in `currency`, each at its own time: at the
 * prices every feed last read by the end of the point's interval (`history`, oldest first; see the module's comment).
 * The conversion is found again only where a feed's prices changed, not at every point.
 */
export function reportingOfSeries(
  currency: string,
  from: string,
  points: readonly { start: string; nav: string }[],
  history: readonly RatesAt[],
): PointReporting[] {
  const last = new Map<string, RatesEntry>();
  let next = 0;
  let conversion: ReturnType<typeof conversionOf>;
  return points.map(({ start, nav }, i) => {
    const seen = next;
    for (; next < history.length && history[next].start <= start; next++)
      last.set(`${history[next].exchange}#${history[next].feed}`, history[next]);
    if (i === 0 || next !== seen) conversion = conversionOf(from, currency, [...last.values()]);
    const reason = `no price converted ${from} to ${currency} by the end of this point's interval: no exchange feed had read a market between them`;
    return { currency, ...valued(nav, conversion, reason) };
  });
}
