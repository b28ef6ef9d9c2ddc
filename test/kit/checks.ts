/**
 * `npm test`'s static checks before its tests: first what the machine must have (test/kit/prerequisites.ts), then Biome, the
 * docs' links, the import rule, dead code (knip), the types of the project and of the dashboard, and the OpenAPI
 * lint, side by side.
 * One after another they took some 30 s on two cores, 15 of them the project's `tsc` alone; side by side, about as
 * long as that `tsc`. Beside them, what the tests would otherwise fetch or build first (PREPARATIONS). Each one's
 * output is printed whole once it ends, so lines of two never mix; the run fails if any fails, after all have ended.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import './prerequisites';

const ROOT = join(__dirname, '..', '..');

/** The checks: package.json's scripts of those names, each also run alone by `npm run <name>`. */
const CHECKS = ['lint', 'lint:docs', 'lint:imports', 'lint:dead', 'typecheck', 'typecheck:dashboard', 'lint:openapi'];

/**
 * What the tests would otherwise fetch or build first (on a fresh clone: some 20 s of the run while every test waited,
 * and the writer package's build, 8 CPU-seconds of it), made beside the checks instead, where the project's `tsc`
 * leaves a core idle: DynamoDB Local and the dashboard (scripts/local-stack/prepare.ts), and the writer package's
 * dist/ (packages/writer/build.mjs). The tests still make each one that is missing or stale.
 */
const PREPARATIONS: [name: string, args: string[]][] = [
  ['dynamodb-local', ['--import', 'tsx', join(ROOT, 'scripts', 'local-stack', 'prepare.ts'), 'dynamodb-local']],
  ['dashboard', ['--import', 'tsx', join(ROOT, 'scripts', 'local-stack', 'prepare.ts'), 'dashboard']],
  ['writer package', [join(ROOT, 'packages', 'writer', 'build.mjs'), '--if-stale']],
];

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
  ...PREPARATIONS.map(([what, args]) => run(`prepare ${what}`, process.execPath, args)),
]).then((results) => {
  if (results.includes(false)) {
    console.error('npm test: a static check or a preparation failed (above); the tests did not run.');
    process.exit(1);
  }
});
