import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { runDir } from './run-dir';

const ROOT = join(__dirname, '..', '..');
const SCRIPTS = join(ROOT, 'scripts');

/** Where the run's builds of the programs are (the global setup makes them). */
const bundlesDir = () => join(runDir(), 'scripts');

/**
 * Builds every program of scripts/ once for the run (test/kit/global-setup.cjs), so that each of the suite's many
 * runs of one (dozens) starts as plain Node: under tsx's loader a start costs some 0.45 CPU-seconds (resolving
 * and transforming its hundred modules), built 0.12. The build is esbuild's, as tsx's transform is, from the same
 * sources and tsconfig.json; the packages of node_modules stay outside it and load as they do under tsx. The
 * end-to-end tests run the programs as the README does instead (npm start's stack, `npx tsx`).
 */
export async function buildScripts(): Promise<void> {
  const entryPoints = readdirSync(SCRIPTS)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(SCRIPTS, file));
  await build({
    entryPoints,
    outdir: bundlesDir(),
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: join(ROOT, 'tsconfig.json'),
    // The bundles live in the run's folder: node_modules is found from the repository, as from the sources.
    banner: { js: `module.paths.unshift(${JSON.stringify(join(ROOT, 'node_modules'))});` },
    plugins: [sourceFolders],
    logLevel: 'warning',
  });
}

/**
 * Each module keeps its own `__dirname` and `__filename` (the programs find the repository's files from them), which
 * a bundle would otherwise turn into the bundle's.
 */
const sourceFolders: Plugin = {
  name: 'source-folders',
  setup(builder) {
    builder.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8')
        .replace(/\b__dirname\b/g, JSON.stringify(dirname(args.path)))
        .replace(/\b__filename\b/g, JSON.stringify(args.path));
      return { contents: source, loader: extname(args.path) === '.ts' ? 'ts' : 'js' };
    });
  },
};

/** Node's arguments that run `scripts/<name>.ts` as `npm run <name>` does: its build for this run. */
export function scriptArgs(name: string): string[] {
  return [join(bundlesDir(), `${name}.cjs`)];
}

/**
 * Starts `scripts/<name>.ts` as `npm run <name>` would, for a test that stops it with SIGTERM, and gathers what it
 * prints (stdout and stderr). Under Node itself (its build), not the tsx wrapper: the wrapper relays SIGTERM and,
 * when the child's acknowledgement takes over 30 ms (a busy CI machine), kills it with SIGKILL and exits 143
 * instead of letting it stop cleanly.
 */
export function startScript(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcessWithoutNullStreams; output: () => string } {
  const child = spawn(process.execPath, [...scriptArgs(name), ...args], { cwd: ROOT, env });
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
  const child = spawn(process.execPath, [...scriptArgs(name), ...args], { cwd: ROOT, env });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
