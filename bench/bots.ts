/**
 * What connecting a bot costs: `npm run ingest` of a history written as event lines (lines per second, against the
 * importer's rows per second on the same trades), and the freqtrade bridge's polls against the tests' fake freqtrade
 * (items written per unchanged poll, by table, and a poll's time).
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { freqtradeClient } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import { FreqtradeBridge } from '@trading-bot-api/feeds/bridges/freqtrade/bridge';
import type { Trade } from '@trading-bot-api/core/types';
import { FakeFreqtrade } from '../test/kit/fake-freqtrade';
import { writtenTables } from '../test/kit/fault-proxy';
import { generateDataset } from '../scripts/demo/dataset';
import { localWriter } from '../scripts/support/load-data';
import { localStore } from '../scripts/local-stack/local-db';
import { startCommand } from './child-rpc';
import { note } from './progress';
import { round } from './stats';

export interface IngestResults {
  lines: number;
  trades: number;
  seconds: number;
  linesPerSecond: number;
  summary: string;
}

export interface BridgeResults {
  openTrades: number;
  closedTrades: number;
  polls: number;
  /** Items written per unchanged poll, by table (a transaction's items; the balance's equity points are ledger). */
  itemsPerUnchangedPoll: Record<string, number>;
  /** Of those, items that are not the heartbeat (accounts) or the balance (balances, ledger). */
  otherItemsPerUnchangedPoll: number;
  firstPollMs: number;
  unchangedPollMs: number;
}

/** A history as event lines: each trade's open, then its close (a replayed log), into a new account. */
export async function measureIngest(options: { endpoint: string; stage: string; rows: number; workDir: string }): Promise<IngestResults> {
  const file = join(options.workDir, 'history-events.jsonl');
  const account = 'ingested';
  const dataset = generateDataset({ tradeCounts: [options.rows], accountId: () => account, seed: 4242 });
  let lines = 0;
  await new Promise<void>((resolve, reject) => {
    const out = createWriteStream(file);
    out.on('error', reject);
    const write = (value: object) => {
      out.write(`${JSON.stringify(value)}\n`);
      lines += 1;
    };
    write({ type: 'account', account, name: account, currency: 'USD', broker: 'Bench', environment: 'paper' });
    for (const trade of dataset.trades as Trade[]) {
      write({
        type: 'open',
        account,
        id: trade.id,
        instrument: trade.instrument,
        side: trade.side,
        units: trade.units,
        openPrice: trade.openPrice,
        openTime: trade.openTime,
      });
      if (trade.status === 'closed')
        write({
          type: 'close',
          account,
          id: trade.id,
          closePrice: trade.closePrice,
          closeTime: trade.closeTime,
          realizedPL: trade.realizedPL,
        });
    }
    out.end(resolve);
  });
  note(`bots: npm run ingest of ${lines.toLocaleString('en-US')} event lines (${options.rows.toLocaleString('en-US')} trades)`);
  const started = performance.now();
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = startCommand('ingest', ['--no-checkpoint'], options, file);
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`ingest failed (exit ${code})\n${out}`))));
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    lines,
    trades: options.rows,
    seconds: round(seconds, 1),
    linesPerSecond: round(lines / seconds, 0),
    summary: stdout.trim().split('\n').pop() ?? '',
  };
}

/** A freqtrade bot with `open` open and `closed` closed trades, mirrored, then polled unchanged `polls` times. */
export async function measureBridge(options: {
  endpoint: string;
  stage: string;
  open: number;
  closed: number;
  polls: number;
}): Promise<BridgeResults> {
  const bot = await new FakeFreqtrade().start();
  // The bridge's writer writes through a client of the bench's own, which counts the items written per table.
  const { client } = localStore(options.endpoint, options.stage);
  const writer = localWriter(options.endpoint, { stage: options.stage, client });
  const written: Record<string, number> = {};
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      for (const table of writtenTables(operation, args.input as Record<string, unknown>) ?? []) {
        const name = table.replace(/^trading-bot-api-[^-]+-/, '');
        written[name] = (written[name] ?? 0) + 1;
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchBridgeMeter' },
  );
  try {
    const start = Date.now() - 30 * 86_400_000;
    for (let i = 0; i < options.open + options.closed; i++) {
      const id = bot.open({
        pair: ['BTC/USDT', 'ETH/USDT', 'SOL/USDT:USDT'][i % 3],
        short: i % 4 === 0,
        amount: 0.01 + i / 1000,
        rate: 1000 + i,
        at: start + i * 60_000,
      });
      if (i >= options.open) bot.close(id, { rate: 1001 + i, at: start + i * 60_000 + 30_000, profit: (i % 7) - 3 + 0.125 });
    }
    note(`bots: the freqtrade bridge over ${options.open} open and ${options.closed} closed trades, ${options.polls} unchanged polls`);
    const bridge = new FreqtradeBridge({ client: freqtradeClient(bot), writer, account: 'bridged' });
    let started = performance.now();
    await bridge.poll();
    const firstPollMs = performance.now() - started;
    for (const key of Object.keys(written)) delete written[key];
    started = performance.now();
    for (let i = 0; i < options.polls; i++) await bridge.poll();
    const unchangedPollMs = (performance.now() - started) / options.polls;
    const perPoll = Object.fromEntries(Object.entries(written).map(([table, items]) => [table, round(items / options.polls, 2)]));
    // The heartbeat writes the account item; the balance its item, the fleet's stamp of its version, and its hour's
    // and day's equity points (ledger).
    const expected: Record<string, number> = { accounts: 1, balances: 1, fleet: 1, ledger: 2 };
    const other = Object.entries(perPoll).reduce((sum, [table, items]) => sum + Math.max(0, items - (expected[table] ?? 0)), 0);
    return {
      openTrades: options.open,
      closedTrades: options.closed,
      polls: options.polls,
      itemsPerUnchangedPoll: perPoll,
      otherItemsPerUnchangedPoll: round(other, 2),
      firstPollMs: round(firstPollMs, 0),
      unchangedPollMs: round(unchangedPollMs, 1),
    };
  } finally {
    client.destroy();
    await bot.stop();
  }
}
