/**
 * What an alert is, and the words of each kind: one `AlertEvent` per change, made where the change is seen (the
 * probe for the bots, the notifier for CloudWatch's alarms and the digest, `npm start`'s probe watch for its
 * database), with its human `title` and `text` written once, here; each channel only dresses them (channels.ts).
 * The event is also the body of the generic JSON webhook (webhook.schema.json, docs/alerts.md). Pure: no clients.
 */
import type { AccountStatus, BotState, ReconciliationDifference, Trade } from '@trading-bot-api/core/types';
import type { BotCondition } from '@trading-bot-api/core/store/alerts-table';

/** Each kind of alert (the webhook's `type`, webhook.schema.json), with the mark its title starts with. */
const MARK = {
  bot_error: '🔴',
  bot_stale: '🟡',
  bot_stopped: '⚪',
  bot_recovered: '🟢',
  database_down: '🔴',
  database_up: '🟢',
  daily_loss: '🔻',
  drawdown: '📉',
  trade_closed: '🔁',
  alarm: '🔔',
  digest: '📊',
  test: '✅',
  reconciliation: '🧾',
} as const;

export const ALERT_TYPES = Object.keys(MARK) as AlertType[];

type AlertType = keyof typeof MARK;

/** A bot as an alert names it. */
export interface BotRef {
  accountId: string;
  /** The account's name; its id when the account has none to read. */
  accountName: string;
}

export interface AlertEvent {
  type: AlertType;
  /** Unique per change (the same change published twice keeps its id, so a receiver can drop the second). */
  id: string;
  stage: string;
  /** When the change was seen. */
  time: string;
  /** One line: what changed, and of what. */
  title: string;
  /** The message as a person reads it: the title, then the details, one per line. */
  text: string;
  accountId?: string;
  accountName?: string;
  /** The bot's state as reported (bot_* events). */
  state?: BotState;
  /** The condition the bot left (bot_* events): `ok` when it was well. */
  previous?: BotCondition;
  /** Since when the new condition holds (null: the bot was never heard from). */
  since?: string | null;
  /** The bot's own message (bot_error, bot_stopped), if it gave one. */
  message?: string | null;
  heartbeatAgeSeconds?: number | null;
  /** The last error the bot or its bridge reported, and when it began (bot_stale, bot_stopped), if any. */
  lastError?: { message: string | null; at: string } | null;
  /** The P&L events' figures, in the account's currency, as exact decimals. */
  pnl?: PnlFigures;
  /** The closed trade (trade_closed). */
  trade?: ClosedTradeFigures;
  /** The bot's view on the dashboard, when the stage's URL is known. */
  url?: string;
  alarm?: AlarmDetails;
  digest?: unknown;
  /** A difference between a bot and its exchange account, new to the check (reconciliation). */
  reconciliation?: ReconciliationDetails;
}

/** A difference as its alert carries it: the API's, with the exchange account it was found against. */
type ReconciliationDetails = Omit<ReconciliationDifference, 'since'> & { exchangeAccountId: string };

/** What a P&L alert measured: the day's realized P&L (daily_loss) or the fall from the peak (drawdown), and the limit. */
export interface PnlFigures {
  currency: string;
  /** daily_loss: the day (UTC). */
  day?: string;
  /** daily_loss: the day's realized P&L; drawdown: the balance now. */
  realizedPL?: string;
  balance?: string;
  /** drawdown: the peak balance, the fall from it, and its share of the peak (null: a peak of nothing). */
  peakBalance?: string;
  drawdown?: string;
  drawdownRatio?: string | null;
  /** What the limit allows, in the currency, and the setting (`5%` or an amount). */
  limit: string;
  setting: string;
}

/** The fields of a trade its closing alert shows, as the API gives them. */
export const CLOSED_TRADE_FIELDS = [
  'id',
  'instrument',
  'side',
  'units',
  'openPrice',
  'openTime',
  'closePrice',
  'closeTime',
  'realizedPL',
  'currency',
  'closeReason',
  'feeTotal',
] as const;

/** A closed trade as its alert shows it: its currency the account's when the trade names none. */
export type ClosedTradeFigures = Pick<Trade, Exclude<(typeof CLOSED_TRADE_FIELDS)[number], 'currency' | 'feeTotal'>> & {
  currency: string;
  feeTotal: string | null;
};

interface AlarmDetails {
  name: string;
  state: string;
  previousState: string | null;
  reason: string | null;
  description: string | null;
}

