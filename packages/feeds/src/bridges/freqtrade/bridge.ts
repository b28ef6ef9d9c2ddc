/**
 * Mirrors one freqtrade bot into one account, a poll at a time: its profile, trades, balance and state.
 *
 * What was written is kept in memory, so an unchanged poll writes only the balance snapshot and the heartbeat. The
 * first poll (a new bridge, or one restarted) gives the writer every trade freqtrade has, as freqtrade's own record
 * (`correct`): the writer reads which are stored already, in batches, and writes only what differs, so a restart
 * writes nothing twice, and a stored trade that freqtrade now reports otherwise (an earlier bridge's float noise,
 * freqtrade reloading a trade from the exchange) is corrected. After that, closed trades are found by what left
 * `/status` (looked up with `/trade/{id}`), checked against freqtrade's count of closed trades; a count that does not
 * add up (trades opened and closed between two polls or while the bridge was down, freqtrade's database reset) reads
 * the closed trades again in full.
 *
 * After every poll the account's open trades are the bot's: a stored open trade freqtrade no longer has (its
 * database was reset, the trade deleted) is marked gone, with the reason, once. Times come from the bot's clock:
 * one ahead of this machine's by more than the writer accepts is reported once, and the trades it dates in the
 * future wait until they are not; heartbeats and snapshots carry this machine's clock.
 */
import { MAX_CLOCK_AHEAD_MS, NO_CURRENCY, type Trade, type TradeOutcome, type Writer, WriterError } from '@trading-bot-api/writer';
import type { FreqtradeClient, FreqtradeError, FreqtradeTrade } from './api';
import { clockSkewSayer } from '../numbers';
import { accountOf, botStateOf, snapshotOf, tradeIdOf, tradeOf } from './mapping';

export interface BridgeOptions {
  client: FreqtradeClient;
  writer: Writer;
  /** The account the bot is mirrored into. */
  account: string;
  /** A running bot whose loop has not run for this long is reported in error. Default 180 s. */
  stallSeconds?: number;
  /** The account's display name, over the bot's `bot_name` (mapping.ts's accountOf). */
  name?: string;
  now?: () => number;
}

/**
 * What one poll wrote: trades by the writer's outcome (`gone`: stored open trades the bot no longer has), the trades
 * the writer refused and other things to say once (with why), and the bot's state.
 */
export interface PollSummary {
  openTrades: number;
  written: Partial<Record<Exclude<TradeOutcome, 'unchanged'> | 'gone', number>>;
  refused: string[];
  state: string;
}

export class FreqtradeBridge {
  private readonly stallSeconds: number;
  private readonly now: () => number;
  /** The account profile last written, and its currency (freqtrade's stake currency). */
  private profile?: string;
  private currency?: string;
  /** Each trade as last written (or found stored), by its id here. */
  private readonly mirror = new Map<string, string>();
  /** The open trades of the last poll, by freqtrade's id. */
  private open = new Map<number, FreqtradeTrade>();
  /** freqtrade's count of closed trades when they were last all accounted for. */
  private closedTotal?: number;
  /** Trades that cannot be mirrored (a pair the API has no instrument for), reported once each. */
  private readonly unmirrorable = new Set<string>();
  /** Trades dated ahead of this machine's clock, reported once each; given to the writer once they are not. */
  private readonly early = new Set<string>();
  /** The bot's clock against this machine's, said when it changes (the `Date` header has whole seconds). */
  private readonly skew = clockSkewSayer(
    'freqtrade',
    'its Date header',
    `heartbeats and balances carry this machine's time; trades it dates more than ${MAX_CLOCK_AHEAD_MS / 60_000} min ahead wait until they are not`,
  );

  constructor(private readonly options: BridgeOptions) {
    this.stallSeconds = options.stallSeconds ?? 180;
    this.now = options.now ?? Date.now;
  }

  get account(): string {
    return this.options.account;
  }

