/**
 * What a bot's writes cost in write units, as DynamoDB Local reports them (it counts a transaction's items twice, as
 * AWS bills them): each kind of call a bot makes, on one account of a loaded fleet, through the writer's own metered
 * client; and what the fleet projector then writes to carry it to the fleet's summary (`projected`), through its own.
 * The fleet phase (fleet-worker.ts) reports them at 5 and at 1,000 bots: the bot's own cost no longer grows with the
 * fleet, and the projector's is its own, off the bot's transaction.
 */
import type { Writer } from '@trading-bot-api/writer';
import type { ReadMeter } from './read-meter';

export const WRITE_KINDS = [
  'heartbeat',
  'heartbeatNewWindow',
  'heartbeatNewMessage',
  'balanceSnapshot',
  'tradeOpen',
  'tradeClose',
  'profileChange',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** Write units of one call: the bot's (its writer's client) and the projector's for it. */
export interface WriteCost {
  bot: number;
  projected: number;
}

/**
 * Each kind of call once on `accountId` (an account of the fleet, projected), measured one at a time: `project`
 * carries the changes so far to the fleet's summary (a local projector's drain), metered by `projector`. The calls
 * are dated from the first window of `windowSeconds` that begins after `start` (later than any heartbeat stored), a
 * few seconds apart: a heartbeat into the next window is what moved a bot's stamp before issue 44, kept so the
 * figures compare; short enough that two windows stay within the 5 minutes ahead the writer accepts.
 */
export async function measureWriteCosts(options: {
  writer: Writer;
  writerMeter: ReadMeter;
  project: () => Promise<void>;
  projector: ReadMeter;
  accountId: string;
  currency: string;
  windowSeconds: number;
  start: Date;
}): Promise<Record<WriteKind, WriteCost>> {
  const { writer, writerMeter, projector, accountId } = options;
  // Heartbeats at the start of a stamp window, then one later in it, then one in the next.
  const window = options.windowSeconds * 1000;
  const base = Math.ceil((options.start.getTime() + 1) / window) * window;
  const at = (ms: number) => new Date(base + ms).toISOString();
  const beat = (ms: number, message: string) => writer.heartbeat(accountId, { state: 'running', strategy: 'bench', message, time: at(ms) });
  await beat(0, 'steady');
  await options.project();
  const calls: Record<WriteKind, () => Promise<unknown>> = {
    heartbeat: () => beat(window / 2, 'steady'),
    heartbeatNewWindow: () => beat(window + 1000, 'steady'),
    heartbeatNewMessage: () => beat(window + 2000, 'changed'),
    balanceSnapshot: () =>
      writer.recordBalance(accountId, {
        balance: '1234.5',
        unrealizedPL: '0',
        nav: '1234.5',
        marginUsed: '0',
        marginAvailable: '1234.5',
        time: at(window + 3000),
      }),
    tradeOpen: () =>
      writer.openTrade(accountId, {
        id: 'bench-cost-1',
        instrument: 'EUR_USD',
        side: 'buy',
        units: '1000',
        openPrice: '1.08',
        openTime: at(window + 4000),
      }),
    tradeClose: () => writer.closeTrade(accountId, 'bench-cost-1', { closePrice: '1.09', closeTime: at(window + 5000), realizedPL: '10' }),
    profileChange: () =>
      writer.upsertAccount({ id: accountId, name: 'Bench renamed', currency: options.currency, broker: 'bench', environment: 'paper' }),
  };
  const costs = {} as Record<WriteKind, WriteCost>;
  for (const kind of WRITE_KINDS) {
    writerMeter.reset();
    await calls[kind]();
    const bot = writerMeter.take().consumedWcu;
    projector.reset();
    await options.project();
    costs[kind] = { bot, projected: projector.take().consumedWcu };
  }
  return costs;
}