/** A time as alerts show it: `2026-11-22 10:05 UTC`. */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A span as alerts show it: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function span(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** `Name (id)`, or the id alone when the name is the id. */
export function botLabel(bot: BotRef): string {
  return bot.accountName === bot.accountId ? bot.accountId : `${bot.accountName} (${bot.accountId})`;
}

/** The dashboard's view of an account under the stage's URL (which ends with `/`). */
function accountUrl(dashboardUrl: string | undefined, accountId: string): string | undefined {
  if (!dashboardUrl) return undefined;
  return `${dashboardUrl.endsWith('/') ? dashboardUrl : `${dashboardUrl}/`}#/account/${encodeURIComponent(accountId)}`;
}

/** Where and when an account's event is said, and of which bot. */
type AccountAt = { bot: BotRef; stage: string; time: string; dashboardUrl?: string };

function titled(stage: string, type: AlertType, words: string): string {
  return `[${stage}] ${MARK[type]} ${words}`;
}

/** An event: its text the title, then its lines; `fields` its kind's. */
function eventOf(type: AlertType, id: string, stage: string, time: string, title: string, lines: string[], fields?: Partial<AlertEvent>) {
  return { type, id, stage, time, title, text: [title, ...lines].join('\n'), ...fields };
}

const CONDITION_WORDS: Record<BotCondition, string> = { ok: 'well', error: 'in error', stale: 'stale', stopped: 'stopped' };

/** What the probe found of a bot whose condition changed: its status's report, and the change. */
export type BotChange = Pick<AccountStatus, 'state' | 'message' | 'lastHeartbeatAt' | 'heartbeatAgeSeconds'> & {
  bot: BotRef;
  /** The last error the bot or its bridge reported, if any. */
  lastError?: AccountStatus['lastError'];
  previous: { condition: BotCondition; since: string | null };
  next: { condition: BotCondition; since: string | null };
  staleAfterSeconds: number;
  /** The recorded version of the change: with the stage and the account, the event's id. */
  version: number;
};

/** The event of a bot's change of condition. */
export function botChangeEvent(change: BotChange, stage: string, time: string, dashboardUrl?: string): AlertEvent {
  const { bot, next, previous } = change;
  const label = botLabel(bot);
  const type: AlertType = next.condition === 'ok' ? 'bot_recovered' : `bot_${next.condition}`;
  const lines: string[] = [];
  let title: string;
  const was = previous.condition === 'ok' ? '' : ` (it was ${CONDITION_WORDS[previous.condition]})`;
  const since = next.since ? utcMinute(next.since) : 'an unknown time';
  switch (next.condition) {
    case 'error':
      title = `${label} is in error`;
      lines.push(`The bot reports an error${change.message ? `: ${change.message}` : ' (with no message)'}.`);
      lines.push(`In error since ${since}${was}.`);
      break;
    case 'stale':
      title = `${label} is stale`;
      lines.push(
        change.lastHeartbeatAt === null
          ? 'The bot is running but has never sent a heartbeat.'
          : `The bot is running but has sent no heartbeat for ${span(change.heartbeatAgeSeconds ?? 0)} (last at ${utcMinute(change.lastHeartbeatAt)}; stale after ${span(change.staleAfterSeconds)}).`,
      );
      if (change.lastError)
        lines.push(`Last error reported: ${change.lastError.message ?? '(no message)'} (from ${utcMinute(change.lastError.at)}).`);
      if (was) lines.push(`It was ${CONDITION_WORDS[previous.condition]}.`);
      break;
    case 'stopped':
      title = `${label} stopped`;
      lines.push(`The bot reports it is stopped${change.message ? `: ${change.message}` : ''}.`);
      lines.push(`Stopped since ${since}${was}.`);
      break;
    default: {
      title = `${label} recovered`;
      const now = change.state === 'paused' ? 'is paused' : 'is running and heartbeating';
      const lasted = previous.since
        ? ` for ${span((Date.parse(time) - Date.parse(previous.since)) / 1000)}, since ${utcMinute(previous.since)}`
        : '';
      lines.push(`The bot ${now} again: it was ${CONDITION_WORDS[previous.condition]}${lasted}.`);
    }
  }
  const payload = {
    state: change.state,
    previous: previous.condition,
    since: next.since,
    message: change.message,
    heartbeatAgeSeconds: change.heartbeatAgeSeconds,
    ...(next.condition === 'stale' ? { lastError: change.lastError ?? null } : {}),
  };
  const id = `${stage}:bot:${bot.accountId}:${change.version}`;
  return accountEvent(type, id, title, lines, payload, { bot, stage, time, dashboardUrl });
}

/** An amount with its currency and a true minus: `−60.00 USD`. */
function money(amount: string, currency: string): string {
  return `${amount.startsWith('-') ? `−${amount.slice(1)}` : amount} ${currency}`;
}

/** A ratio as a percentage, by moving its point two places, exactly: `0.5833` is `58.33 %`, `0.1250` is `12.5 %`. */
export function percentOf(ratio: string): string {
  const [whole, fraction = ''] = ratio.split('.');
  const digits = `${whole}${fraction.padEnd(2, '0')}`;
  const head = digits.slice(0, whole.length + 2).replace(/^0+(?=\d)/, '');
  const tail = fraction.slice(2).replace(/0+$/, '');
  return `${head}${tail ? `.${tail}` : ''} %`;
}

/** A setting as said: `5%` is `5 % of …`; an amount is the variable that set it. */
function settingWords(setting: string, of: string, variable: string): string {
  return setting.endsWith('%') ? `${setting.slice(0, -1)} % of ${of}` : variable;
}

interface PnlEventInput {
  bot: BotRef;
  figures: PnlFigures;
  /** The recorded version of the account's P&L alerts: with the stage and the account, the event's id. */
  version: number;
}

/** A day's realized loss beyond its limit. */
export function dailyLossEvent({ bot, figures, version }: PnlEventInput, stage: string, time: string, dashboardUrl?: string): AlertEvent {
  const { currency, realizedPL = '0', limit, setting, day } = figures;
  const words = `${botLabel(bot)} lost ${money(realizedPL.replace('-', ''), currency)} today`;
  const lines = [
    `Realized P&L of ${day} (UTC) so far: ${money(realizedPL, currency)}, beyond the daily loss limit of ${money(limit, currency)} (${settingWords(setting, `the day's starting balance, ${money(figures.balance ?? '', currency)}`, 'ALERT_DAILY_LOSS')}).`,
  ];
  const id = `${stage}:daily_loss:${bot.accountId}:${day}:${version}`;
  return accountEvent('daily_loss', id, words, lines, { pnl: figures }, { bot, stage, time, dashboardUrl });
}

/** A balance below its peak by more than its limit. */
export function drawdownEvent({ bot, figures, version }: PnlEventInput, stage: string, time: string, dashboardUrl?: string): AlertEvent {
  const { currency, limit, setting, peakBalance = '0', drawdown = '0', drawdownRatio } = figures;
  const share = drawdownRatio ? ` (${percentOf(drawdownRatio)})` : '';
  const words = `${botLabel(bot)} is ${money(drawdown, currency)}${share} below its peak`;
  const lines = [
    `Balance ${money(figures.balance ?? '0', currency)}, ${money(drawdown, currency)}${share} below its peak of ${money(peakBalance, currency)}; the drawdown limit is ${money(limit, currency)} (${settingWords(setting, 'the peak', 'ALERT_DRAWDOWN')}).`,
  ];
  const id = `${stage}:drawdown:${bot.accountId}:${version}`;
  return accountEvent('drawdown', id, words, lines, { pnl: figures }, { bot, stage, time, dashboardUrl });
}

/**
 * An account's event: its title (`words`, marked) and lines, the dashboard's link when there is one, and its payload
 * (its kind's fields).
 */
function accountEvent(
  type: AlertType,
  id: string,
  words: string,
  lines: string[],
  payload: Partial<AlertEvent>,
  at: AccountAt,
): AlertEvent {
  const { bot, stage, time } = at;
  const url = accountUrl(at.dashboardUrl, bot.accountId);
  if (url) lines.push(`Dashboard: ${url}`);
  const fields = { accountId: bot.accountId, accountName: bot.accountName, ...payload, ...(url ? { url } : {}) };
  return eventOf(type, id, stage, time, titled(stage, type, words), lines, fields);
}

/** A trade the account closed: instrument, side, P&L and why. */
export function tradeClosedEvent(bot: BotRef, trade: ClosedTradeFigures, stage: string, time: string, dashboardUrl?: string): AlertEvent {
  const words = `${botLabel(bot)} closed ${trade.side} ${trade.instrument}: ${money(trade.realizedPL, trade.currency)}${trade.closeReason ? ` (${trade.closeReason})` : ''}`;
  const lines = [
    `Trade ${trade.id}: ${trade.side} ${trade.units} ${trade.instrument}, opened ${utcMinute(trade.openTime)} at ${trade.openPrice}, closed ${trade.closeTime ? utcMinute(trade.closeTime) : 'at an unknown time'}${trade.closePrice ? ` at ${trade.closePrice}` : ''}.`,
    `Realized ${money(trade.realizedPL, trade.currency)}${trade.feeTotal ? ` after ${money(trade.feeTotal, trade.currency)} of fees` : ''}; reason: ${trade.closeReason ?? 'not given'}.`,
  ];
  const id = `${stage}:trade:${bot.accountId}:${trade.id}`;
  return accountEvent('trade_closed', id, words, lines, { trade }, { bot, stage, time, dashboardUrl });
}

/** The database stopped (`down`) or started answering the probe again. */
export function databaseEvent(down: boolean, stage: string, time: string, detail?: string): AlertEvent {
  const type: AlertType = down ? 'database_down' : 'database_up';
  const title = titled(stage, type, down ? 'The database does not answer' : 'The database answers again');
  const lines = down
    ? [`The probe could not read DynamoDB at ${utcMinute(time)}: the API answers 503 and no bot can be watched.`]
    : [`The probe reads DynamoDB again since ${utcMinute(time)}.`];
  if (detail) lines.push(detail);
  return eventOf(type, `${stage}:database:${type}:${time}`, stage, time, title, lines);
}

/**
 * A difference the exchange feed's reconciliation of a bot found first (issue 47): one event per difference, its id
 * the difference's identity (kind, trade and order), so it is said once however many checks see it.
 */
export function reconciliationEvent(
  found: { accountId: string; exchangeAccountId: string; checkedAt: string; difference: Omit<ReconciliationDetails, 'exchangeAccountId'> },
  stage: string,
  dashboardUrl?: string,
): AlertEvent {
  const { accountId, exchangeAccountId, checkedAt, difference } = found;
  const title = titled(
    stage,
    'reconciliation',
    `${accountId} disagrees with its exchange account: ${difference.kind.replaceAll('_', ' ')}`,
  );
  const url = accountUrl(dashboardUrl, accountId);
  const id = `${stage}:reconciliation:${accountId}:${difference.kind}:${difference.tradeId ?? ''}:${difference.orderId ?? ''}`;
  const lines = [difference.detail, `Checked against ${exchangeAccountId} at ${utcMinute(checkedAt)}.`, ...(url ? [url] : [])];
  const fields = { accountId, reconciliation: { exchangeAccountId, ...difference }, ...(url ? { url } : {}) };
  return eventOf('reconciliation', id, stage, checkedAt, title, lines, fields);
}

/** A message that only says alerts reach the channel. */
/** A test message: plain words, no markup (Telegram's HTML parse mode would show Markdown's backticks as they are). */
export function testEvent(stage: string, time: string): AlertEvent {
  const title = titled(stage, 'test', 'Test message from the Trading Bot API');
  const line = `Alerts of stage ${stage} reach this channel. Nothing changed: this was sent by the command npm run alerts -- test at ${utcMinute(time)}.`;
  return eventOf('test', `${stage}:test:${time}`, stage, time, title, [line]);
}

/**
 * A CloudWatch alarm's change of state, as SNS delivers it (the alarm's JSON), for a person. The database's own
 * alarm (`DatabaseUnhealthyAlarm`) is the one record of whether the database answers that needs no database, so its
 * changes are `database_down` and `database_up`; the others are `alarm`.
 */
export function alarmEvent(alarm: Record<string, unknown>, stage: string, messageId: string): AlertEvent {
  const name = String(alarm.AlarmName ?? 'an alarm');
  const state = String(alarm.NewStateValue ?? 'UNKNOWN');
  const previousState = typeof alarm.OldStateValue === 'string' ? alarm.OldStateValue : null;
  const reason = typeof alarm.NewStateReason === 'string' ? alarm.NewStateReason : null;
  const description = typeof alarm.AlarmDescription === 'string' ? alarm.AlarmDescription : null;
  const time = cloudWatchTime(alarm.StateChangeTime) ?? new Date().toISOString();
  const details: AlarmDetails = { name, state, previousState, reason, description };
  if (/DatabaseUnhealthyAlarm/.test(name) && (state === 'ALARM' || state === 'OK')) {
    const event = databaseEvent(state === 'ALARM', stage, time, reason ? `CloudWatch: ${reason}` : undefined);
    return { ...event, id: `${stage}:alarm:${messageId}`, alarm: details };
  }
  const mark = state === 'ALARM' ? 'Alarm' : state === 'OK' ? 'Alarm over' : `Alarm ${state.toLowerCase().replaceAll('_', ' ')}`;
  const title = `[${stage}] ${state === 'OK' ? '🟢' : state === 'ALARM' ? '🔔' : '⚪'} ${mark}: ${shortAlarmName(name)}`;
  const lines = [
    ...(description ? [description] : []),
    `State: ${state}${previousState ? ` (was ${previousState})` : ''} at ${utcMinute(time)}.`,
    ...(reason ? [`Reason: ${reason}`] : []),
  ];
  return eventOf('alarm', `${stage}:alarm:${messageId}`, stage, time, title, lines, { alarm: details });
}

/**
 * CloudFormation names an alarm `<stack>-<LogicalId>-<suffix>`: the logical id (`Api5xxRateAlarm`) is what the
 * runbook in docs/operations.md names.
 */
export function shortAlarmName(name: string): string {
  return /^trading-bot-api-[\w]+-([A-Za-z0-9]+Alarm)-[A-Za-z0-9]+$/.exec(name)?.[1] ?? name;
}

/** CloudWatch writes `2026-11-22T10:05:00.123+0000`; ISO 8601 as every other time here. */
function cloudWatchTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
