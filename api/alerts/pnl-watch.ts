/**
 * The P&L alerts' reads for one probe run (pnl.ts decides): each watched account's balance (its balances item), its
 * day's realized P&L (its day's P&L aggregate) and, where ALERT_TRADE_CLOSED is on, the trades it closed since the
 * last run. Closed trades have no listing by close time, so they are found as the trades open at the last run that
 * are open no more, and the closed ones opened since (a margin back from it, for a bot's clock a little behind); a
 * trade written late, opened and closed before the last run (a bridge catching up after days away), is not
 * announced: its history would flood the channel.
 */
import { readAccountScopedItems } from '@trading-bot-api/core/store/accounts-table';
import type { PnlAlertState } from '@trading-bot-api/core/store/alerts-table';
import { toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import { getPnlOfAccounts } from '@trading-bot-api/core/store/ledger-table';
import { getTradeRecords, readTrades, tradeListing } from '@trading-bot-api/core/store/trades-table';
import type { Trade } from '@trading-bot-api/core/types';
import { logger } from '../telemetry';
import type { AlertsConfig } from './config';
import { CLOSED_TRADE_FIELDS, type ClosedTradeFigures, type PnlFigures } from './events';
import { noPnlState, type PnlRules, pnlRulesOf, pnlStep } from './pnl';
import { configuredAlertValues } from './remote';

const DAY_MS = 86_400_000;
/** How far back of the last run closed trades are looked for, for a bot whose clock is behind. */
const MARGIN_MS = 10 * 60_000;

/** An account's P&L alerts of this run: the state to record in place of `previous`, and what to say. */
export interface PnlChange {
  previous: PnlAlertState;
  next: PnlAlertState;
  dailyLoss?: PnlFigures;
  drawdown?: PnlFigures;
  closed: ClosedTradeFigures[];
}

/** The changes of the accounts `accountIds` (the fleet, retired ones left out) under `rules`. */
export async function watchPnl(
  store: Store,
  accountIds: readonly string[],
  states: ReadonlyMap<string, PnlAlertState>,
  rules: PnlRules,
  now: Date,
): Promise<PnlChange[]> {
  const watched = accountIds.filter((id) => rules.dailyLoss(id) || rules.drawdown(id) || rules.tradeClosed(id));
  if (!watched.length) return [];
  const dayStart = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const day = new Date(dayStart).toISOString();
  const [balances, days] = await Promise.all([
    readAccountScopedItems(store, store.tables.balances, watched),
    getPnlOfAccounts(store, watched, 'day', day),
  ]);
  const balanceOf = new Map(balances.map((item) => [item.accountId as string, toBalanceRecord(item)]));
  const dayOf = new Map(days.map((entry) => [entry.accountId, entry.realizedPL]));
  const changes: PnlChange[] = [];
  for (const accountId of watched) {
    const record = balanceOf.get(accountId);
    if (!record) continue;
    const previous = states.get(accountId) ?? noPnlState(accountId);
    const step = pnlStep(
      rules,
      {
        accountId,
        currency: record.currency,
        balance: record.snapshotAt === null ? null : record.balance,
        day: day.slice(0, 10),
        dayRealizedPL: dayOf.get(accountId) ?? '0',
      },
      previous,
    );
    let next = step.next;
    let closed: ClosedTradeFigures[] = [];
    if (rules.tradeClosed(accountId)) ({ next, closed } = await closedTrades(store, accountId, record.currency, next, now));
    const { version: _a, ...was } = previous;
    const { version: _b, ...is } = next;
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    changes.push({
      previous,
      next: { ...next, version: previous.version + 1 },
      dailyLoss: step.dailyLoss,
      drawdown: step.drawdown,
      closed,
    });
  }
  return changes;
}

let lastSaid = '';

/**
 * The stage's P&L rules, read as the channels' settings are (the environment and files, then the secret and the
 * parameters); a rule set wrong is logged when it first shows and when it changes, and is off. When the settings
 * cannot be read, the P&L alerts are off for this run (logged): the bots' alerts go on.
 */
export async function stageRules(alerts: AlertsConfig, env: Record<string, string | undefined>): Promise<PnlRules | undefined> {
  const values = await configuredAlertValues(env, alerts).catch((error: Error) => {
    logger.error('alerts: the P&L alerts are off this run: their settings could not be read', { cause: error.message });
  });
  if (!values) return undefined;
  const { rules, problems } = pnlRulesOf(values);
  const said = problems.join('\n');
  if (said !== lastSaid) for (const problem of problems) logger.error(problem);
  lastSaid = said;
  return rules;
}

const positionOf = (trade: Pick<Trade, 'openTime' | 'id'>) => `${trade.openTime}#${trade.id}`;

/** The trades `accountId` closed since the last run (see the module's comment), and the state that remembers them. */
async function closedTrades(
  store: Store,
  accountId: string,
  currency: string,
  state: PnlAlertState,
  now: Date,
): Promise<{ next: PnlAlertState; closed: ClosedTradeFigures[] }> {
  const open = await readTrades(store, tradeListing(accountId, { status: 'open' }), {});
  const checkedAt = new Date(now.getTime() - MARGIN_MS).toISOString();
  const base = { ...state, openTrades: open.map(positionOf), tradesCheckedAt: checkedAt };
  // The first run that watches the account only takes note of what is open.
  if (state.tradesCheckedAt === null) return { next: { ...base, announced: [] }, closed: [] };
  const stillOpen = new Set(open.map((trade) => trade.id));
  const left = state.openTrades
    .map((position) => ({ accountId, openTime: position.slice(0, position.indexOf('#')), id: position.slice(position.indexOf('#') + 1) }))
    .filter((trade) => !stillOpen.has(trade.id));
  const [records, recent] = await Promise.all([
    getTradeRecords(store, left),
    readTrades(store, tradeListing(accountId, { status: 'closed' }), { from: state.tradesCheckedAt }),
  ]);
  const said = new Set(state.announced);
  const found = new Map<string, Trade>();
  for (const { trade } of records.values()) if (trade.status === 'closed') found.set(trade.id, trade);
  for (const trade of recent) if (!said.has(trade.id)) found.set(trade.id, trade);
  const closed = [...found.values()].sort((a, b) => (a.closeTime ?? '').localeCompare(b.closeTime ?? '') || a.id.localeCompare(b.id));
  const announced = [...closed, ...recent.filter((trade) => said.has(trade.id))]
    .filter((trade) => trade.openTime >= checkedAt)
    .map((trade) => trade.id);
  return { next: { ...base, announced: [...new Set(announced)] }, closed: closed.map((trade) => figuresOf(trade, currency)) };
}

function figuresOf(trade: Trade, currency: string): ClosedTradeFigures {
  // In the fields' order (the webhook's JSON keeps it); currency and feeTotal get their defaults in their places.
  const shown = Object.fromEntries(CLOSED_TRADE_FIELDS.map((field) => [field, trade[field]])) as ClosedTradeFigures;
  return { ...shown, currency: trade.currency ?? currency, feeTotal: trade.feeTotal ?? null };
}