  /** One poll; throws FreqtradeError when freqtrade does not answer, WriterError when the database does not. */
  async poll(): Promise<PollSummary> {
    const { client, writer } = this.options;
    const [config, health, status, balances] = await Promise.all([client.showConfig(), client.health(), client.status(), client.balance()]);
    const polledAt = this.now();
    const time = new Date(polledAt).toISOString();

    const account = accountOf(this.account, config, this.options.name);
    this.currency = account.currency;
    const profile = JSON.stringify(account);
    if (this.profile !== profile) {
      await writer.upsertAccount(account);
      this.profile = profile;
    }

    // Closed first, so that a trade that closed while its open form was read counts as closed.
    const summary: PollSummary = { openTrades: status.length, written: {}, refused: [], state: '' };
    const byId = new Map<string, Trade>();
    // (Trades freqtrade has whose entry has not filled are no trades yet: not mirrored, and not ghosts either.)
    for (const source of [...status, ...(await this.closedTrades(status))]) {
      let trade: Trade | undefined;
      try {
        trade = tradeOf(this.account, source, account.currency);
      } catch (error) {
        // One odd trade must not stop the bot's others from being mirrored.
        const id = tradeIdOf(source);
        if (!this.unmirrorable.has(id)) summary.refused.push(`trade ${id}: ${(error as Error).message}; not mirrored`);
        this.unmirrorable.add(id);
        continue;
      }
      if (trade && !(byId.get(trade.id)?.status === 'closed')) byId.set(trade.id, trade);
    }
    const skew = this.skew(client.clockAheadMs);
    if (skew) summary.refused.push(skew);
    // A trade dated further ahead of this machine's clock than the writer accepts waits for the clock to catch up.
    const latest = new Date(polledAt + MAX_CLOCK_AHEAD_MS).toISOString();
    const due = [...byId.values()].filter((trade) => {
      const ahead = trade.openTime > latest || (trade.closeTime !== null && trade.closeTime > latest);
      if (ahead && !this.early.has(trade.id))
        summary.refused.push(
          `trade ${trade.id}: dated ${trade.closeTime ?? trade.openTime}, ahead of this machine's clock; waiting until it is not`,
        );
      if (ahead) this.early.add(trade.id);
      return !ahead;
    });
    const changed = due.filter((trade) => this.mirror.get(trade.id) !== JSON.stringify(trade));
    if (changed.length) {
      for (const result of await writer.recordTrades(this.account, changed, { correct: true })) {
        const trade = changed[result.index];
        if ('error' in result) {
          if (result.error.code === 'UNAVAILABLE') throw result.error;
          summary.refused.push(`trade ${trade.id}: ${result.error.message}`);
        } else this.count(summary, result.outcome);
        // A refused trade is not given again until freqtrade says something else of it.
        this.mirror.set(trade.id, JSON.stringify(trade));
      }
    }
    await this.endGhosts(new Set([...byId.keys(), ...this.early]), summary, time);

    await writer.recordBalance(this.account, snapshotOf(balances, status, time));
    const bot = botStateOf(config, health, polledAt, this.stallSeconds);
    await writer.heartbeat(this.account, { ...bot, time });
    summary.state = bot.message ? `${bot.state} (${bot.message})` : bot.state;
    this.open = new Map(status.map((trade) => [trade.trade_id, trade]));
    return summary;
  }

