/**
 * The queries the bench measures: every operation; for both trade listings every combination of status ×
 * instrument × limit, the same listings cut to time windows, and pages reached through cursors deep inside the
 * history (one of them inside a window); the P&L and equity series over short and long windows. Both datasets
 * (full and 1k) run this same list, so rows compare like with like.
 */
export const OPERATIONS = [
  'health',
  'accounts',
  'all-balance',
  'all-trades',
  'all-status',
  'all-comparison',
  'all-pnl',
  'account-balance',
  'account-trades',
  'account-status',
  'account-pnl',
  'account-equity',
  'all-performance',
  'account-performance',
  'account-reconciliation',
  'metrics',
] as const;
export type Operation = (typeof OPERATIONS)[number];

const LIMITS = [1, 50, 500] as const;
export const DEEP_LIMIT = 500;

export interface QuerySpec {
  /** Stable key: the request as a client would write it (deep pages name their cursor symbolically). */
  id: string;
  operation: Operation;
  /** The `{account}` path parameter, for per-account operations. */
  account?: string;
  status?: 'open' | 'closed';
  instrument?: string;
  /** A time window (RFC 3339): on openTime for the listings, widened to whole periods for the series. */
  from?: string;
  to?: string;
  period?: 'day' | 'week' | 'month';
  interval?: 'hour' | 'day';
  limit?: number;
  /** Follow nextCursor up to this many pages and measure the page reached (see query-worker's choice rule). */
  deepPages?: number;
}

function pathOf(operation: Operation, account: string): string {
  if (operation === 'health') return '/api/health';
  if (operation === 'accounts') return '/api/accounts';
  if (operation === 'metrics') return '/api/metrics';
  if (operation.startsWith('all-')) return `/api/all/${operation.slice('all-'.length)}`;
  return `/api/${account}/${operation.slice('account-'.length)}`;
}

/** The query string parameters of a spec, in the order a client would write them. */
export function queryParameters(spec: Omit<QuerySpec, 'id' | 'operation'>): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (spec.status) parameters.status = spec.status;
  if (spec.instrument) parameters.instrument = spec.instrument;
  if (spec.period) parameters.period = spec.period;
  if (spec.interval) parameters.interval = spec.interval;
  if (spec.from) parameters.from = spec.from;
  if (spec.to) parameters.to = spec.to;
  if (spec.limit !== undefined) parameters.limit = String(spec.limit);
  return parameters;
}

function describe(spec: Omit<QuerySpec, 'id'>): string {
  const query = new URLSearchParams(queryParameters(spec)).toString().replaceAll('%3A', ':');
  const cursor = spec.deepPages ? `&cursor=<≤${spec.deepPages} pages deep>` : '';
  return `${pathOf(spec.operation, spec.account ?? '')}${query ? `?${query}` : ''}${cursor}`;
}

/** A time `days` days (and `hours` hours) before `anchor`, as a client writes it. */
function before(anchor: Date, days: number, hours = 0): string {
  return new Date(anchor.getTime() - (days * 24 + hours) * 3_600_000).toISOString().replace('.000Z', 'Z');
}

/**
 * Every query of the bench for one account and one instrument (both chosen from the data so pages are not empty).
 * Windows are placed against `anchor`, the time the datasets' histories end: the last days hold trades in both
 * datasets (the 1k one spans only those), so the short windows compare like with like; the long ones show that a
 * series reads one item per point whatever the trades behind it.
 */
export function benchQueries(account: string, instrument: string, deepPages: number, anchor: Date): QuerySpec[] {
  const specs: Omit<QuerySpec, 'id'>[] = [
    { operation: 'health' },
    { operation: 'accounts' },
    { operation: 'all-balance' },
    { operation: 'account-balance', account },
    { operation: 'account-status', account },
    { operation: 'all-status' },
    // 1.8: every bot side by side over 30 days, as the dashboard's #/compare polls it.
    { operation: 'all-comparison' },
    // 1.9: the account's reconciliation with its broker account (the datasets' mirror).
    { operation: 'account-reconciliation', account },
    // 1.4: a Prometheus scrape, after the fleet answers (a deployed instance has usually served them already).
    { operation: 'metrics' },
  ];
  for (const operation of ['account-trades', 'all-trades'] as const) {
    const scope = operation === 'account-trades' ? { account } : {};
    for (const status of [undefined, 'open', 'closed'] as const) {
      for (const chosen of [undefined, instrument]) {
        for (const limit of LIMITS) specs.push({ operation, ...scope, status, instrument: chosen, limit });
      }
    }
    const windows = [{ from: before(anchor, 2), to: before(anchor, 0, 12) }, { from: before(anchor, 1) }, { to: before(anchor, 1) }];
    for (const window of windows) {
      for (const filter of [{}, { status: 'closed' as const }, { instrument }])
        specs.push({ operation, ...scope, ...filter, ...window, limit: 50 });
    }
    specs.push({ operation, ...scope, ...windows[0], limit: DEEP_LIMIT });
  }
  specs.push({ operation: 'account-trades', account, limit: DEEP_LIMIT, deepPages });
  specs.push({ operation: 'all-trades', limit: DEEP_LIMIT, deepPages });
  specs.push({ operation: 'account-trades', account, to: before(anchor, 1), limit: DEEP_LIMIT, deepPages });

  const lastDays = { from: before(anchor, 3), to: before(anchor, 0) };
  const lastWeek = { from: before(anchor, 7), to: before(anchor, 0) };
  const lastYear = { from: before(anchor, 365), to: before(anchor, 0) };
  specs.push({ operation: 'account-pnl', account, period: 'day', ...lastDays });
  specs.push({ operation: 'account-pnl', account, period: 'day', ...lastYear });
  specs.push({ operation: 'account-pnl', account, period: 'week', ...lastYear });
  specs.push({ operation: 'account-pnl', account, period: 'month', ...lastYear });
  specs.push({ operation: 'all-pnl', period: 'day', ...lastDays });
  specs.push({ operation: 'all-pnl', period: 'month', ...lastYear });
  specs.push({ operation: 'all-pnl', period: 'day', ...lastYear });
  specs.push({ operation: 'account-equity', account, interval: 'hour', ...lastDays });
  specs.push({ operation: 'account-equity', account, interval: 'day', from: before(anchor, 90), to: before(anchor, 0) });
  specs.push({ operation: 'account-performance', account, ...lastDays });
  specs.push({ operation: 'account-performance', account, ...lastWeek });
  specs.push({ operation: 'account-performance', account, ...lastYear });
  specs.push({ operation: 'account-performance', account, instrument, ...lastYear });
  specs.push({ operation: 'all-performance', ...lastDays });
  specs.push({ operation: 'all-performance', ...lastWeek });
  specs.push({ operation: 'all-performance', ...lastYear });
  // Before either history: no day to read in both datasets, so the two compare (the cost of the accounts alone).
  specs.push({ operation: 'all-performance', from: before(anchor, 730), to: before(anchor, 700) });
  return specs.map((spec) => ({ ...spec, id: describe(spec) }));
}
