// Builds the dashboard (dashboard/, Vite) into dashboard/dist when the build is missing or older than its sources,
// so every way of running the stack serves the current page: `npm start`, the tests (their global setup builds once
// before any file starts a stack), `serverless package` and `deploy` (the `dashboard-assets` plugin below). Plain
// CommonJS: the Serverless plugin loads it without a compiler.
'use strict';

const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const DIST = join(ROOT, 'dashboard', 'dist');
const SOURCES = [
  join(ROOT, 'dashboard', 'index.html'),
  join(ROOT, 'dashboard', 'vite.config.ts'),
  join(ROOT, 'dashboard', 'src'),
  join(ROOT, 'client'),
  join(ROOT, 'package-lock.json'),
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether dashboard/dist is missing or older than a source of the page. */
function dashboardStale() {
  const built = join(DIST, 'index.html');
  return !existsSync(built) || statSync(built).mtimeMs < Math.max(...SOURCES.map(newest));
}

/**
 * Builds when stale (or always with `force`); returns whether it built. Throws with Vite's output on failure.
 * @param {{ force?: boolean, log?: (line: string) => void }} [options]
 */
function ensureDashboardBuilt({ force = false, log = (/** @type {string} */ _line) => {} } = {}) {
  if (!force && !dashboardStale()) return false;
  log('building the dashboard (vite build dashboard)');
  const result = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'dashboard', '--logLevel', 'warn'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`the dashboard did not build:\n${result.stdout}${result.stderr}`);
  return true;
}

/** The Serverless plugin: a package (and so a deploy) always carries the current build. */
module.exports = require('./plugin')({
  'before:package:initialize': (serverless) => ensureDashboardBuilt({ log: (line) => serverless.cli.log(line) }),
});
module.exports.ensureDashboardBuilt = ensureDashboardBuilt;
module.exports.DIST = DIST;
