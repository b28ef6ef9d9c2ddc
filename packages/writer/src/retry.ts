/**
 * The writer's one retry loop. Every call reads what it must change, computes the new items and writes them in one
 * transaction whose conditions say "unchanged since I read it". When another writer got there first the
 * transaction is cancelled, nothing is written, and the call reads again and retries, a bounded number of times.
 * A database that does not answer ends the call with UNAVAILABLE (nothing written, safe to repeat), whichever read
 * or write of the attempt it happened in; one that refuses the writer for its configuration (a missing table or
 * permission) with MISCONFIGURED, which no retry mends. Any other error is a bug, thrown as it is.
 */
import { type Store, TransactionCancelled, type TransactItem, transactWrite } from '@trading-bot-api/core/store/dynamodb';
import { DatabaseError, DatabaseMisconfigured } from '@trading-bot-api/core/store/errors';
import * as errors from './errors';

/** Read-modify-writes tried before a call gives up with WRITE_CONFLICT. */
const MAX_ATTEMPTS = 12;

/** Thrown inside an attempt when another writer changed what it read: read again and retry. */
export class Retry extends Error {}

/** Runs `attempt` until it returns, retrying on Retry; a database outage anywhere in it is UNAVAILABLE, a refusal MISCONFIGURED. */
export async function attempts<T>(what: string, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof DatabaseError) throw errors.unavailable();
      if (error instanceof DatabaseMisconfigured) throw errors.misconfigured(error.message);
      if (!(error instanceof Retry)) throw error;
      if (n >= MAX_ATTEMPTS) throw errors.writeConflict(what);
      // Full jitter, growing: racing writers spread out instead of colliding again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 5 * 2 ** n)));
    }
  }
}

/** Writes `items` as one transaction; a cancelled one means another writer changed what was read: Retry. */
export async function commit(store: Store, items: TransactItem[]): Promise<void> {
  try {
    await transactWrite(store, items);
  } catch (error) {
    if (error instanceof TransactionCancelled) throw new Retry();
    throw error;
  }
}
