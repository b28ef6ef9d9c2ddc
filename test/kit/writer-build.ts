/**
 * The writer package's build (packages/writer/build.mjs: its dist/ files, what a bot installs), made at most once per
 * test run: test/kit/global-setup.cjs starts it beside the first test files, and the tests that use the built package
 * (the TypeScript example, the packed tarball) wait for it. Built once, not by each of them: it takes 8 CPU-seconds,
 * and two builds at once would race, since build.mjs empties dist/ first. Not at all when dist/ is current (`npm
 * test` builds it beside its static checks, test/kit/checks.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitUntil } from '../../scripts/local-stack/processes';
import { runDir } from './run-dir';

const WRITER = join(__dirname, '..', '..', 'packages', 'writer');
/** Where the build's outcome is written, in the run's folder. */
const outcome = () => join(runDir(), 'writer-build.json');

/** Starts the build; resolves when it has ended, its outcome written for writerBuilt(). Called once per run. */
export function startWriterBuild(): Promise<void> {
  const file = outcome();
  return new Promise((resolve) => {
    execFile(process.execPath, [join(WRITER, 'build.mjs'), '--if-stale'], { cwd: WRITER }, (error, _stdout, stderr) => {
      // Written whole, then renamed: a reader never sees half of it.
      writeFileSync(`${file}.part`, JSON.stringify(error ? { error: `${error.message}\n${stderr}` } : {}));
      renameSync(`${file}.part`, file);
      resolve();
    });
  });
}

/** Resolves once the run's build of the writer package is done; throws its output when it failed. */
export async function writerBuilt(): Promise<void> {
  const file = outcome();
  await waitUntil(async () => existsSync(file), {
    timeoutMs: 120_000,
    alive: () => true,
    describe: () => 'the writer package was not built',
  });
  const { error } = JSON.parse(readFileSync(file, 'utf8')) as { error?: string };
  if (error) throw new Error(`the writer package's build failed: ${error}`);
}
