/**
 * freqtrade's REST API (freqtrade/rpc/api_server: api_v1.py, api_schemas.py), as much of it as the bridge reads,
 * with the field names and shapes freqtrade sends. Every call is a GET under `/api/v1` with HTTP Basic auth, which
 * freqtrade accepts on every route beside its token login (the bridge has no use for tokens: it keeps no session).
 */

/** `GET /api/v1/show_config` (ShowConfig): the fields the bridge reads. */
export interface ShowConfig {
  bot_name: string;
  dry_run: boolean;
  stake_currency: string;
  exchange: string;
  strategy?: string | null;
  /** `running`, `stopped`, `reload_config`; newer releases also `paused`. */
  state: string;
  /** A number, or the string "inf"; `/stopentry` (formerly `/stopbuy`) sets it to 0: no new entries. */
  max_open_trades: number | string;
  trading_mode?: string;
}

/** `GET /api/v1/health`: the bot's own liveness; `last_process_ts` is when its loop last ran (seconds). */
export interface Health {
  last_process_ts: number | null;
}

/** OrderSchema: one order of a trade (freqtrade lists its filled and open ones, `Trade.select_filled_or_open_orders`). */
interface FreqtradeOrder {
  pair: string;
  /** The exchange's id of the order. */
  order_id: string;
  status: string;
  amount: number;
  /** How much of it filled (null: not known yet). */
  filled?: number | null;
  is_open: boolean;
}

/** TradeSchema (closed trades in `/trades`; `/status` sends OpenTradeSchema, a superset). */
export interface FreqtradeTrade {
  trade_id: number;
  pair: string;
  is_open: boolean;
  is_short: boolean;
  amount: number;
  strategy: string;
  open_timestamp: number;
  open_fill_timestamp: number | null;
  open_rate: number;
  close_timestamp?: number | null;
  close_rate?: number | null;
  close_profit_abs?: number | null;
  profit_abs?: number | null;
  stop_loss_abs?: number | null;
  /**
   * The fees of the entry and the exit, as freqtrade learnt them from the exchange (`Trade.update_fee`): the cost in
   * its currency (BNB, the base, the stake). null: not learnt (yet); a cost without a currency is freqtrade's own
   * estimate (its fee rate × the stake), in the stake currency.
   */
  fee_open_cost?: number | null;
  fee_open_currency?: string | null;
  fee_close_cost?: number | null;
  fee_close_currency?: string | null;
  /** Why it exited: `roi`, `stop_loss`, `trailing_stop_loss`, `exit_signal`, `force_exit`, `liquidation`, a strategy's tag. */
  exit_reason?: string | null;
  /** `spot`, `margin` or `futures` (TradingMode); null on a trade from before freqtrade kept it. */
  trading_mode?: string | null;
  leverage?: number | null;
  liquidation_price?: number | null;
  /** A future's funding over its life, in the stake currency: positive received, negative paid (freqtrade's sign). */
  funding_fees?: number | null;
  orders?: FreqtradeOrder[];
  /**
   * The exchange's precision of the pair's amounts and prices, as ccxt gives them: with `precision_mode` 2
   * (DECIMAL_PLACES) a number of places, 3 (SIGNIFICANT_DIGITS) a number of digits, 4 (TICK_SIZE) the step itself
   * (0.01). Newer releases give the prices' mode apart (`precision_mode_price`). Absent or null on old trades.
   */
  amount_precision?: number | null;
  price_precision?: number | null;
  precision_mode?: number | null;
  precision_mode_price?: number | null;
}

/** `GET /api/v1/trades?limit=&offset=`: closed trades by id, paged. */
interface TradeResponse {
  trades: FreqtradeTrade[];
  offset: number;
  total_trades: number;
}

/** One currency of `/balance` (Balance): what the exchange (or the dry-run wallet) holds of it. */
interface BalanceEntry {
  currency: string;
  /** Free to trade with. */
  free: number;
  /** Tied up: in open orders (spot), as collateral of positions (futures). */
  used: number;
  balance: number;
}

/** `GET /api/v1/balance` (Balances): the fields the bridge reads. */
export interface Balances {
  currencies: BalanceEntry[];
  /** The whole account's value in the stake currency. */
  total: number;
  /** The part of it the bot manages: its stake currency and its positions, valued now. */
  total_bot: number;
  stake: string;
}

