/**
 * The exchange feed as a scheduled function runs it (functions/exchange-feed.ts, deployed; docs/operations.md): the
 * accounts of the stage's settings (EXCHANGE_FEEDS, no keys) with their keys from the stage's secret, each synced once a
 * run, one after another, as `npm run bridge -- exchange --once` would.
 *
 * One limiter per exchange across runs: a run starts from what the last one left of each exchange's IP-wide limiter
 * (the weight of the current minute, a 429's wait and the slow pace after it), kept in DynamoDB by the writer
 * (`@limits`), and keeps it again after each account, so a ban the exchange announced holds for every account it
 * serves and for the next runs. Runs take turns (the function's concurrency is one), so the state passes whole.
 */
import { createHash } from 'node:crypto';
import type { Writer } from '@trading-bot-api/writer';
import { EXCHANGE_ORIGIN, exchangeLimiter } from './client';
import { accountListOf, ConfigError, type FeedAccount, type FeedKeys } from './config';
import { ExchangeFeed, type SyncSummary } from './feed';
import type { LimiterState } from './limiter';

/**
 * The accounts of a run: `settings` is EXCHANGE_FEEDS (a JSON list of the config file's accounts, without keys),
 * `keys` the secret's object of each account's `apiKey` and `secret`.
 */
export function scheduledAccounts(settings: string, keys: Readonly<Record<string, FeedKeys>>): FeedAccount[] {
  let entries: unknown;
  try {
    entries = JSON.parse(settings);
  } catch {
    throw new ConfigError('EXCHANGE_FEEDS is not JSON: a list of accounts such as [{"exchange":"binance","account":"bn-main"}]');
  }
  if (!Array.isArray(entries)) throw new ConfigError('EXCHANGE_FEEDS must be a list of accounts');
  return accountListOf(entries, 'EXCHANGE_FEEDS', (entry) => ({ keys: keys[String(entry.account)] }));
}

/** The name an exchange's limiter is kept under: the exchange, and a digest of the origin when it is not the exchange's own. */
export function limiterName(feed: Pick<FeedAccount, 'profile' | 'url'>): string {
  if (feed.url === undefined) return feed.profile.id;
  return `${feed.profile.id}-${createHash('sha256').update(feed.url).digest('hex').slice(0, 12)}`;
}

/** What a run did of one account. */
export type RunOutcome = { account: string; summary: SyncSummary } | { account: string; error: string };

export interface RunOptions {
  report: (line: string) => void;
  /** Told the differences a reconciliation found first. */
  alert?: (found: NonNullable<SyncSummary['reconciliation']>) => Promise<void>;
  /** Stops between pages (the function's deadline near). */
  signal?: AbortSignal;
}

/** Syncs each account once, the exchanges' limiters restored before and kept after each; see the module's comment. */
export async function runScheduled(accounts: readonly FeedAccount[], writer: Writer, options: RunOptions): Promise<RunOutcome[]> {
  const restored = new Set<string>();
  const outcomes: RunOutcome[] = [];
  for (const feed of accounts) {
    if (options.signal?.aborted) break;
    const name = limiterName(feed);
    const limiter = exchangeLimiter(feed.profile, feed.url ?? EXCHANGE_ORIGIN);
    if (!restored.has(name)) {
      const kept = (await writer.exchangeLimits(name)) as LimiterState | undefined;
      if (kept) limiter.restore(kept);
      restored.add(name);
    }
    const account = feed.config.account;
    try {
      const summary = await new ExchangeFeed(feed, writer, { report: options.report, signal: options.signal, alert: options.alert }).poll();
      outcomes.push({ account, summary });
      options.report(`${account}: ${summary.fills} fills, ${summary.transfers} transfers, ${summary.markets} markets (${summary.state})`);
    } catch (error) {
      outcomes.push({ account, error: (error as Error).message });
      options.report(`${account}: not synced: ${(error as Error).message}`);
    } finally {
      await writer.keepExchangeLimits(name, limiter.state());
    }
  }
  return outcomes;
}
