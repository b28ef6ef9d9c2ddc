/**
 * The queries the bench measures: every operation once, and for both trade listings every combination of status ×
 * instrument × limit, plus one page reached through cursors deep inside the history. Both datasets (full and 1k)
 * run this same list, so rows compare like with like.
 */
export const OPERATIONS = ['health', 'accounts', 'all-balance', 'all-trades', 'account-balance', 'account-trades', 'account-status'] as const;
export type Operation = (typeof OPERATIONS)[number];

export const LIMITS = [1, 50, 500] as const;
export const DEEP_LIMIT = 500;

export interface QuerySpec {
  /** Stable key: the request as a client would write it (deep pages name their cursor symbolically). */
  id: string;
  operation: Operation;
  /** The `{account}` path parameter, for per-account operations. */
  account?: string;
  status?: 'open' | 'closed';
  instrument?: string;
  limit?: number;
  /** Follow nextCursor up to this many pages and measure the page reached (see query-worker's choice rule). */
  deepPages?: number;
}

function pathOf(operation: Operation, account: string): string {
  switch (operation) {
    case 'health':
      return '/api/health';
    case 'accounts':
      return '/api/accounts';
    case 'all-balance':
      return '/api/all/balance';
    case 'all-trades':
      return '/api/all/trades';
    case 'account-balance':
      return `/api/${account}/balance`;
    case 'account-trades':
      return `/api/${account}/trades`;
    case 'account-status':
      return `/api/${account}/status`;
  }
}

/** The query string parameters of a spec, in the order a client would write them. */
export function queryParameters(spec: Pick<QuerySpec, 'status' | 'instrument' | 'limit'>): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (spec.status) parameters.status = spec.status;
  if (spec.instrument) parameters.instrument = spec.instrument;
  if (spec.limit !== undefined) parameters.limit = String(spec.limit);
  return parameters;
}

function describe(spec: Omit<QuerySpec, 'id'>): string {
  const query = new URLSearchParams(queryParameters(spec)).toString();
  const cursor = spec.deepPages ? `&cursor=<≤${spec.deepPages} pages deep>` : '';
  return `${pathOf(spec.operation, spec.account ?? '')}${query ? `?${query}` : ''}${cursor}`;
}

/** Every query of the bench for one account and one instrument (both chosen from the data so pages are not empty). */
export function benchQueries(account: string, instrument: string, deepPages: number): QuerySpec[] {
  const specs: Omit<QuerySpec, 'id'>[] = [
    { operation: 'health' },
    { operation: 'accounts' },
    { operation: 'all-balance' },
    { operation: 'account-balance', account },
    { operation: 'account-status', account },
  ];
  for (const operation of ['account-trades', 'all-trades'] as const) {
    for (const status of [undefined, 'open', 'closed'] as const) {
      for (const chosen of [undefined, instrument]) {
        for (const limit of LIMITS) {
          specs.push({ operation, account: operation === 'account-trades' ? account : undefined, status, instrument: chosen, limit });
        }
      }
    }
  }
  specs.push({ operation: 'account-trades', account, limit: DEEP_LIMIT, deepPages });
  specs.push({ operation: 'all-trades', limit: DEEP_LIMIT, deepPages });
  return specs.map((spec) => ({ ...spec, id: describe(spec) }));
}
