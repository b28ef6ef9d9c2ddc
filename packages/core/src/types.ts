/**
 * The API's public shapes, taken from the contract: client/schema.d.ts is generated from openapi.yaml
 * (`npm run client:generate`), so a change of contract changes these types, and the code that no longer fits it
 * stops compiling. Amounts are decimal strings, times RFC 3339 UTC with milliseconds.
 */
import type { components } from '../../../client/schema';

type Schemas = components['schemas'];

export type Health = Schemas['Health'];
export type Account = Schemas['Account'];
export type AccountList = Schemas['AccountList'];
export type Balance = Schemas['Balance'];
export type Total = Schemas['Total'];
export type AllBalances = Schemas['AllBalances'];
/** Every account's NAV in the stage's reporting currency (API 1.9), and an equity point's, at its own time (1.10). */
export type Reporting = Schemas['Reporting'];
export type ReportingRoute = Schemas['ReportingRoute'];
export type PointReporting = NonNullable<Schemas['EquityPoint']['reporting']>;
export type Trade = Schemas['Trade'];
/** A fee as the exchange charged it, in its own currency, with the exchange of the trade that charged it (API 1.5). */
export type Fee = Schemas['Fee'];
export type Market = NonNullable<Trade['market']>;

/**
 * A Trade's fields in the contract's order: the columns of a CSV of trades, written (the listings' `csv` layout) and
 * read back (`npm run import`'s files) alike.
 */
export const TRADE_FIELDS = [
  'id',
  'accountId',
  'instrument',
  'side',
  'units',
  'status',
  'openPrice',
  'openTime',
  'closePrice',
  'closeTime',
  'realizedPL',
  'unrealizedPL',
  'stopLoss',
  'takeProfit',
  'closeReason',
  'currency',
  'market',
  'leverage',
  'fees',
  'feeTotal',
  'fundingFees',
  'liquidationPrice',
  'orderIds',
] as const satisfies readonly (keyof Trade)[];
export type TradePage = Schemas['TradePage'];
export type AccountStatus = Schemas['AccountStatus'];
export type Reconciliation = Schemas['Reconciliation'];
export type ReconciliationDifference = Schemas['ReconciliationDifference'];
/** How many of the accounts' bots are in each state, and how many are stale (whatever their state field says). */
export type FleetSummary = Schemas['FleetSummary'];
export type FleetStatus = Schemas['FleetStatus'];
/** The realized P&L of the trades closed in one period (by `closeTime`), with their counts. */
export type PnlPoint = Schemas['PnlPoint'];
export type AccountPnl = Schemas['AccountPnl'];
export type AllPnl = Schemas['AllPnl'];
export type AccountEquity = Schemas['AccountEquity'];
/** How well the trades closed in a window did, in one currency, overall and per instrument (API 1.2). */
export type CurrencyPerformance = Schemas['CurrencyPerformance'];
/** The figures of a set of closed trades (packages/core/src/performance.ts computes them). */
export type PerformanceFigures = Schemas['PerformanceFigures'];
/**
 * The largest fall of realized equity: how much, as a share of the equity at its peak (null when that is unknown or
 * not above zero), from the end of the peak's day to the end of the lowest day (null without a drawdown).
 */
export type Drawdown = Schemas['Drawdown'];
export type InstrumentPerformance = Schemas['InstrumentPerformance'];
export type AccountPerformance = Schemas['AccountPerformance'];
export type AllPerformance = Schemas['AllPerformance'];
/** Every visible bot side by side over the last 30 days (API 1.8). */
export type Comparison = Schemas['Comparison'];
export type ComparisonRow = Schemas['ComparisonRow'];

export type TradeStatus = Trade['status'];
export type BotState = AccountStatus['state'];

/**
 * What the bot last reported about itself (a heartbeat), stored on the account item; not itself an API shape, but
 * the status's fields of it. `stateSince` (when the bot first reported its current state) and `lastError` (its last
 * error's message and when that error began) are kept by the store: a report need not give them.
 */
export type BotReport = Pick<AccountStatus, 'state' | 'lastHeartbeatAt' | 'strategy' | 'message' | 'updatedAt'> &
  Partial<Pick<AccountStatus, 'stateSince' | 'lastError'>>;
