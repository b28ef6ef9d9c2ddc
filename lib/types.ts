/** The API's public shapes, as written in openapi.yaml. Amounts are decimal strings, times RFC 3339 UTC with ms. */
import type { Interval, Period } from './time';

export type Environment = 'live' | 'paper';
export type TradeSide = 'buy' | 'sell';
export type TradeStatus = 'open' | 'closed';
export type BotState = 'running' | 'paused' | 'stopped' | 'error';

export interface Account {
  id: string;
  name: string;
  currency: string;
  broker: string;
  environment: Environment;
  createdAt: string;
}

export interface Balance {
  accountId: string;
  currency: string;
  balance: string;
  unrealizedPL: string;
  nav: string;
  realizedPL: string;
  marginUsed: string;
  marginAvailable: string;
  openTradeCount: number;
  updatedAt: string;
}

export interface Total {
  currency: string;
  balance: string;
  unrealizedPL: string;
  nav: string;
  realizedPL: string;
  marginUsed: string;
  marginAvailable: string;
  openTradeCount: number;
  accountCount: number;
}

export interface Trade {
  id: string;
  accountId: string;
  instrument: string;
  side: TradeSide;
  units: string;
  status: TradeStatus;
  openPrice: string;
  openTime: string;
  closePrice: string | null;
  closeTime: string | null;
  realizedPL: string;
  unrealizedPL: string;
  stopLoss: string | null;
  takeProfit: string | null;
}

/** What the bot last reported about itself (a heartbeat), stored on the account item. */
export interface BotReport {
  state: BotState;
  lastHeartbeatAt: string | null;
  strategy: string | null;
  message: string | null;
  updatedAt: string;
}

export interface AccountStatus {
  accountId: string;
  state: BotState;
  stale: boolean;
  lastHeartbeatAt: string | null;
  heartbeatAgeSeconds: number | null;
  openTradeCount: number;
  lastTradeAt: string | null;
  strategy: string | null;
  message: string | null;
  updatedAt: string;
}

/** How many of the accounts' bots are in each state, and how many are stale (whatever their state field says). */
export interface FleetSummary {
  total: number;
  running: number;
  paused: number;
  stopped: number;
  error: number;
  stale: number;
}

export interface FleetStatus {
  accounts: AccountStatus[];
  summary: FleetSummary;
}

/** The realized P&L of the trades closed in one period (by `closeTime`), with their counts. */
export interface PnlPoint {
  /** The period's start. */
  start: string;
  realizedPL: string;
  tradesClosed: number;
  /** Trades closed with `realizedPL` > 0. */
  wins: number;
  /** Trades closed with `realizedPL` < 0. */
  losses: number;
}

export interface AccountPnl {
  accountId: string;
  currency: string;
  period: Period;
  from: string;
  to: string;
  points: PnlPoint[];
}

/** The P&L of every visible account in one currency, summed per period. */
export interface PnlSeries {
  currency: string;
  accountCount: number;
  points: PnlPoint[];
}

export interface AllPnl {
  period: Period;
  from: string;
  to: string;
  series: PnlSeries[];
}

/** The last balance snapshot recorded in one interval. */
export interface EquityPoint {
  /** When the snapshot was taken. */
  time: string;
  balance: string;
  nav: string;
  unrealizedPL: string;
}

export interface AccountEquity {
  accountId: string;
  currency: string;
  interval: Interval;
  from: string;
  to: string;
  points: EquityPoint[];
}

export interface TradePage {
  trades: Trade[];
  count: number;
  limit: number;
  nextCursor: string | null;
}

/** Who is asking: every account (`*`), or the accounts an API key was issued for. */
export interface Principal {
  accounts: '*' | readonly string[];
  /** The API key's id; absent when keys are off. */
  keyId?: string;
}