  /**
   * Reports a poll that could not reach the bot, or that the bot refused, as the bot's state: `error`, with the cause
   * (`cannot reach freqtrade at http://…: ECONNREFUSED`), so the dashboard and the alerts say why. An account not
   * written yet (a first start that never reached the bot) is created to carry it: named by its id, broker
   * `freqtrade`, `live` (an unknown bot is taken as trading real money), in NO_CURRENCY (`XXX`) until the bot answers
   * and its profile replaces all of these.
   */
  async reportFailure(error: FreqtradeError): Promise<void> {
    const { writer } = this.options;
    const beat = { state: 'error' as const, message: error.message, time: new Date(this.now()).toISOString() };
    try {
      await writer.heartbeat(this.account, beat);
    } catch (caught) {
      if (!(caught instanceof WriterError && caught.code === 'ACCOUNT_NOT_FOUND')) throw caught;
      await writer.upsertAccount({ id: this.account, name: this.account, currency: NO_CURRENCY, broker: 'freqtrade', environment: 'live' });
      await writer.heartbeat(this.account, beat);
    }
    // Written again at the next poll that reaches the bot.
    this.profile = undefined;
  }

  private count(summary: PollSummary, outcome: TradeOutcome | 'gone'): void {
    if (outcome !== 'unchanged') summary.written[outcome] = (summary.written[outcome] ?? 0) + 1;
  }

  /**
   * Marks gone every stored open trade the bot no longer has: neither among `present` (the trades of this poll,
   * open or just closed) nor found by `/trade/{id}` with the same open time. The writer answers `gone` once.
   */
  private async endGhosts(present: ReadonlySet<string>, summary: PollSummary, time: string): Promise<void> {
    const { client, writer } = this.options;
    const currency = this.currency!;
    for (const stored of await writer.openTrades(this.account)) {
      if (present.has(stored.id)) continue;
      const id = /^ft-(\d+)-(\d+)$/.exec(stored.id);
      let reason = 'gone from the bot: not a trade of this freqtrade bot';
      if (id) {
        const now = await client.trade(Number(id[1]));
        if (now && now.open_timestamp === Number(id[2])) {
          // Still there after all (a close this poll missed): mirror it as it is.
          const trade = tradeOf(this.account, now, currency);
          if (trade && trade.status !== 'open') {
            for (const result of await writer.recordTrades(this.account, [trade], { correct: true }))
              if ('outcome' in result) this.count(summary, result.outcome);
            continue;
          }
          if (trade) continue;
        }
        reason = now
          ? `gone from the bot: freqtrade's trade ${id[1]} is now another trade, opened ${new Date(now.open_timestamp).toISOString()} (its database was reset)`
          : `gone from the bot: freqtrade no longer has trade ${id[1]} (its database was reset, or the trade was deleted)`;
      }
      const outcome = await writer.markGone(this.account, stored.id, { reason, time: time < stored.openTime ? stored.openTime : time });
      this.count(summary, outcome);
      if (outcome === 'gone') summary.refused.push(`trade ${stored.id}: ${reason}`);
    }
  }

  /** The closed trades to give the writer this poll (see the module's comment). */
  private async closedTrades(status: readonly FreqtradeTrade[]): Promise<FreqtradeTrade[]> {
    const { client } = this.options;
    if (this.closedTotal === undefined) return this.allClosed();
    const stillOpen = new Set(status.map((trade) => trade.trade_id));
    const found: FreqtradeTrade[] = [];
    for (const left of this.open.values()) {
      if (stillOpen.has(left.trade_id)) continue;
      const now = await client.trade(left.trade_id);
      // Not found: deleted (freqtrade deletes a trade whose entry never filled), or its database was reset.
      if (now && !now.is_open && now.open_timestamp === left.open_timestamp) found.push(now);
    }
    const { total_trades } = await client.trades(0, 1);
    if (total_trades === this.closedTotal + found.length) {
      this.closedTotal = total_trades;
      return found;
    }
    return this.allClosed();
  }

  private async allClosed(): Promise<FreqtradeTrade[]> {
    const all: FreqtradeTrade[] = [];
    let total = 0;
    for (let offset = 0; ; ) {
      const page = await this.options.client.trades(offset);
      total = page.total_trades;
      all.push(...page.trades);
      offset += page.trades.length;
      if (!page.trades.length || offset >= page.total_trades) break;
    }
    this.closedTotal = total;
    return all;
  }
}
