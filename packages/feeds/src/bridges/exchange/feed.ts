/**
 * The exchange feed as the bridges' runner (../run.ts) polls it: one exchange account, synced on each poll
 * (sync.ts), what it has said kept across polls so each thing is said once.
 */
import type { Writer } from '@trading-bot-api/writer';
import { ExchangeClient } from './client';
import type { FeedAccount } from './config';
import { type SyncSummary, syncExchangeAccount } from './sync';

export class ExchangeFeed {
  private readonly said = new Set<string>();
  private readonly signal?: AbortSignal;
  private readonly alert?: (found: NonNullable<SyncSummary['reconciliation']>) => Promise<void>;
  readonly client: ExchangeClient;

  constructor(
    private readonly feed: FeedAccount,
    private readonly writer: Writer,
    options: {
      report: (line: string) => void;
      share?: number;
      signal?: AbortSignal;
      /** Told the differences a reconciliation found first (the command sends them to the alert channels). */
      alert?: (found: NonNullable<SyncSummary['reconciliation']>) => Promise<void>;
    },
  ) {
    this.client = new ExchangeClient({
      profile: feed.profile,
      apiKey: feed.apiKey,
      secret: feed.secret,
      url: feed.url,
      share: options.share,
      report: (line) => options.report(`${feed.config.account}: ${line}`),
    });
    this.signal = options.signal;
    this.alert = options.alert;
  }

  get account(): string {
    return this.feed.config.account;
  }

  /** What the log names it by: the exchange and where it is reached, never the key. */
  get source(): string {
    return `${this.feed.profile.name} spot account${this.feed.url ? ` at ${this.feed.url}` : ''}`;
  }

  async poll(): Promise<SyncSummary> {
    const summary = await syncExchangeAccount({
      config: this.feed.config,
      client: this.client,
      writer: this.writer,
      said: this.said,
      signal: this.signal,
    });
    if (summary.reconciliation?.fresh.length && this.alert) await this.alert(summary.reconciliation);
    return summary;
  }
}
