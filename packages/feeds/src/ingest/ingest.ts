/**
 * The ingester: event lines from a source (source.ts), checked (lines.ts) and applied through the writer (apply.ts),
 * a batch at a time. A bad line is reported as `line N: reason` and skipped; it never stops the rest. When the
 * database does not answer, the batch is applied again after a pause that grows (every writer call is idempotent, so
 * what was written the first time is not written twice); a change of reachability is reported once. Following a
 * file, it waits as long as it takes; reading one to its end, it gives up after `giveUpAfterMs`, and the checkpoint
 * still points at the batch it could not apply. A batch read again after a stop (its lines marked `replay`) counts
 * the lines the store already shows as `unchanged` (apply.ts).
 */
import type { Writer } from '@trading-bot-api/writer';
import pRetry from 'p-retry';
import { applyEvents, changedSomething, DatabaseDown, type NumberedEvent } from './apply';
import { LineError, parseLine } from './lines';
import type { SourceLine } from './source';

interface IngestCounts {
  read: number;
  written: number;
  unchanged: number;
  rejected: number;
  /** The accounts whose lines changed something, in the order they first did. */
  accounts: string[];
}

export interface IngestOptions {
  writer: Writer;
  source: AsyncIterable<SourceLine[]>;
  /** Receives `line N: reason` for each refused line, and a line when the database stops or starts answering. */
  report: (line: string) => void;
  /** Told the counts after every batch. */
  progress?: (counts: IngestCounts) => void;
  /** Give up on a database that does not answer after this long (default: never, as when following a file). */
  giveUpAfterMs?: number;
  /** Pauses between attempts while the database does not answer. */
  retry?: { initialMs: number; maxMs: number };
  signal?: AbortSignal;
}

export interface IngestResult extends IngestCounts {
  /** The database stopped answering and the ingester gave up (the rest is read on the next run). */
  gaveUp: boolean;
}

export async function ingest(options: IngestOptions): Promise<IngestResult> {
  const counts: IngestCounts = { read: 0, written: 0, unchanged: 0, rejected: 0, accounts: [] };
  const { initialMs, maxMs } = options.retry ?? { initialMs: 500, maxMs: 30_000 };
  let down = false;
  for await (const batch of options.source) {
    // Asked for, this batch saved the checkpoint of the one before; left alone, it is read again next time.
    if (options.signal?.aborted) break;
    const events: NumberedEvent[] = [];
    for (const entry of batch) {
      counts.read += 1;
      try {
        if ('error' in entry) throw new LineError(entry.error);
        events.push({ line: entry.line, event: parseLine(entry.text), ...(entry.replay ? { replay: true } : {}) });
      } catch (error) {
        if (!(error instanceof LineError)) throw error;
        counts.rejected += 1;
        options.report(`line ${entry.line}: ${error.message}`);
      }
    }
    const accountOf = new Map(events.map(({ line, event }) => [line, event.account]));
    let results: Awaited<ReturnType<typeof applyEvents>>;
    let attempt: Promise<typeof results> | undefined;
    try {
      results = await pRetry(() => (attempt = applyEvents(options.writer, events)), {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: initialMs,
        maxTimeout: maxMs,
        maxRetryTime: options.giveUpAfterMs,
        signal: options.signal,
        shouldRetry: ({ error }) => error instanceof DatabaseDown,
        onFailedAttempt: ({ error }) => {
          if (error instanceof DatabaseDown && !down) options.report('the database does not answer; trying again until it does');
          down ||= error instanceof DatabaseDown;
        },
      });
    } catch (error) {
      // Stopped while an attempt was in flight (p-retry rejects at once): its answer, not the stop, says whether the
      // batch was written, so a write that landed is counted. Given up on, or stopped while waiting: the batch is read
      // again next time.
      const landed = options.signal?.aborted ? await attempt?.catch(() => undefined) : undefined;
      if (landed) results = landed;
      else if (error instanceof DatabaseDown || options.signal?.aborted) return { ...counts, gaveUp: true };
      else throw error;
    }
    if (down) options.report('the database answers again');
    down = false;
    for (const result of results) {
      if ('error' in result) {
        counts.rejected += 1;
        options.report(`line ${result.line}: ${result.error.message}`);
      } else if (changedSomething(result.outcome)) {
        counts.written += 1;
        const account = accountOf.get(result.line)!;
        if (!counts.accounts.includes(account)) counts.accounts.push(account);
      } else counts.unchanged += 1;
    }
    options.progress?.(counts);
  }
  return { ...counts, gaveUp: false };
}
