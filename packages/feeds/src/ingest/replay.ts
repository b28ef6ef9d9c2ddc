/**
 * Lines read again after the ingester stopped mid-batch (source.ts marks them `replay`): which of them the store
 * already shows, so they are counted `unchanged` instead of being applied again. Applied again, an applied line can
 * be refused although nothing is wrong with it: a `marks` line of a trade a later line closed (TRADE_CLOSED), an
 * `open` line of a trade whose units a later line changed (TRADE_CONFLICT).
 *
 * The rule, for one trade's lines in the batch, in order: the batch was applied up to some point (the writer applies
 * an account's lines in order, a trade's folded lines all at once), so what it wrote of a trade is its first k lines.
 * The lines the store shows are the first k for the largest k such that some trade stored before the batch, given
 * lines 1..k one by one, would have accepted each of them and ended exactly as the stored trade. Those are
 * `unchanged`; the rest are applied as usual, and get the writer's own answer. So a line is never counted applied
 * unless the stored trade is what it leads to, and skipping lines 1..k changes nothing: each field they set holds the
 * value the last of them gave it, and a closed trade holds their close. A line refused the first time and restated
 * by a later line of the batch cannot be told from one applied (the first run reported it, if it got that far).
 *
 * The trade before the batch is unknown: it is worked out as far as the lines say, in at most two branches (open
 * or closed, once a line needs to know), from what never changes (instrument, side, openTime: the stored trade's).
 */
import type { BotReport, Close, Heartbeat, Trade, TradeMarks } from '@trading-bot-api/writer';
import type { Event } from './lines';

export type TradeEvent = Extract<Event, { type: 'open' | 'close' | 'marks' }>;

/** What an open repeated must match, and what a close repeated on a closed trade must match (the writer's rules). */
const OPENING = ['instrument', 'side', 'units', 'openPrice', 'openTime'] as const;
const CLOSING = ['closePrice', 'closeTime', 'realizedPL'] as const;

/** A trade as far as it is known: a field absent is whatever the trade held before the batch. */
type Known = Partial<Trade>;

const pick = <K extends keyof Trade>(from: Partial<Trade>, fields: readonly K[]) =>
  Object.fromEntries(fields.map((field) => [field, from[field]])) as Partial<Trade>;

/** Two values of a trade's field: lists (fees, order ids) by their content. */
const same = (a: unknown, b: unknown) =>
  a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

/** `known` once it holds `values`: fields not yet known take them, known ones must equal them; undefined if not. */
function holding(known: Known, values: Partial<Trade>): Known | undefined {
  const next = { ...known };
  for (const [field, value] of Object.entries(values) as [keyof Trade, Trade[keyof Trade]][]) {
    if (field in next && !same(next[field], value)) return undefined;
    (next as Record<string, unknown>)[field] = value;
  }
  return next;
}

/** The branches of an unknown status: open and closed; a known one stays itself. */
function byStatus(known: Known): Known[] {
  if (known.status) return [known];
  return [
    { ...known, status: 'open' },
    { ...known, status: 'closed' },
  ];
}

/** The order ids `known` holds after `given` are added (the writer's orderIdsWith): unknown while its own are. */
function withIds(known: Known, given: string[] | null | undefined): Known {
  if (!given) return known;
  const { orderIds, ...rest } = known;
  return 'orderIds' in known ? { ...rest, orderIds: [...new Set([...(orderIds ?? []), ...given])] } : rest;
}

/** An open `known` once marked (the writer's tradeAfterMarks, as far as `known` is known). */
function marked(known: Known, marks: TradeMarks): Known {
  const { orderIds, ...plain } = marks;
  return withIds({ ...known, ...plain }, orderIds);
}

/** An open `known` once closed (the writer's tradeAfterClose, as far as `known` is known). */
function closed(known: Known, close: Close): Known {
  const { closePrice, closeTime, realizedPL, unrealizedPL } = close;
  const next: Known = { ...known, closePrice, closeTime, realizedPL, unrealizedPL, status: 'closed', closeReason: close.closeReason };
  if (close.fundingFees !== null) next.fundingFees = close.fundingFees;
  if (close.fees !== null) {
    // The opening's fees, then the close's; unknown while the opening's are (unless the close gives them too).
    const whole = close.fees.some((fee) => fee.leg === 'open') || known.fees === null;
    if (whole) next.fees = close.fees;
    else if (known.fees) next.fees = [...known.fees.filter((fee) => fee.leg === 'open'), ...close.fees];
    else delete next.fees;
  }
  return withIds(next, close.orderIds);
}

/** The trades `known` may become by `event`, accepted by the writer; none when the writer would refuse it. */
function step(known: Known, event: TradeEvent): Known[] {
  const out: (Known | undefined)[] = [];
  if (event.type === 'open') out.push(holding(known, pick(event.trade, OPENING)));
  else
    for (const branch of byStatus(known)) {
      if (event.type === 'marks')
        // Marks of a closed trade are accepted only when they change nothing.
        out.push(branch.status === 'open' ? marked(branch, event.marks) : holding(branch, event.marks as Partial<Trade>));
      else if (branch.status === 'closed') out.push(holding(branch, pick(event.close, CLOSING)));
      else if (branch.openTime !== undefined && event.close.closeTime >= branch.openTime) out.push(closed(branch, event.close));
    }
  return out.filter((branch): branch is Known => branch !== undefined);
}

const isStored = (known: Known, stored: Trade) =>
  (Object.entries(known) as [keyof Trade, unknown][]).every(([field, value]) => same(stored[field], value));

/** How many of a trade's lines (in order) the stored trade already shows; see the module's comment. */
export function linesShown(stored: Trade, events: readonly TradeEvent[]): number {
  let branches: Known[] = [pick(stored, ['instrument', 'side', 'openTime'])];
  let shown = 0;
  for (const [index, event] of events.entries()) {
    branches = branches.flatMap((branch) => step(branch, event));
    if (!branches.length) break;
    if (branches.some((branch) => isStored(branch, stored))) shown = index + 1;
  }
  return shown;
}

/**
 * Whether a heartbeat line is the stored report: the same time (given on the line; one without takes the time it is
 * applied, so it is never the same), state, strategy and message. Applied again, the writer would record it again.
 */
export function heartbeatShown(report: BotReport, heartbeat: Heartbeat) {
  return (
    report.lastHeartbeatAt === heartbeat.time &&
    report.state === heartbeat.state &&
    report.strategy === heartbeat.strategy &&
    report.message === heartbeat.message
  );
}
