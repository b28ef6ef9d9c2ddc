/**
 * Runs bridges: each polls on its own interval until stopped. A poll that cannot reach the bot, or that the bot
 * refuses (wrong credentials), is reported as the bot's state, `error` with the cause (the bridge's reportFailure),
 * once per cause, and retried with back-off, doubling up to `maxBackoffMs`. A poll the database did not take is
 * retried every interval, without backing off, so that the bots are heard again as soon as the database is back (a
 * restart of the stack). Each failure is logged once when it starts (or changes) and once when it ends. With `once`,
 * each bridge polls one time and the result says which failed.
 */
import { isRefusal, WriterError } from '@trading-bot-api/writer';
import pRetry from 'p-retry';
import { ExchangeFeedError } from './exchange/errors';
import { FreqtradeError } from './freqtrade/api';
import type { PollSummary } from './freqtrade/bridge';
import { pause } from '../pause';

interface Pollable {
  readonly account: string;
  poll(): Promise<PollSummary>;
  /** Reports that the bot could not be reached or refused the bridge, as the bot's state. */
  reportFailure?(error: FreqtradeError): Promise<void>;
}

export interface Scheduled {
  bridge: Pollable;
  /** Between two polls. */
  intervalMs: number;
  /** What the bridge mirrors, for the log (a URL, never credentials). */
  source: string;
}

export interface RunOptions {
  once?: boolean;
  signal?: AbortSignal;
  report: (line: string) => void;
  maxBackoffMs?: number;
}

/** One line saying why a poll failed, and whether the database (not the bot) is the cause; rethrows a bug or a misconfiguration. */
function failureOf(error: unknown): { text: string; database: boolean } {
  if (error instanceof FreqtradeError || error instanceof ExchangeFeedError) return { text: error.message, database: false };
  if (error instanceof WriterError && error.code === 'UNAVAILABLE') {
    return { text: `the database does not answer (${error.message})`, database: true };
  }
  // A database that refuses the writer for its configuration refuses every poll alike: stop and say so (thrown).
  if (isRefusal(error)) return { text: `the writer refused: ${error.message}`, database: false };
  throw error;
}

/** What one bridge did: whether its last poll (with `once`, its only one) succeeded, and whether any did. */
interface Ran {
  account: string;
  ok: boolean;
  wrote: boolean;
}

/** Runs one bridge; `ok` is false when (with `once`) its poll failed. */
async function runOne({ bridge, intervalMs, source }: Scheduled, options: RunOptions): Promise<Ran> {
  const say = (line: string) => options.report(`${bridge.account}: ${line}`);
  const backoffCapMs = Math.max(options.maxBackoffMs ?? 300_000, intervalMs);
  let failing: ReturnType<typeof failureOf> | undefined;
  // The cause last reported as the bot's state (reported again only when it changes, or once the bot answered).
  let reported: string | undefined;
  // The bot's state at the last successful poll; undefined before the first.
  let state: string | undefined;
  const ran = (ok: boolean): Ran => ({ account: bridge.account, ok, wrote: state !== undefined });
  while (!options.signal?.aborted) {
    let summary: PollSummary;
    try {
      // A failing poll is tried again, the pause doubling from the interval's to the cap; once, it is not.
      summary = await pRetry(() => bridge.poll(), {
        retries: options.once ? 0 : Number.POSITIVE_INFINITY,
        minTimeout: 2 * intervalMs,
        maxTimeout: backoffCapMs,
        signal: options.signal,
        onFailedAttempt: async ({ error }) => {
          const why = failureOf(error);
          if (options.once) say(why.text);
          else if (why.database) {
            if (why.text !== failing?.text) say(`${why.text}; trying again every ${Math.round(intervalMs / 1000)} s`);
          } else if (why.text !== failing?.text) say(`${why.text}; trying again, backing off up to ${Math.round(backoffCapMs / 1000)} s`);
          failing = why;
          if (error instanceof FreqtradeError && bridge.reportFailure && reported !== why.text) {
            // Not taken (the database does not answer either): tried again at the next failure.
            await bridge.reportFailure(error).then(
              () => (reported = why.text),
              () => undefined,
            );
          }
          if (why.database && !options.once) await pause(intervalMs, options.signal);
        },
        // The database's failures wait one interval each (above) and do not grow the back-off.
        shouldConsumeRetry: ({ error }) => !(error instanceof WriterError && error.code === 'UNAVAILABLE'),
      });
    } catch (error) {
      if (options.signal?.aborted) break;
      failureOf(error); // rethrows what is no known failure (a bug)
      if (options.once) return ran(false);
      throw error;
    }
    const first = state === undefined;
    if (failing) say(failing.database ? 'the database answers again' : `${source} answers again`);
    else if (first) say(`mirroring ${source}: ${summary.openTrades} open trades, bot ${summary.state}`);
    else if (summary.state !== state) say(`bot ${summary.state}`);
    const written = Object.entries(summary.written).map(([outcome, count]) => `${count} ${outcome}`);
    if (written.length && !first) say(`trades ${written.join(', ')}`);
    for (const line of summary.refused) say(line);
    failing = undefined;
    reported = undefined;
    state = summary.state;
    if (options.once) return ran(true);
    await pause(intervalMs, options.signal);
  }
  return ran(true);
}

/**
 * Runs every bridge side by side until `signal` aborts (or once each), then says which accounts they wrote (those of a
 * bot polled at least once) and which they could not; true when none failed.
 */
export async function runBridges(bridges: readonly Scheduled[], options: RunOptions): Promise<boolean> {
  const results = await Promise.all(bridges.map((scheduled) => runOne(scheduled, options)));
  const wrote = results.filter((result) => result.wrote).map((result) => result.account);
  const never = results.filter((result) => !result.wrote).map((result) => result.account);
  options.report(
    `${options.once ? 'polled once' : 'stopped'}: wrote ${wrote.length ? wrote.join(', ') : 'no account'}${never.length ? `; could not mirror ${never.join(', ')}` : ''}`,
  );
  return results.every((result) => result.ok);
}
