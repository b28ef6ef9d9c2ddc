import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * Node's arguments that run a TypeScript file as `npm run <script>` does (tsx's loader), without the `tsx` wrapper
 * process, which would spawn a second Node for each run (some 0.1 CPU-seconds each, over dozens of runs a test run).
 */
export const TSX_LOADER = ['--import', 'tsx'] as const;

/**
 * Starts `scripts/<name>.ts` as `npm run <name>` would, for a test that stops it with SIGTERM, and gathers what it
 * prints (stdout and stderr). Under Node itself with tsx loaded, not the tsx wrapper: the wrapper relays SIGTERM and,
 * when the child's acknowledgement takes over 30 ms (a busy CI machine), kills it with SIGKILL and exits 143
 * instead of letting it stop cleanly.
 */
export function startScript(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcessWithoutNullStreams; output: () => string } {
  const child = spawn(process.execPath, [...TSX_LOADER, join(ROOT, 'scripts', `${name}.ts`), ...args], { cwd: ROOT, env });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

/** Runs `scripts/<name>.ts` to its end, as `npm run <name>` would; its exit status and what it printed on each stream. */
export function runScript(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...TSX_LOADER, join(ROOT, 'scripts', `${name}.ts`), ...args], { cwd: ROOT, env });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
