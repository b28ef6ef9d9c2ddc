/**
 * `npm test`'s static checks before its tests: first what the machine must have (prerequisites.ts), then Biome, the
 * docs' links, the import rule, the types of the project and of the dashboard, and the OpenAPI lint, side by side.
 * One after another they took some 30 s on two cores, 15 of them the project's `tsc` alone; side by side, about as
 * long as that `tsc`. Each check's output is printed whole once it ends, so lines of two checks never mix; the run
 * fails if any check fails, after all have ended.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import './prerequisites';

const ROOT = join(__dirname, '..');

/** The checks: package.json's scripts of those names, each also run alone by `npm run <name>`. */
const CHECKS = ['lint', 'lint:docs', 'lint:imports', 'typecheck', 'typecheck:dashboard', 'lint:openapi'];

function run(script: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => {
      const ok = code === 0;
      const text = Buffer.concat(output).toString();
      // Passing checks say only that; a failing one says everything it printed.
      process.stdout.write(ok ? `✔ ${script}\n` : `✘ ${script}\n${text}\n`);
      resolve(ok);
    });
  });
}

Promise.all(CHECKS.map(run)).then((results) => {
  if (results.includes(false)) {
    console.error('npm test: a static check failed (above); the tests did not run.');
    process.exit(1);
  }
});
