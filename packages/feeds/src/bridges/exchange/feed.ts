/**
 * The exchange feed: one exchange account mirrored into an account of the API (mirror.ts says what it becomes), a sync
 * on each poll of the bridges' runner (../run.ts) or of a scheduled run (scheduled.ts), what it has said kept across
 * polls so each thing is said once. Every state a sync resumes from is in DynamoDB (the writer's checkpoints), so the
 * command's loop (`npm run bridge -- exchange`) and a scheduled function poll it alike. One sync:
 *
 *  1. The key's permissions, before any read: a key that may trade, withdraw or transfer is refused, and nothing is
 *     read or written (ExchangeFeedError `permissions`, naming what to turn off).
 *  2. The exchange's spot markets (read again hourly) and the assets held; the account (its currency the quote).
 *  3. Each market followed, from its checkpoint: a page of fills at a time by the exchange's id cursor, until a page
 *     is short; each page written with its checkpoint (the writer's advanceFeed), so a sync stopped anywhere resumes
 *     with nothing lost or doubled.
 *  4. The last prices (of every market followed, and of every asset held): the open positions marked, the rates kept
 *     for the reporting currency (the writer's recordRates), the balance snapshot, and the holdings as valued (with the
 *     prices, in the checkpoint `<exchange>:holdings`).
 *  5. Deposits and withdrawals since the transfers' checkpoint, in the exchange's windows, kept once each with it.
 *  6. A heartbeat of the feed.
 *  7. With `reconcileWith`, the bot's account reconciled against this one (the writer's reconcile): each difference new
 *     to the check said once, and returned for an alert.
 */
import type { Difference, Reconciliation, TradeOutcome, Writer } from '@trading-bot-api/writer';
import type { PollSummary } from '../freqtrade/bridge';
import { ExchangeClient } from './client';
import type { FeedAccount } from './config';
import { ExchangeFeedError } from './errors';
import {
  checkpointOfMarket,
  followedMarkets,
  type MarketState,
  markedState,
  newMarketState,
  nextTransferCursor,
  stepsOfFills,
  transferRecord,
  type Valuation,
  valuationOf,
  windowsOf,
} from './mirror';
import type { ExchangeTransfer } from './profile';

/** The holdings checkpoint's state: what the exchange account held when last synced, valued, with the prices read. */
interface HoldingsState extends Valuation {
  exchange: string;
  time: string;
  quote: string;
  reconcileWith: string | null;
  /** Last prices read, by the exchange's market id (`BTCUSDT`), in the market's quote. */
  prices: Record<string, string>;
}

/** What one sync did, for the runner (run.ts) and the bench. */
export interface SyncSummary extends PollSummary {
  fills: number;
  transfers: number;
  markets: number;
  /** The weight spent, by pool. */
  weight: Record<string, number>;
  /** The reconciliation of the bot's account, when the feed has one (`reconcileWith`): the differences new to it. */
  reconciliation?: Pick<Reconciliation['entry'], 'accountId' | 'exchangeAccountId' | 'checkedAt' | 'matched'> & {
    differences: number;
    fresh: Difference[];
  };
}

type Outcomes = Partial<Record<TradeOutcome, number>>;

function add(into: Outcomes, from: Outcomes): void {
  for (const [outcome, count] of Object.entries(from) as [TradeOutcome, number][]) into[outcome] = (into[outcome] ?? 0) + count;
}

export class ExchangeFeed {
  private readonly said = new Set<string>();
  readonly client: ExchangeClient;

  constructor(
    private readonly feed: FeedAccount,
    private readonly writer: Writer,
    private readonly options: {
      report: (line: string) => void;
      signal?: AbortSignal;
      /** Told the differences a reconciliation found first (the command sends them to the alert channels). */
      alert?: (found: NonNullable<SyncSummary['reconciliation']>) => Promise<void>;
    },
  ) {
    this.client = new ExchangeClient({ ...feed, report: (line) => options.report(`${feed.config.account}: ${line}`) });
  }

  get account(): string {
    return this.feed.config.account;
  }

  /** What the log names it by: the exchange and where it is reached, never the key. */
  get source(): string {
    return `${this.feed.profile.name} spot account${this.feed.url ? ` at ${this.feed.url}` : ''}`;
  }

  async poll(): Promise<SyncSummary> {
    const summary = await this.sync();
    if (summary.reconciliation?.fresh.length && this.options.alert) await this.options.alert(summary.reconciliation);
    return summary;
  }