type FailureKind = 'unreachable' | 'unauthorized' | 'http' | 'invalid';

/** How each failure is said: in the bridge's log and, as the bot's state's message, on the dashboard and in alerts. */
const FAILURE_WORDS: Record<FailureKind, (url: string, cause: string) => string> = {
  unreachable: (url, cause) => `cannot reach freqtrade at ${url}: ${cause}`,
  unauthorized: (url) => `login refused by freqtrade at ${url}: check the username and password (HTTP 401)`,
  http: (url, cause) => `freqtrade at ${url} ${cause}`,
  invalid: (url, cause) => `freqtrade at ${url} ${cause}`,
};

/** Why freqtrade gave no answer: `unreachable` (network, timeout), `unauthorized` (401), `http` (any other status). */
export class FreqtradeError extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly url: string,
    cause: string,
  ) {
    super(FAILURE_WORDS[kind](url, cause));
    this.name = 'FreqtradeError';
  }
}

export interface FreqtradeOptions {
  /** The bot's API server, e.g. `http://127.0.0.1:8080` (with or without `/api/v1`). */
  url: string;
  username: string;
  password: string;
}

/** The largest page freqtrade's `/trades` is asked for. */
const TRADES_PAGE = 500;
/** How long a request may take. */
const TIMEOUT_MS = 10_000;

export type FreqtradeClient = ReturnType<typeof freqtradeClient>;

/** A client of one freqtrade bot's REST API. */
export function freqtradeClient(options: FreqtradeOptions) {
  const base = `${options.url.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1`;
  const authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const url = options.url;
  let clockAheadMs: number | undefined;

  async function get<T>(path: string, missing?: 'undefined-on-404'): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        headers: { authorization, accept: 'application/json' },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new FreqtradeError('unreachable', url, networkCause(error));
    }
    const date = Date.parse(response.headers.get('date') ?? '');
    // The header has whole seconds: the bot's clock read somewhere in the second it names.
    if (Number.isFinite(date)) clockAheadMs = date + 500 - Date.now();
    if (response.status === 401 || (response.status === 404 && missing)) {
      await response.body?.cancel();
      if (response.status === 401) throw new FreqtradeError('unauthorized', url, '');
      return undefined as T;
    }
    if (!response.ok) {
      const text = (await response.text().catch(() => '')).slice(0, 200);
      throw new FreqtradeError('http', url, `answered HTTP ${response.status} to GET ${path}${text ? `: ${text}` : ''}`);
    }
    try {
      return (await response.json()) as T;
    } catch {
      throw new FreqtradeError('invalid', url, `answered GET ${path} with something that is not JSON`);
    }
  }

  return {
    url,
    /**
     * How far the bot's clock was ahead of this machine's (negative: behind) at its last answer, in milliseconds, from
     * the answer's `Date` header (whole seconds, so ±1 s); undefined before an answer with one.
     */
    get clockAheadMs(): number | undefined {
      return clockAheadMs;
    },
    showConfig: () => get<ShowConfig>('/show_config'),
    health: () => get<Health>('/health'),
    /** Open trades. */
    status: () => get<FreqtradeTrade[]>('/status'),
    /** One page of closed trades, by id. */
    trades: (offset: number, limit = TRADES_PAGE) => get<TradeResponse>(`/trades?limit=${limit}&offset=${offset}`),
    /** One trade, open or closed; undefined when freqtrade has none with this id (deleted, or never filled). */
    trade: (id: number) => get<FreqtradeTrade | undefined>(`/trade/${id}`, 'undefined-on-404'),
    balance: () => get<Balances>('/balance'),
  };
}

/** What a failed fetch says, in a few words: the system's error code (ECONNREFUSED, ENOTFOUND), or a timeout. */
function networkCause(error: unknown): string {
  if ((error as Error)?.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  type Cause = { code?: string; message?: string; cause?: Cause; errors?: Cause[] };
  let cause = (error as Cause)?.cause;
  // undici wraps the socket's error, sometimes twice (an AggregateError of the addresses tried).
  while (cause && !cause.code && cause.cause) cause = cause.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return 'the connection was closed';
  return code ?? cause?.message ?? (error as Error)?.message ?? String(error);
}
