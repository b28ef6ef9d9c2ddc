/**
 * The exchange feed mirroring a Binance account (the tests' fake Binance, test/kit/fake-binance.ts) into a new
 * account: fills mirrored per second on a first sync that backfills one market, the request weight it spent per
 * 1,000 fills against Binance's 6,000 a minute (and the feed's share of it), the write transactions per 1,000 fills,
 * and what a sync that finds nothing new costs: its weight, and that it writes no trade.
 */
import { binance } from '@trading-bot-api/feeds/bridges/exchange/binance';
import { ExchangeFeed } from '@trading-bot-api/feeds/bridges/exchange/feed';
import { DEFAULT_SHARE } from '@trading-bot-api/feeds/bridges/exchange/limiter';
import { localStore } from '../scripts/local-stack/local-db';
import { localWriter } from '../scripts/support/load-data';
import { FakeBinance, roundTripFills } from '../test/kit/fake-binance';
import { writtenTables } from '../test/kit/fault-proxy';
import { note } from './progress';
import { round } from './stats';

/** Binance's request weight a minute, per IP (exchangeInfo's REQUEST_WEIGHT). */
const BINANCE_WEIGHT_LIMIT = binance.pools.ip.limit;

export interface ExchangeResults {
  fills: number;
  trades: number;
  seconds: number;
  fillsPerSecond: number;
  /** The IP's request weight the first sync spent, per 1,000 fills mirrored (its fixed calls included). */
  weightPer1000Fills: number;
  /** The weight of the first sync, by pool, and of one that found nothing new. */
  weight: Record<string, number>;
  idleSyncWeight: Record<string, number>;
  /** Fills a minute the feed's share of the limit allows (weight alone), against those it mirrored a minute. */
  fillsPerMinuteAtShare: number;
  fillsPerMinuteMeasured: number;
  transactionsPer1000Fills: number;
  /** Trade items written by a sync that found nothing new (must be 0). */
  tradeItemsWrittenWhenIdle: number;
  limit: number;
  share: number;
}

export async function measureExchangeFeed(options: { endpoint: string; stage: string; fills: number }): Promise<ExchangeResults> {
  const { client } = localStore(options.endpoint, options.stage);
  const writes: string[][] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const tables = writtenTables(String(context.commandName ?? '').replace(/Command$/, ''), args.input as Record<string, unknown>);
      if (tables) writes.push(tables.map((table) => table.replace(/^trading-bot-api-[^-]+-/, '')));
      return next(args);
    },
    { step: 'initialize', name: 'benchExchangeMeter' },
  );
  const writer = localWriter(options.endpoint, { stage: options.stage, client });
  const fake = await new FakeBinance().start();
  try {
    const [key, secret] = ['bench-key', 'bench-secret'];
    fake.addAccount(key, secret);
    fake.setBalance(key, 'USDT', '25000');
    const { fills, trips } = roundTripFills(options.fills, Date.now() - 5 * 86_400_000);
    fake.addFills(key, 'BTCUSDT', fills);
    fake.prices.set('BTCUSDT', '60100.5');
    const lines: string[] = [];
    const feed = new ExchangeFeed(
      {
        profile: binance,
        config: {
          account: 'exchange-bench',
          name: 'Exchange bench',
          quote: 'USDT',
          symbols: ['BTC/USDT'],
          since: new Date(Date.now() - 86_400_000).toISOString(),
          environment: 'paper',
        },
        apiKey: key,
        secret,
        url: fake.url,
        intervalSeconds: 60,
      },
      writer,
      { report: (line) => lines.push(line) },
    );
    note(`bots: the exchange feed over ${options.fills} fills of one market`);
    const started = performance.now();
    const first = await feed.poll();
    const seconds = (performance.now() - started) / 1000;
    if (first.fills !== fills.length || (first.written.created ?? 0) !== trips.length)
      throw new Error(
        `exchange feed: mirrored ${first.fills} fills into ${first.written.created} trades, not ${fills.length} into ${trips.length}`,
      );
    const transactions = writes.length;
    writes.length = 0;
    const idle = await feed.poll();
    const tradeItems = writes.flat().filter((table) => table === 'trades').length;
    if (lines.length) throw new Error(`exchange feed: ${lines.join('\n')}`);
    const weightPer1000 = ((first.weight.ip ?? 0) / fills.length) * 1000;
    return {
      fills: fills.length,
      trades: trips.length,
      seconds: round(seconds, 2),
      fillsPerSecond: round(fills.length / seconds, 0),
      weightPer1000Fills: round(weightPer1000, 1),
      weight: first.weight,
      idleSyncWeight: idle.weight,
      fillsPerMinuteAtShare: round(((BINANCE_WEIGHT_LIMIT * DEFAULT_SHARE) / weightPer1000) * 1000, 0),
      fillsPerMinuteMeasured: round((fills.length / seconds) * 60, 0),
      transactionsPer1000Fills: round((transactions / fills.length) * 1000, 1),
      tradeItemsWrittenWhenIdle: tradeItems,
      limit: BINANCE_WEIGHT_LIMIT,
      share: DEFAULT_SHARE,
    };
  } finally {
    await fake.close();
    writer.close();
  }
}
