/**
 * Deploy bundles: each function built with the esbuild options serverless.yml gives serverless-esbuild, its size,
 * and its import time in fresh `node` processes, beside a baseline bundle that only creates a DocumentClient.
 *
 * Import time is measured inside the child: process.hrtime around the require() of the bundle, so Node's own
 * start-up (the same for every bundle, ~40 ms) does not dilute the comparison. Baseline and function samples are
 * interleaved (one of each per round, in a rotating order) so machine drift falls on all of them alike.
 */
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { deployEsbuildOptions, functionEntries } from '../test/kit/function-bundles';
import { ROOT } from './options';
import { median, ratio, round } from './stats';

const run = promisify(execFile);

export const BASELINE = 'baseline (DocumentClient only)';

interface Contributor {
  package: string;
  bytes: number;
}

export interface BuiltBundle {
  name: string;
  file: string;
  bytes: number;
  /** Bytes in the output per package (or per folder of this project). */
  contributors: Contributor[];
}

export interface BundleRow {
  function: string;
  bytes: number;
  importMs: number;
  /** maxRSS of the child right after the require: the memory the module alone costs. */
  importRssMb: number;
  baselineBytes: number;
  baselineImportMs: number;
  bytesRatio: number;
  importRatio: number;
  /** Packages (or project folders) that make this bundle larger than the baseline, largest first. */
  overBaseline: Contributor[];
}

function packageOf(input: string): string {
  const marker = 'node_modules/';
  const at = input.lastIndexOf(marker);
  if (at === -1) {
    // A folder of this project; a workspace package by its own folder (packages/core), not all packages as one.
    const [top, name] = input.split('/');
    return `${top === 'packages' ? `${top}/${name}` : top}/ (this project)`;
  }
  const parts = input.slice(at + marker.length).split('/');
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function contributors(metafile: Metafile): Contributor[] {
  const bytes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...bytes].map(([name, size]) => ({ package: name, bytes: size })).sort((a, b) => b.bytes - a.bytes);
}

/** Builds every functions/*.ts and the baseline into `outDir`. */
export async function buildBundles(outDir: string): Promise<BuiltBundle[]> {
  const options = deployEsbuildOptions();
  const entries = [{ name: BASELINE, entry: join(ROOT, 'bench', 'baseline-client.ts') }, ...functionEntries()];
  const built: BuiltBundle[] = [];
  for (const { name, entry } of entries) {
    const file = join(outDir, `${name === BASELINE ? 'baseline' : name}.js`);
    const result = await build({
      ...options,
      entryPoints: [entry],
      outfile: file,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: ROOT,
    });
    built.push({ name, file, bytes: statSync(file).size, contributors: contributors(result.metafile) });
  }
  return built;
}

// Runs in a fresh `node -e`: times only the require() of the bundle, then reports the process's peak RSS.
const IMPORT_PROBE = [
  'const file = process.argv[1];',
  'const start = process.hrtime.bigint();',
  'require(file);',
  'const ms = Number(process.hrtime.bigint() - start) / 1e6;',
  'process.stdout.write(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS }));',
].join('\n');

async function importOnce(file: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; maxRssKb: number }> {
  const { stdout } = await run(process.execPath, ['-e', IMPORT_PROBE, file], { env, cwd: ROOT });
  return JSON.parse(stdout);
}

/**
 * Median import time (and RSS) of each bundle over `samples` fresh processes. `env` must hold the functions'
 * configuration: api/config throws at module load without it.
 */
export async function measureImports(
  bundles: BuiltBundle[],
  samples: number,
  env: NodeJS.ProcessEnv,
  onSample: (done: number) => void,
): Promise<BundleRow[]> {
  const times = new Map(bundles.map((bundle) => [bundle.name, [] as number[]]));
  const rss = new Map(bundles.map((bundle) => [bundle.name, [] as number[]]));
  let done = 0;
  for (let i = 0; i < samples; i++) {
    // Each round starts one bundle further on, so no bundle always runs first or right after the same one.
    const order = bundles.map((_, j) => bundles[(i + j) % bundles.length]);
    for (const bundle of order) {
      const { ms, maxRssKb } = await importOnce(bundle.file, env);
      times.get(bundle.name)!.push(ms);
      rss.get(bundle.name)!.push(maxRssKb / 1024);
      onSample(++done);
    }
  }
  const baseline = bundles.find((bundle) => bundle.name === BASELINE)!;
  const baselineMs = median(times.get(BASELINE)!);
  const baselineBytes = new Map(baseline.contributors.map((c) => [c.package, c.bytes]));
  return bundles.map((bundle) => {
    const importMs = median(times.get(bundle.name)!);
    return {
      function: bundle.name,
      bytes: bundle.bytes,
      importMs: round(importMs, 2),
      importRssMb: round(median(rss.get(bundle.name)!), 1),
      baselineBytes: baseline.bytes,
      baselineImportMs: round(baselineMs, 2),
      bytesRatio: ratio(bundle.bytes, baseline.bytes),
      importRatio: ratio(importMs, baselineMs),
      overBaseline: bundle.contributors
        .map((c) => ({ package: c.package, bytes: c.bytes - (baselineBytes.get(c.package) ?? 0) }))
        // Less than 50 bytes is a different import list of the same package, not an addition worth naming.
        .filter((c) => c.bytes >= 50)
        .sort((a, b) => b.bytes - a.bytes)
        .slice(0, 6),
    };
  });
}
