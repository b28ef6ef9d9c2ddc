/**
 * What the hummingbot bridge writes per fill: fills as hummingbot publishes them on `…/events` (the tests' fake
 * hummingbot's payloads), handed to the bridge as its MQTT client would, into a new account: write requests
 * (transactions, and the items they write, by table) and reads per fill, fills per second; then every fill given
 * again, which must write nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HummingbotBridge } from '@trading-bot-api/feeds/bridges/hummingbot/bridge';
import { localStore } from '../scripts/local-stack/local-db';
import { localWriter } from '../scripts/support/load-data';
import { type FillInput, orderFilledEvent } from '../test/kit/fake-hummingbot';
import { writtenTables } from '../test/kit/fault-proxy';
import { note } from './progress';
import { round } from './stats';

export interface HummingbotResults {
  fills: number;
  /** Write requests (transactions and single writes) per fill, on average and at most. */
  writeRequestsPerFill: number;
  mostWriteRequestsPerFill: number;
  /** Items written per fill, by table. */
  itemsPerFill: Record<string, number>;
  readRequestsPerFill: number;
  fillsPerSecond: number;
  /** Write requests made when every fill was given again. */
  writeRequestsForReplays: number;
}

/**
 * A market maker's day in miniature, over three pairs: a position opened, grown, reduced in part, closed, and one
 * flipped through flat; `fills` fills in all.
 */
function fillsOf(count: number): FillInput[] {
  const pairs = ['BTC-USDT', 'ETH-USDT', 'SOL-USDT'];
  const start = Math.floor(Date.now() / 1000) - count * 60;
  const cycle: [FillInput['side'], number][] = [
    ['BUY', 2],
    ['BUY', 1],
    ['SELL', 1.5],
    ['SELL', 1.5],
    ['SELL', 1],
    ['BUY', 2],
  ];
  return Array.from({ length: count }, (_, i) => {
    const [side, amount] = cycle[Math.floor(i / pairs.length) % cycle.length];
    return {
      pair: pairs[i % pairs.length],
      side,
      amount,
      price: 100 + (i % 17) + 0.25,
      at: start + i * 60,
      fee: { flat: [{ token: 'USDT', amount: '0.0125' }] },
    };
  });
}

export async function measureHummingbot(options: { endpoint: string; stage: string; fills: number }): Promise<HummingbotResults> {
  // The bridge's writer writes through a client of the bench's own, which counts the requests per table.
  const { client } = localStore(options.endpoint, options.stage);
  const writer = localWriter(options.endpoint, { stage: options.stage, client });
  const dir = mkdtempSync(join(tmpdir(), 'bench-hummingbot-'));
  const writes: string[][] = [];
  let reads = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      const tables = writtenTables(operation, args.input as Record<string, unknown>);
      if (tables) writes.push(tables.map((table) => table.replace(/^trading-bot-api-[^-]+-/, '')));
      else reads += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchHummingbotMeter' },
  );
  const lines: string[] = [];
  const bridge = await HummingbotBridge.open({
    writer,
    namespace: 'hbot',
    config: {
      discover: true,
      feeRates: {},
      marksSeconds: 30,
      errorSeconds: 300,
      instances: { 'bench-pmm': { account: 'hummingbot-bench', currency: 'USDT', broker: 'Bench', environment: 'paper', controllers: {} } },
    },
    stateFile: join(dir, 'state.json'),
    report: (line) => lines.push(line),
  });
  try {
    const events = fillsOf(options.fills).map((input, i) => orderFilledEvent(input, i + 1));
    // The account's creation is the first message's, not a fill's.
    bridge.receive('hbot/bench-pmm/hb', JSON.stringify({ ts: Date.now() * 1000 }));
    await bridge.idle();
    writes.length = 0;
    reads = 0;
    note(`bots: the hummingbot bridge over ${options.fills} fills`);
    let most = 0;
    const started = performance.now();
    for (const event of events) {
      const before = writes.length;
      bridge.receive('hbot/bench-pmm/events', event.payload);
      await bridge.idle();
      most = Math.max(most, writes.length - before);
    }
    const seconds = (performance.now() - started) / 1000;
    const items: Record<string, number> = {};
    for (const table of writes.flat()) items[table] = (items[table] ?? 0) + 1;
    const result = {
      fills: options.fills,
      writeRequestsPerFill: round(writes.length / options.fills, 2),
      mostWriteRequestsPerFill: most,
      itemsPerFill: Object.fromEntries(Object.entries(items).map(([table, count]) => [table, round(count / options.fills, 2)])),
      readRequestsPerFill: round(reads / options.fills, 2),
      fillsPerSecond: round(options.fills / seconds, 0),
    };
    writes.length = 0;
    for (const event of events) bridge.receive('hbot/bench-pmm/events', event.payload);
    await bridge.idle();
    if (lines.some((line) => line.includes('refused') || line.includes('skipped')))
      throw new Error(`hummingbot bridge: ${lines.join('\n')}`);
    return { ...result, writeRequestsForReplays: writes.length };
  } finally {
    await bridge.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
