/**
 * The DynamoDB Local with streams of each jest worker, for the files that test the fleet projector (test/kit/
 * api-harness.ts): one per worker rather than per file, since those files run one after another in a worker and each
 * deletes its tables when done, while a JVM's start and warm-up cost a file some 2 CPU-seconds (eight files did it in
 * every run). Not one for the whole run: writes to a stream slow down with the records other streams left in the
 * same JVM (scripts/local-stack/local-db.ts, ensureTables), and one JVM for all eight files spent more CPU than one
 * per worker (docs/performance.md). The first file that needs it starts it and writes where it listens in the run's folder; the next ones
 * find it there. It ends with the worker, whose exit closes the lifeline of its supervisor
 * (scripts/local-stack/supervise.cjs), or at the global teardown (stopStreamsDatabases).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { startDynamoDbLocal } from '../../scripts/local-stack/dynamodb-local';
import { runDir } from './run-dir';

const PREFIX = 'streams-database-';

/** This worker's database with streams, started by the first file that asks. */
export async function streamsDatabase(): Promise<{ endpoint: string }> {
  const file = join(runDir(), `${PREFIX}${process.env.JEST_WORKER_ID ?? '0'}-${process.pid}.json`);
  if (existsSync(file)) {
    const { endpoint, pid } = JSON.parse(readFileSync(file, 'utf8')) as { endpoint: string; pid: number };
    if (existsSync(`/proc/${pid}`)) return { endpoint };
  }
  const db = await startDynamoDbLocal({ lightLoad: true });
  // Nothing of it keeps the worker (or jest, running one file in its own process) from exiting.
  const { child } = db.process;
  child.unref();
  for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as Socket | null)?.unref();
  writeFileSync(file, JSON.stringify({ endpoint: db.endpoint, pid: child.pid }));
  return { endpoint: db.endpoint };
}

/** Stops the supervisor of each that outlived its worker (the global teardown, before the run's folder goes). */
export function stopStreamsDatabases(): void {
  for (const name of readdirSync(runDir()).filter((file) => file.startsWith(PREFIX))) {
    try {
      process.kill((JSON.parse(readFileSync(join(runDir(), name), 'utf8')) as { pid: number }).pid, 'SIGTERM');
    } catch {
      // Gone with its worker.
    }
  }
}
