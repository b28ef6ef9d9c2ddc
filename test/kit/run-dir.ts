/**
 * A folder of the test run's own, made by test/kit/global-setup.cjs and removed by its teardown: what a run makes
 * once for several test files (the writer package's build outcome, the packaged stage) lives there. The workers
 * inherit its path in TEST_RUN_DIR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Makes the run's folder (the global setup). */
export function makeRunDir(): void {
  process.env.TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'test-run-'));
}

/** The run's folder. */
export function runDir(): string {
  const dir = process.env.TEST_RUN_DIR;
  if (!dir) throw new Error('TEST_RUN_DIR is not set: run the tests with jest, whose global setup makes the run folder');
  return dir;
}

/** Removes the run's folder (the global teardown, once nothing writes there). */
export function removeRunDir(): void {
  if (process.env.TEST_RUN_DIR) rmSync(process.env.TEST_RUN_DIR, { recursive: true, force: true });
}
