/**
 * The writer package's build (packages/writer/build.mjs: its dist/ files, what a bot installs), made once per test
 * run: test/kit/global-setup.cjs starts it beside the first test files, and the tests that use the built package (the
 * TypeScript example, the packed tarball) wait for it. Built once, not by each of them: it takes seconds of CPU, and
 * two builds at once would race, since build.mjs empties dist/ first.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitUntil } from '../../scripts/local-stack/processes';

const WRITER = join(__dirname, '..', '..', 'packages', 'writer');
/** The variable naming the file the build's outcome is written to (the workers inherit it from the global setup). */
const OUTCOME = 'TEST_WRITER_BUILD_OUTCOME';

/** Starts the build; resolves when it has ended, its outcome written for writerBuilt(). Called once per run. */
export function startWriterBuild(): Promise<void> {
  const outcome = join(mkdtempSync(join(tmpdir(), 'writer-build-')), 'outcome.json');
  process.env[OUTCOME] = outcome;
  return new Promise((resolve) => {
    execFile(process.execPath, [join(WRITER, 'build.mjs')], { cwd: WRITER }, (error, _stdout, stderr) => {
      // Written whole, then renamed: a reader never sees half of it.
      writeFileSync(`${outcome}.part`, JSON.stringify(error ? { error: `${error.message}\n${stderr}` } : {}));
      renameSync(`${outcome}.part`, outcome);
      resolve();
    });
  });
}

/** Resolves once the run's build of the writer package is done; throws its output when it failed. */
export async function writerBuilt(): Promise<void> {
  const outcome = process.env[OUTCOME];
  if (!outcome) throw new Error(`${OUTCOME} is not set: run the tests with jest, whose global setup builds the writer package`);
  await waitUntil(async () => existsSync(outcome), {
    timeoutMs: 120_000,
    alive: () => true,
    describe: () => 'the writer package was not built',
  });
  const { error } = JSON.parse(readFileSync(outcome, 'utf8')) as { error?: string };
  if (error) throw new Error(`the writer package's build failed: ${error}`);
}

/** Removes the outcome's folder (the global teardown, once the build has ended). */
export function removeWriterBuildOutcome(): void {
  const outcome = process.env[OUTCOME];
  if (outcome) rmSync(dirname(outcome), { recursive: true, force: true });
}
