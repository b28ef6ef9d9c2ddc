/**
 * Event lines: one JSON object per line, one line per writer call, so a bot in any language feeds the API by
 * appending a line to a file (docs/event-lines.md, docs/event-lines.schema.json). Every line has `type` and `account`;
 * its other fields are the writer call's own, with the same names. A line is checked here on its own, with the
 * writer's own rules, before anything is written; what depends on what is stored (a close of a trade that is not
 * open) is the writer's to say when the line is applied.
 */
import {
  type Close,
  checkAccount,
  checkAccountId,
  checkClose,
  checkGone,
  checkHeartbeat,
  checkMarks,
  checkSnapshot,
  checkTrade,
  checkTradeId,
  type Trade,
  type TradeMarks,
  type Writer,
  WriterError,
} from '@trading-bot-api/writer';

export type EventType = 'account' | 'open' | 'close' | 'marks' | 'gone' | 'balance' | 'heartbeat' | 'retire' | 'restore';

type Fields = Record<string, unknown>;

/** A type of line: its fields besides `type` and `account` (the writer call's own), their check, and the call. */
interface LineType {
  required: readonly string[];
  optional: readonly string[];
  /** Checks the fields with the writer's own rules (a WriterError names the one wrong); returns what the event adds. */
  check: (fields: Fields, account: string, now: Date) => object | undefined;
  /** The writer call the line stands for, with its outcome. */
  apply: (writer: Writer, account: string, fields: Fields) => Promise<string>;
}

/** Every type of line, each in one place: its fields, its check, its writer call. */
export const LINE_TYPES: Record<EventType, LineType> = {
  account: {
    required: ['name', 'currency', 'broker', 'environment'],
    optional: ['createdAt'],
    check: (fields, account, now) => void checkAccount({ ...fields, id: account }, now),
    apply: (writer, account, fields) => writer.upsertAccount({ ...fields, id: account } as never),
  },
  open: {
    required: ['id', 'instrument', 'side', 'units', 'openPrice', 'openTime'],
    optional: ['unrealizedPL', 'stopLoss', 'takeProfit', 'market', 'leverage', 'fees', 'liquidationPrice', 'orderIds'],
    check: (fields, account, now) => ({
      id: checkTradeId(fields.id),
      trade: checkTrade({ ...fields, status: 'open' }, account, '', now, 'open'),
    }),
    apply: (writer, account, fields) => writer.openTrade(account, fields as never),
  },
  close: {
    required: ['id', 'closePrice', 'closeTime', 'realizedPL'],
    optional: ['unrealizedPL', 'reason', 'fees', 'fundingFees', 'orderIds'],
    // Checked against the trade's open time when applied.
    check: (fields) => ({ id: checkTradeId(fields.id), close: checkClose(fields, '0000-01-01T00:00:00.000Z') }),
    apply: (writer, account, { id, ...close }) => writer.closeTrade(account, id as string, close as never),
  },
  marks: {
    required: ['id'],
    optional: [
      'unrealizedPL',
      'stopLoss',
      'takeProfit',
      'units',
      'openPrice',
      'liquidationPrice',
      'fundingFees',
      'leverage',
      'fees',
      'orderIds',
    ],
    check: ({ id, ...marks }) => ({ id: checkTradeId(id), marks: checkMarks(marks) }),
    apply: (writer, account, { id, ...marks }) => writer.updateTradeMarks(account, id as string, marks),
  },
  balance: {
    required: ['balance', 'unrealizedPL', 'nav', 'marginUsed', 'marginAvailable', 'time'],
    optional: [],
    check: (fields) => void checkSnapshot(fields),
    apply: (writer, account, fields) => writer.recordBalance(account, fields as never),
  },
  heartbeat: {
    required: ['state'],
    optional: ['strategy', 'message', 'time'],
    check: (fields, _account, now) => void checkHeartbeat(fields, now),
    apply: (writer, account, fields) => writer.heartbeat(account, fields as never),
  },
  gone: {
    required: ['id', 'reason'],
    optional: ['time'],
    check: ({ id, ...gone }, _account, now) => {
      checkGone(gone, now);
      return { id: checkTradeId(id) };
    },
    apply: (writer, account, { id, ...gone }) => writer.markGone(account, id as string, gone as never),
  },
  retire: { required: [], optional: [], check: () => undefined, apply: (writer, account) => writer.retireAccount(account) },
  restore: { required: [], optional: [], check: () => undefined, apply: (writer, account) => writer.restoreAccount(account) },
};

/** A checked line: the writer call it stands for. */
export type Event =
  | { type: 'account'; account: string; fields: Record<string, unknown> }
  /** The trade as it opens (status open, P&L figures as given or 0). */
  | { type: 'open'; account: string; id: string; fields: Record<string, unknown>; trade: Trade }
  | { type: 'close'; account: string; id: string; fields: Record<string, unknown>; close: Close }
  | { type: 'marks'; account: string; id: string; fields: Record<string, unknown>; marks: TradeMarks }
  | { type: 'balance'; account: string; fields: Record<string, unknown> }
  | { type: 'heartbeat'; account: string; fields: Record<string, unknown> }
  /** A trade the bot no longer has (markGone). */
  | { type: 'gone'; account: string; id: string; fields: Record<string, unknown> }
  /** The account out of the fleet, or back in (retireAccount, restoreAccount). */
  | { type: 'retire' | 'restore'; account: string; fields: Record<string, unknown> };

/** Why a line is refused; the message completes "line N: …". */
export class LineError extends Error {}

/** Lines longer than this are refused unread: a bot's line is a few hundred bytes. */
export const MAX_LINE_BYTES = 64 * 1024;

/** The event a line of text stands for; throws LineError with the reason when it stands for none. */
export function parseLine(text: string): Event {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LineError(`not valid JSON (${(error as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new LineError('not a JSON object');
  const { type, account, ...fields } = value as Record<string, unknown>;
  if (typeof type !== 'string' || !Object.hasOwn(LINE_TYPES, type)) {
    throw new LineError(`type: must be one of ${Object.keys(LINE_TYPES).join(', ')}, got ${JSON.stringify(type)}`);
  }
  const spec = LINE_TYPES[type as EventType];
  const unknown = Object.keys(fields).filter((name) => !spec.required.includes(name) && !spec.optional.includes(name));
  if (unknown.length)
    throw new LineError(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for a ${type} line (it takes ${[...spec.required, ...spec.optional].join(', ')})`,
    );
  const missing = spec.required.filter((name) => fields[name] === undefined);
  if (missing.length) throw new LineError(`${missing.join(', ')}: required for a ${type} line`);
  try {
    const accountId = checkAccountId(account, 'account');
    return { type, account: accountId, fields, ...spec.check(fields, accountId, new Date()) } as Event;
  } catch (error) {
    if (error instanceof WriterError) throw new LineError(error.message);
    throw error;
  }
}
