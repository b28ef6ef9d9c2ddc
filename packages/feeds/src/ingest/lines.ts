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
  WriterError,
} from '@trading-bot-api/writer';

export type EventType = 'account' | 'open' | 'close' | 'marks' | 'gone' | 'balance' | 'heartbeat' | 'retire' | 'restore';

/** The fields of each type of line besides `type` and `account`: the writer call's own. */
export const EVENT_FIELDS: Record<EventType, { required: readonly string[]; optional: readonly string[] }> = {
  account: { required: ['name', 'currency', 'broker', 'environment'], optional: ['createdAt'] },
  open: {
    required: ['id', 'instrument', 'side', 'units', 'openPrice', 'openTime'],
    optional: ['unrealizedPL', 'stopLoss', 'takeProfit', 'market', 'leverage', 'fees', 'liquidationPrice', 'orderIds'],
  },
  close: {
    required: ['id', 'closePrice', 'closeTime', 'realizedPL'],
    optional: ['unrealizedPL', 'reason', 'fees', 'fundingFees', 'orderIds'],
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
  },
  balance: { required: ['balance', 'unrealizedPL', 'nav', 'marginUsed', 'marginAvailable', 'time'], optional: [] },
  heartbeat: { required: ['state'], optional: ['strategy', 'message', 'time'] },
  gone: { required: ['id', 'reason'], optional: ['time'] },
  retire: { required: [], optional: [] },
  restore: { required: [], optional: [] },
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
  if (typeof type !== 'string' || !Object.hasOwn(EVENT_FIELDS, type)) {
    throw new LineError(`type: must be one of ${Object.keys(EVENT_FIELDS).join(', ')}, got ${JSON.stringify(type)}`);
  }
  const spec = EVENT_FIELDS[type as EventType];
  const unknown = Object.keys(fields).filter((name) => !spec.required.includes(name) && !spec.optional.includes(name));
  if (unknown.length)
    throw new LineError(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for a ${type} line (it takes ${[...spec.required, ...spec.optional].join(', ')})`,
    );
  const missing = spec.required.filter((name) => fields[name] === undefined);
  if (missing.length) throw new LineError(`${missing.join(', ')}: required for a ${type} line`);
  try {
    const accountId = checkAccountId(account, 'account');
    return event(type as EventType, accountId, fields);
  } catch (error) {
    if (error instanceof WriterError) throw new LineError(error.message);
    throw error;
  }
}

function event(type: EventType, account: string, fields: Record<string, unknown>): Event {
  const now = new Date();
  switch (type) {
    case 'account':
      checkAccount({ ...fields, id: account }, now);
      return { type, account, fields };
    case 'open':
      return {
        type,
        account,
        id: checkTradeId(fields.id),
        fields,
        trade: checkTrade({ ...fields, status: 'open' }, account, '', now, 'open'),
      };
    case 'close':
      // Checked against the trade's open time when applied.
      return { type, account, id: checkTradeId(fields.id), fields, close: checkClose(fields, '0000-01-01T00:00:00.000Z') };
    case 'marks': {
      const { id, ...marks } = fields;
      return { type, account, id: checkTradeId(id), fields, marks: checkMarks(marks) };
    }
    case 'balance':
      checkSnapshot(fields);
      return { type, account, fields };
    case 'heartbeat':
      checkHeartbeat(fields, now);
      return { type, account, fields };
    case 'gone': {
      const { id, ...gone } = fields;
      checkGone(gone, now);
      return { type, account, id: checkTradeId(id), fields };
    }
    case 'retire':
    case 'restore':
      return { type, account, fields };
  }
}
