/**
 * What the query worker reports to the bench. The worker returns the raw samples of one pass over one query; the
 * bench pools the passes of a query (spread over the whole run) before taking percentiles, so a transient
 * disturbance of the machine (another process, a stall of the database) touches only part of a query's samples.
 */
import type { Operation, QuerySpec } from './queries';
import { mean, percentile, round } from './stats';

interface Timing {
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  meanMs: number;
}

export interface RepetitionSettings {
  /** Time budget per query and dataset, over all passes; turned into a count from the first calls. */
  budgetMs: number;
  /** Bounds of the total number of timed calls per query and dataset. */
  min: number;
  max: number;
  /** Untimed calls before each pass (they also calibrate the count). */
  warmup: number;
  passes: number;
}

/** What DynamoDB did for one request of the query (the same on every call). */
interface ReadCounts {
  itemsRead: number;
  itemsReturned: number;
  /** The most items the request may read: returned + 1 for a page; 2 per account for the fleet; points + 1 per account for a series. */
  readBudget: number;
  consumedRcu: number;
  dynamoCalls: number;
  rawItemsRead: number;
  rawCalls: number;
  /** The handler returned exactly the items the raw reads fetched (in order, for listings). */
  sameItems: boolean;
  responseBytes: number;
  /** The currencies of a fleet answer (its summaries or series), for the cost per currency. */
  currencies?: number;
}

export interface QueryPass extends ReadCounts {
  id: string;
  operation: Operation;
  /** The request actually measured (deep pages: which page). */
  request: string;
  /** Timed calls of each kind in this pass. */
  reps: number;
  /** The real handler, invoked in-process with an API Gateway event (ms per call). */
  handlerMs: number[];
  /** The floor: the same DynamoDB reads through a plain DocumentClient, nothing else (ms per call). */
  rawMs: number[];
  deepPage?: { page: number; skipped: number };
}

export interface MeasuredQuery extends ReadCounts {
  id: string;
  operation: Operation;
  request: string;
  samples: number;
  handler: Timing;
  raw: Timing;
  deepPage?: { page: number; skipped: number };
}

export type WorkerRequest =
  | { type: 'prepare'; queries: QuerySpec[] }
  | { type: 'measure'; id: string; reps?: number; settings: RepetitionSettings };

function timing(samples: number[]): Timing {
  return {
    p50Ms: round(percentile(samples, 50)),
    p95Ms: round(percentile(samples, 95)),
    p99Ms: round(percentile(samples, 99)),
    meanMs: round(mean(samples)),
  };
}

/** One query's passes pooled: percentiles over all samples; counts from the worst pass (they should all agree). */
export function pool(passes: QueryPass[]): MeasuredQuery {
  const [first] = passes;
  const handlerMs = passes.flatMap((pass) => pass.handlerMs);
  const rawMs = passes.flatMap((pass) => pass.rawMs);
  const worst = (pick: (pass: QueryPass) => number) => Math.max(...passes.map(pick));
  return {
    id: first.id,
    operation: first.operation,
    request: first.request,
    samples: handlerMs.length,
    handler: timing(handlerMs),
    raw: timing(rawMs),
    itemsRead: worst((pass) => pass.itemsRead),
    itemsReturned: first.itemsReturned,
    readBudget: Math.min(...passes.map((pass) => pass.readBudget)),
    consumedRcu: worst((pass) => pass.consumedRcu),
    dynamoCalls: worst((pass) => pass.dynamoCalls),
    rawItemsRead: worst((pass) => pass.rawItemsRead),
    rawCalls: worst((pass) => pass.rawCalls),
    sameItems: passes.every((pass) => pass.sameItems && pass.itemsReturned === first.itemsReturned),
    responseBytes: first.responseBytes,
    ...(first.currencies !== undefined ? { currencies: first.currencies } : {}),
    ...(first.deepPage ? { deepPage: first.deepPage } : {}),
  };
}
