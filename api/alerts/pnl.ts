/**
 * The P&L alerts, opt-in, pure: their settings and when each speaks (probe-alerts.ts reads the figures and keeps
 * what was said in the alerts table). Three rules, each set for the stage and overridable per account, in one
 * variable read as the channels' are (settings.ts): the stage's value first, then `account=value` pairs, separated
 * by commas, e.g. `ALERT_DAILY_LOSS=5%, scalper-eur=150, paper-sandbox=off`.
 *
 * - ALERT_DAILY_LOSS: a day's (UTC) realized loss beyond an amount in the account's currency (`150`), or beyond a
 *   percent (`5%`) of its balance at the day's start (its balance now less the day's realized P&L);
 * - ALERT_DRAWDOWN: a balance below its peak by more than a percent of the peak (`10%`) or an amount; the peak is the
 *   highest balance the alerts have seen of the account since the rule was set (its realized equity, as the API's
 *   drawdown figures measure it);
 * - ALERT_TRADE_CLOSED: `on` announces each trade the account closes from then on.
 *
 * Each speaks once per crossing: a loss beyond the limit is said once that day, again only if the day came back
 * within the limit and crossed it again; a drawdown once, again after the balance came back within the limit.
 * Amounts and percents are compared exactly, as decimals.
 */
import {
  compareDecimals,
  decimalScale,
  decimalSign,
  divideDecimals,
  isDecimal,
  multiplyDecimals,
  negateDecimal,
  padDecimal,
  sumDecimals,
  trimDecimal,
} from '@trading-bot-api/core/decimal';
import type { PnlAlertState } from '@trading-bot-api/core/store/alerts-table';
import type { PnlFigures } from './events';

/** A limit: an amount in the account's currency, or a percent of a base. */
export type Limit = { amount: string } | { percent: string };

export const PNL_VARIABLES = ['ALERT_DAILY_LOSS', 'ALERT_DRAWDOWN', 'ALERT_TRADE_CLOSED'] as const;

type Setting<T> = { stage: T | undefined; accounts: Map<string, T | undefined> };

/** `value` as a stage's setting and the accounts' (`off` turns a rule off); throws naming what it cannot read. */
function parseSetting<T>(name: string, value: string | undefined, read: (text: string) => T | undefined): Setting<T> {
  const setting: Setting<T> = { stage: undefined, accounts: new Map() };
  if (!value) return setting;
  const parts = value.split(',').map((piece) => piece.trim());
  for (const [i, part] of parts.entries()) {
    if (!part) continue;
    const pair = /^([^=\s]+)\s*=\s*(.+)$/.exec(part);
    if (!pair && i > 0) throw new Error(`${name}: "${part}" should be account=value (the stage's value comes first)`);
    const text = pair ? pair[2] : part;
    const parsed = text === 'off' ? undefined : read(text);
    if (text !== 'off' && parsed === undefined) throw new Error(`${name}: cannot read "${text}"`);
    if (pair) setting.accounts.set(pair[1], parsed);
    else setting.stage = parsed;
  }
  return setting;
}

function readLimit(text: string): Limit | undefined {
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(text);
  if (percent) return decimalSign(percent[1]) > 0 ? { percent: percent[1] } : undefined;
  return isDecimal(text) && decimalSign(text) > 0 ? { amount: text } : undefined;
}

const readSwitch = (text: string) => (text === 'on' ? true : undefined);

function lookup<T>(setting: Setting<T>): (accountId: string) => T | undefined {
  return (accountId) => (setting.accounts.has(accountId) ? setting.accounts.get(accountId) : setting.stage);
}

/** The rules the values set, and a line for each that is set wrong (named by variable); those are off. */
export function pnlRulesOf(values: Partial<Record<(typeof PNL_VARIABLES)[number], string>>) {
  const problems: string[] = [];
  const parse = <T>(name: (typeof PNL_VARIABLES)[number], read: (text: string) => T | undefined, words: string): Setting<T> => {
    try {
      return parseSetting(name, values[name], read);
    } catch (error) {
      problems.push(`alerts: ${(error as Error).message}: ${words}; the rule is off`);
      return { stage: undefined, accounts: new Map() };
    }
  };
  const limits = 'an amount (150) or a percent (5%), or off';
  const dailyLoss = parse('ALERT_DAILY_LOSS', readLimit, limits);
  const drawdown = parse('ALERT_DRAWDOWN', readLimit, limits);
  const tradeClosed = parse('ALERT_TRADE_CLOSED', readSwitch, 'on or off');
  const settings: Setting<unknown>[] = [dailyLoss, drawdown, tradeClosed];
  return {
    rules: {
      dailyLoss: lookup(dailyLoss),
      drawdown: lookup(drawdown),
      tradeClosed: (accountId: string) => lookup(tradeClosed)(accountId) === true,
      // True when any rule is on for some account: the probe then reads the figures.
      any: settings.some((setting) => setting.stage !== undefined || [...setting.accounts.values()].some((value) => value !== undefined)),
    },
    problems,
  };
}

