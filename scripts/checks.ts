/**
 * `npm test`'s static checks before its tests: first what the machine must have (prerequisites.ts), then Biome, the
 * docs' links, the import rule, the types of the project and of the dashboard, and the OpenAPI lint, side by side.
 * One after another they took some 30 s on two cores, 15 of them the project's `tsc` alone; side by side, about as
 * long as that `tsc`. Beside them, what the tests would otherwise fetch or build first (PREPARATIONS). Each one's
 * output is printed whole once it ends, so lines of two never mix; the run fails if any fails, after all have ended.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import './prerequisites';

const ROOT = join(__dirname, '..');

/** The checks: package.json's scripts of those names, each also run alone by `npm run <name>`. */
const CHECKS = ['lint', 'lint:docs', 'lint:imports', 'typecheck', 'typecheck:dashboard', 'lint:openapi'];

/**
 * What the tests' global setup would otherwise fetch or build first while every test waited (on a fresh clone: some
 * 20 s of the run), made beside the checks instead (scripts/local-stack/prepare.ts).
 */
const PREPARATIONS = ['dynamodb-local', 'dashboard'];

function run(name: string, command: string, args: string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const ok = code === 0;
      const text = Buffer.concat(output).toString();
      // Passing checks say only that; a failing one says everything it printed.
      process.stdout.write(ok ? `✔ ${name}\n` : `✘ ${name}\n${text}\n`);
      resolve(ok);
    });
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
Promise.all([
  ...CHECKS.map((script) => run(script, npm, ['run', '--silent', script])),
  ...PREPARATIONS.map((what) =>
    run(`prepare ${what}`, process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'local-stack', 'prepare.ts'), what]),
  ),
]).then((results) => {
  if (results.includes(false)) {
    console.error('npm test: a static check or a preparation failed (above); the tests did not run.');
    process.exit(1);
  }
});
