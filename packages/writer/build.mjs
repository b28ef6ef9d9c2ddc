// Builds the package (`npm run build -w packages/writer`; `npm pack` runs it first): the writer and what it uses of
// the core package (@trading-bot-api/core: the table modules, the rules of decimals, times and ids, resolved to its
// sources through tsconfig.json's paths) bundled into one ES module and one CommonJS file, the AWS SDK left to the
// package's dependencies, and one declaration file for both (core's types inlined: a bot installs no core package).
// The inputs of the bundle are written to dist/inputs.json (not packed), so a test can prove nothing of the API or
// the feeds is in it.
//
// `node build.mjs --if-stale` builds only when dist/ is missing or older than something it is built from: `npm test`
// builds it beside its static checks (test/kit/checks.ts), and its tests' global setup then finds it current.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDtsBundle } from 'dts-bundle-generator';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const dist = join(here, 'dist');
/** Everything the build reads: the writer, the core package it bundles, the compiler settings and the locked tools. */
const INPUTS = [
  join(here, 'src'),
  join(here, 'build.mjs'),
  join(here, 'package.json'),
  join(here, 'tsconfig.json'),
  join(root, 'packages', 'core', 'src'),
  join(root, 'tsconfig.json'),
  join(root, 'package-lock.json'),
];
/** Written last: its time is the build's. */
const LAST = join(dist, 'index.d.cts');

const newest = (path) => {
  const stat = statSync(path);
  return stat.isDirectory() ? Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name)))) : stat.mtimeMs;
};
if (process.argv.includes('--if-stale') && existsSync(LAST) && statSync(LAST).mtimeMs >= Math.max(...INPUTS.map(newest))) {
  console.log(`${relative(root, dist)} is current`);
  process.exit(0);
}
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const common = {
  entryPoints: [join(here, 'src', 'index.ts')],
  bundle: true,
  platform: 'node',
  target: 'node20',
  // The SDK is the package's dependency, shared with whatever else the bot uses; everything else is inside.
  external: ['@aws-sdk/*', '@smithy/*'],
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};
const esm = await build({ ...common, format: 'esm', outfile: join(dist, 'index.mjs') });
await build({ ...common, format: 'cjs', outfile: join(dist, 'index.cjs') });
const inputs = Object.keys(esm.metafile.inputs).map((input) => relative(root, join(process.cwd(), input)).split('\\').join('/'));
writeFileSync(join(dist, 'inputs.json'), `${JSON.stringify(inputs.sort(), null, 2)}\n`);

// One declaration file; imports of the SDK's types stay imports (they are dependencies).
const [types] = generateDtsBundle([{ filePath: join(here, 'src', 'index.ts'), output: { noBanner: true, exportReferencedTypes: false } }], {
  preferredConfigPath: join(here, 'tsconfig.json'),
});
for (const name of ['index.d.mts', 'index.d.cts']) writeFileSync(join(dist, name), types);
console.log(`built ${relative(root, dist)}: index.mjs, index.cjs, index.d.mts, index.d.cts (${inputs.length} modules bundled)`);