/** The rules each account is under: its limits (none: the rule is off for it) and whether its closed trades are said. */
export type PnlRules = ReturnType<typeof pnlRulesOf>['rules'];

/**
 * The amount a limit allows on `base`: the amount itself, or the percent of the base, exactly, shown with the base's
 * places when it has no more (5% of `1000.00` is `50.00`).
 */
export function limitAmount(limit: Limit, base: string): string {
  if ('amount' in limit) return limit.amount;
  const exact = trimDecimal(multiplyDecimals(multiplyDecimals(base, limit.percent), '0.01'));
  return decimalScale(exact) <= decimalScale(base) ? padDecimal(exact, decimalScale(base)) : exact;
}

/** Whether `fall` (a loss, a drawdown) is a fall at all and more than `allowed`. */
const beyond = (fall: string, allowed: string) => decimalSign(fall) > 0 && compareDecimals(fall, allowed) > 0;

/** What the probe read of an account for its P&L alerts. */
export interface PnlSnapshot {
  accountId: string;
  currency: string;
  /** Its balance now; null before its bot ever recorded one (a percent of nothing says nothing: only amounts apply). */
  balance: string | null;
  /** Today (UTC) and its realized P&L so far. */
  day: string;
  dayRealizedPL: string;
}

/** The P&L alerts' state of an account never watched. */
export function noPnlState(accountId: string): PnlAlertState {
  return {
    accountId,
    lossDay: null,
    peakBalance: null,
    drawdownOver: false,
    tradesCheckedAt: null,
    openTrades: [],
    announced: [],
    version: 0,
  };
}

/**
 * One probe's step of an account's daily loss and drawdown rules: the state to keep, and the figures of each alert
 * to send (once per crossing; coming back within a limit arms it again).
 */
export function pnlStep(
  rules: Pick<PnlRules, 'dailyLoss' | 'drawdown'>,
  snapshot: PnlSnapshot,
  previous: PnlAlertState,
): { next: PnlAlertState; dailyLoss?: PnlFigures; drawdown?: PnlFigures } {
  const { accountId, currency, balance, day, dayRealizedPL } = snapshot;
  const next = { ...previous };
  const said: { dailyLoss?: PnlFigures; drawdown?: PnlFigures } = {};
  const setting = (limit: Limit) => ('amount' in limit ? limit.amount : `${limit.percent}%`);
  const usable = (limit: Limit | undefined) => (limit && ('amount' in limit || balance !== null) ? limit : undefined);

  const lossLimit = usable(rules.dailyLoss(accountId));
  if (lossLimit) {
    // The day's start: the balance now less the day's realized P&L.
    const startBalance = sumDecimals([balance ?? '0', negateDecimal(dayRealizedPL)]);
    const limit = limitAmount(lossLimit, startBalance);
    const over = beyond(negateDecimal(dayRealizedPL), limit);
    if (over && previous.lossDay !== day)
      said.dailyLoss = { currency, day, realizedPL: dayRealizedPL, balance: startBalance, limit, setting: setting(lossLimit) };
    next.lossDay = over ? day : null;
  }
  const fallLimit = usable(rules.drawdown(accountId));
  if (fallLimit && balance !== null) {
    // The highest balance seen: the peak.
    const was = previous.peakBalance;
    const peak = was === null || compareDecimals(balance, was) >= 0 ? balance : was;
    const drawdown = sumDecimals([peak, negateDecimal(balance)]);
    const limit = limitAmount(fallLimit, peak);
    // A percent of a peak of nothing says nothing: only an amount limit applies then.
    const over = ('amount' in fallLimit || decimalSign(peak) > 0) && beyond(drawdown, limit);
    // The fall's share of the peak, to 4 places (null: a peak of nothing).
    const drawdownRatio = decimalSign(peak) > 0 ? divideDecimals(drawdown, peak, 4) : null;
    if (over && !previous.drawdownOver)
      said.drawdown = { currency, balance, peakBalance: peak, drawdown, drawdownRatio, limit, setting: setting(fallLimit) };
    next.peakBalance = peak;
    next.drawdownOver = over;
  }
  return { next, ...said };
}
