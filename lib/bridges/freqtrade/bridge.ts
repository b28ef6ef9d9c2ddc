/**
 * Mirrors one freqtrade bot into one account, a poll at a time: its profile, trades, balance and state.
 *
 * What was written is kept in memory, so an unchanged poll writes only the balance snapshot and the heartbeat. The
 * first poll (a new bridge, or one restarted) gives the writer every trade freqtrade has; the writer reads which are
 * stored already, in batches, and writes only what differs, so a restart writes nothing twice. After that, closed
 * trades are found by what left `/status` (looked up with `/trade/{id}`), checked against freqtrade's count of closed
 * trades; a count that does not add up (trades opened and closed between two polls or while the bridge was down,
 * freqtrade's database reset) reads the closed trades again in full.
 */
import type { TradeOutcome, Writer } from '../../../packages/writer/src';
import type { Trade } from '../../types';
import type { FreqtradeClient, FreqtradeTrade } from './api';
import { accountOf, botStateOf, snapshotOf, tradeIdOf, tradeOf } from './mapping';

export interface BridgeOptions {
  client: FreqtradeClient;
  writer: Writer;
  /** The account the bot is mirrored into. */
  account: string;
  /** A running bot whose loop has not run for this long is reported in error. Default 180 s. */
  stallSeconds?: number;
  now?: () => number;
}

/** What one poll wrote: trades by the writer's outcome, and the trades the writer refused (with why). */
export interface PollSummary {
  openTrades: number;
  written: Partial<Record<Exclude<TradeOutcome, 'unchanged'>, number>>;
  refused: string[];
  state: string;
}

export class FreqtradeBridge {
  private readonly stallSeconds: number;
  private readonly now: () => number;
  /** The account profile last written. */
  private profile?: string;
  /** Each trade as last written (or found stored), by its id here. */
  private readonly mirror = new Map<string, string>();
  /** The open trades of the last poll, by freqtrade's id. */
  private open = new Map<number, FreqtradeTrade>();
  /** freqtrade's count of closed trades when they were last all accounted for. */
  private closedTotal?: number;
  /** Trades that cannot be mirrored (a pair the API has no instrument for), reported once each. */
  private readonly unmirrorable = new Set<string>();

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

    const account = accountOf(this.account, config);
    const profile = JSON.stringify(account);
    if (this.profile !== profile) {
      await writer.upsertAccount(account);
      this.profile = profile;
    }

    // Closed first, so that a trade that closed while its open form was read counts as closed.
    const summary: PollSummary = { openTrades: status.length, written: {}, refused: [], state: '' };
    const byId = new Map<string, Trade>();
    for (const source of [...status, ...(await this.closedTrades(status))]) {
      let trade: Trade | undefined;
      try {
        trade = tradeOf(this.account, source);
      } catch (error) {
        // One odd trade must not stop the bot's others from being mirrored.
        const id = tradeIdOf(source);
        if (!this.unmirrorable.has(id)) summary.refused.push(`trade ${id}: ${(error as Error).message}; not mirrored`);
        this.unmirrorable.add(id);
        continue;
      }
      if (trade && !(byId.get(trade.id)?.status === 'closed')) byId.set(trade.id, trade);
    }
    const changed = [...byId.values()].filter((trade) => this.mirror.get(trade.id) !== JSON.stringify(trade));
    if (changed.length) {
      for (const result of await writer.recordTrades(this.account, changed)) {
        const trade = changed[result.index];
        if ('error' in result) {
          if (result.error.code === 'UNAVAILABLE') throw result.error;
          summary.refused.push(`trade ${trade.id}: ${result.error.message}`);
        } else if (result.outcome !== 'unchanged') {
          summary.written[result.outcome] = (summary.written[result.outcome] ?? 0) + 1;
        }
        // A refused trade is not given again until freqtrade says something else of it.
        this.mirror.set(trade.id, JSON.stringify(trade));
      }
    }

    await writer.recordBalance(this.account, snapshotOf(balances, status, time));
    const bot = botStateOf(config, health, polledAt, this.stallSeconds);
    await writer.heartbeat(this.account, { ...bot, time });
    summary.state = bot.message ? `${bot.state} (${bot.message})` : bot.state;
    this.open = new Map(status.map((trade) => [trade.trade_id, trade]));
    return summary;
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
