/** The API's public shapes, as written in openapi.yaml. Amounts are decimal strings, times RFC 3339 UTC with ms. */

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