  /** Syncs the account once; see the module's comment. */
  private async sync(): Promise<SyncSummary> {
    const { client, writer, said, options } = this;
    const { config } = this.feed;
    const { profile } = client;
    const now = Date.now;
    const refused: string[] = [];
    const once = (key: string, line: string) => {
      if (said.has(key)) return;
      said.add(key);
      refused.push(line);
    };
    const spentBefore = new Map(client.spent);
    const id = config.account;

    const excess = await client.excessPermissions();
    if (excess.length)
      throw new ExchangeFeedError(
        'permissions',
        `the key given for ${id} may do more than read: turn off ${excess.join(', ')} in ${profile.name}'s API management ` +
          `(keep only reading), or make a read-only key; nothing was read or written`,
      );
    const markets = await client.spotMarkets(now());
    const holdings = await client.holdings();
    await writer.upsertAccount({ id, name: config.name, currency: config.quote, broker: profile.name, environment: config.environment });

    const checkpoints = new Map((await writer.readCheckpoints(id, `${profile.id}:`)).map((checkpoint) => [checkpoint.name, checkpoint]));
    const known = [...checkpoints.values()]
      .filter((checkpoint) => checkpoint.name.startsWith(`${profile.id}:market:`))
      .map((checkpoint) => (checkpoint.state as MarketState).market);
    const instruments = config.reconcileWith ? await writer.instrumentsOf(config.reconcileWith) : [];
    const followed = followedMarkets({ markets, quote: config.quote, known, instruments, holdings, asked: config.symbols });
    for (const { symbol, why } of followed.skipped) once(`skip ${symbol}`, `${symbol} is not mirrored: ${why}`);

    const outcomes: Outcomes = {};
    let fills = 0;
    const states: MarketState[] = [];
    for (const market of followed.markets) {
      if (options.signal?.aborted) break;
      const name = checkpointOfMarket(profile.id, market);
      const checkpoint = checkpoints.get(name);
      let state = (checkpoint?.state as MarketState | null) ?? newMarketState(market, profile.firstCursor);
      let version = checkpoint?.version ?? 0;
      for (let full = true; full && !options.signal?.aborted; ) {
        const page = await client.fills(market, state.next);
        full = page.full;
        if (!page.fills.length) break;
        const applied = stepsOfFills(profile.id, id, state, page.fills);
        const written = await writer.advanceFeed(id, name, version, applied.steps);
        add(outcomes, written.outcomes);
        version = written.version;
        state = applied.state;
        fills += page.fills.length;
      }
      if (state.unmatched.fills)
        once(
          `unmatched ${market.symbol} ${state.unmatched.fills}`,
          `${market.symbol}: ${state.unmatched.units} ${market.base} sold in ${state.unmatched.fills} fills beyond what the feed saw bought here ` +
            `(deposited, or bought in another market): not mirrored as trades, their cost being unknown`,
        );
      for (const token of state.unpricedFees)
        once(
          `fee ${market.symbol} ${token}`,
          `${market.symbol}: fees paid in ${token} are kept as charged and left out of the realized P&L`,
        );
      states.push(state);
      checkpoints.set(name, { name, state, version, updatedAt: null });
    }
    if (options.signal?.aborted) return summaryOf();

    // Prices: every asset held with a market in the account's currency, and every open position's market.
    const wanted = new Set([
      ...holdings.flatMap(({ asset }) => markets.get(`${asset}/${config.quote}`)?.id ?? []),
      // Every market followed, for the reporting currency's rates (one call whatever their number).
      ...states.map((state) => state.market.id),
    ]);
    const prices = await client.prices([...wanted].sort());
    for (const state of states) {
      const price = prices.get(state.market.id);
      const marked = price === undefined ? undefined : markedState(id, state, price);
      if (!marked) continue;
      const name = checkpointOfMarket(profile.id, state.market);
      const written = await writer.advanceFeed(id, name, checkpoints.get(name)!.version, [{ trades: [marked.trade], state: marked.state }]);
      add(outcomes, written.outcomes);
      states[states.indexOf(state)] = marked.state;
    }
    const valuation = valuationOf({
      quote: config.quote,
      holdings,
      markets,
      prices,
      positions: states.flatMap((state) => (state.position ? [{ market: state.market, position: state.position }] : [])),
    });
    for (const asset of valuation.unvalued)
      once(`unvalued ${asset}`, `${asset} is held and has no market in ${config.quote}: left out of the NAV`);
    const time = new Date(now()).toISOString();
    // The rates before the balance: a fleet answer whose balances moved reads the rates read with them.
    const byId = new Map([...markets.values()].map((market) => [market.id, market]));
    await writer.recordRates(id, {
      exchange: profile.id,
      time,
      prices: [...prices].flatMap(([marketId, price]) => {
        const market = byId.get(marketId);
        return market ? [{ base: market.base, quote: market.quote, price }] : [];
      }),
    });
    await writer.recordBalance(id, {
      balance: valuation.balance,
      unrealizedPL: valuation.unrealizedPL,
      nav: valuation.nav,
      marginUsed: '0',
      marginAvailable: valuation.nav,
      time,
    });
    const holdingsName = `${profile.id}:holdings`;
    const holdingsState: HoldingsState = {
      exchange: profile.id,
      time,
      quote: config.quote,
      reconcileWith: config.reconcileWith ?? null,
      prices: Object.fromEntries(prices),
      ...valuation,
    };
    await writer.advanceFeed(id, holdingsName, checkpoints.get(holdingsName)?.version ?? 0, [{ trades: [], state: holdingsState }]);

    const transfers = await syncTransfers();
    await writer.heartbeat(id, { state: 'running', strategy: `exchange feed: ${profile.name} spot`, message: null, time });
    let reconciliation: SyncSummary['reconciliation'];
    if (config.reconcileWith) {
      const { entry, fresh } = await writer.reconcile(config.reconcileWith, id);
      for (const difference of fresh) refused.push(`reconciliation of ${entry.accountId}: ${difference.kind}: ${difference.detail}`);
      const { accountId, exchangeAccountId, checkedAt, matched, differenceCount } = entry;
      reconciliation = { accountId, exchangeAccountId, checkedAt, matched, differences: differenceCount, fresh };
    }
    return { ...summaryOf(transfers), ...(reconciliation ? { reconciliation } : {}) };

    /** Deposits and withdrawals since the transfers' checkpoint (step 5). */
    async function syncTransfers(): Promise<number> {
      const name = `${profile.id}:transfers`;
      const checkpoint = checkpoints.get(name);
      const since = Date.parse(config.since);
      const from = (checkpoint?.state as Record<'deposit' | 'withdrawal', number> | null) ?? { deposit: since, withdrawal: since };
      const at = now();
      const next = { ...from };
      const done: ExchangeTransfer[] = [];
      for (const kind of ['deposit', 'withdrawal'] as const) {
        const listed: ExchangeTransfer[] = [];
        for (const window of windowsOf(from[kind], at, profile.transferWindowMs))
          listed.push(...(await client.transfers(kind, window.from, window.to)));
        next[kind] = nextTransferCursor(from[kind], at, listed);
        for (const transfer of listed) {
          if (transfer.state !== 'done') continue;
          if (!/^[A-Z0-9]{2,12}$/.test(transfer.asset)) {
            once(
              `transfer asset ${transfer.asset}`,
              `transfers of ${JSON.stringify(transfer.asset)} are not kept: not a currency code here`,
            );
            continue;
          }
          done.push(transfer);
        }
      }
      const records = [];
      for (const transfer of done) {
        const market = markets.get(`${transfer.asset}/${config.quote}`);
        const rate = transfer.asset === config.quote ? '1' : market ? await client.priceAt(market.id, transfer.time) : undefined;
        if (rate === undefined)
          once(`transfer rate ${transfer.asset}`, `transfers of ${transfer.asset} have no price in ${config.quote}: kept unvalued`);
        records.push(transferRecord(transfer, rate));
      }
      const written = await writer.recordTransfers(id, records, { name, state: next, version: checkpoint?.version ?? 0 });
      return written.recorded;
    }

    function summaryOf(transfers = 0): SyncSummary {
      const weight: Record<string, number> = {};
      for (const [pool, spent] of client.spent) {
        const used = spent - (spentBefore.get(pool) ?? 0);
        if (used) weight[pool] = used;
      }
      const { unchanged: _, ...written } = outcomes;
      return {
        openTrades: states.filter((state) => state.position).length,
        written,
        refused,
        state: 'running',
        fills,
        transfers,
        markets: states.length,
        weight,
      };
    }
  }
}
