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
  readonly client: ExchangeClient;

  constructor(
    private readonly feed: FeedAccount,
    private readonly writer: Writer,
    options: { report: (line: string) => void; share?: number; signal?: AbortSignal },
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
  }

  get account(): string {
    return this.feed.config.account;
  }

  /** What the log names it by: the exchange and where it is reached, never the key. */
  get source(): string {
    return `${this.feed.profile.name} spot account${this.feed.url ? ` at ${this.feed.url}` : ''}`;
  }

  poll(): Promise<SyncSummary> {
    return syncExchangeAccount({
      config: this.feed.config,
      client: this.client,
      writer: this.writer,
      said: this.said,
      signal: this.signal,
    });
  }
}
