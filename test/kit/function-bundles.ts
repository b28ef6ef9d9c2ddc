/**
 * The functions' deploy bundles built with serverless.yml's own esbuild options, outside the Serverless CLI: for the
 * bench (each bundle's size and import time) and for test runs, which build them once and have every serverless
 * offline they start load them (OFFLINE_PREBUILT_BUNDLES, resources/local-runs.js) instead of each bundling the
 * twenty functions again (some 8 CPU-seconds a stack on two cores).
 */
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { serverlessYml } from '../../scripts/local-stack/service-definition';

const ROOT = join(__dirname, '..', '..');

// serverless-esbuild removes its own settings before calling esbuild, and adds `exclude` to `external`
// (node_modules/serverless-esbuild/dist/bundle.js).
const PLUGIN_ONLY = [
  'concurrency',
  'zipConcurrency',
  'exclude',
  'nativeZip',
  'packager',
  'packagePath',
  'watch',
  'keepOutputDirectory',
  'packagerOptions',
  'installExtraArgs',
  'outputFileExtension',
  'outputBuildFolder',
  'outputWorkFolder',
  'nodeExternals',
  'skipBuild',
  'skipRebuild',
  'skipBuildExcludeFns',
  'stripEntryResolveExtensions',
  'disposeContext',
  'config',
];

/** The esbuild options of a deploy, read from serverless.yml's custom.esbuild so nothing here can drift from it. */
export function deployEsbuildOptions(): BuildOptions {
  const custom = (serverlessYml() as { custom?: { esbuild?: Record<string, unknown> } }).custom?.esbuild;
  if (!custom) throw new Error('serverless.yml has no custom.esbuild');
  const options: Record<string, unknown> = { ...custom };
  for (const name of PLUGIN_ONLY) delete options[name];
  const exclude = (custom.exclude as string[] | undefined) ?? ['aws-sdk'];
  options.external = [...((custom.external as string[] | undefined) ?? []), ...(exclude.includes('*') ? [] : exclude)];
  // serverless-esbuild's default when custom.esbuild sets none.
  options.bundle ??= true;
  return options as BuildOptions;
}

/** Every function's entry (functions/*.ts), by name. */
export function functionEntries(): { name: string; entry: string }[] {
  return readdirSync(join(ROOT, 'functions'))
    .filter((file) => file.endsWith('.ts'))
    .sort()
    .map((file) => ({ name: basename(file, '.ts'), entry: join(ROOT, 'functions', file) }));
}

/**
 * Builds every function into `outDir`/functions/<name>.js, where serverless-esbuild puts it in its build folder (the
 * handler `functions/x.handler` resolves there). One esbuild call for all of them: each output is still a whole,
 * self-contained bundle (no splitting), and the modules they share are parsed once.
 */
export async function buildFunctionBundles(outDir: string): Promise<Metafile> {
  const result = await build({
    ...deployEsbuildOptions(),
    // The exchange feed is not run by serverless offline (resources/local-runs.js).
    entryPoints: functionEntries()
      .filter(({ name }) => name !== 'exchange-feed')
      .map(({ entry }) => entry),
    outbase: ROOT,
    outdir: outDir,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  return result.metafile;
}
