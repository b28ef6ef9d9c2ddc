// The order jest starts the test files in. Its own: files that failed last time first, then the slowest first by the
// times it keeps in its cache, so that the two workers end together instead of one running a long file alone at the
// end. A clone it never ran (CI's) has no such times, and jest then starts the biggest files first: that put npm
// start's tests, 90 s long, 148 s into a 325 s run. Files jest has no time for get the time they took on CI's two
// cores when they are listed below, and otherwise one guessed from their size as jest would; the list only orders.
'use strict';

const { statSync } = require('node:fs');
const { relative } = require('node:path');
// Jest's own sequencer, found from jest itself (it is jest's dependency, not the project's).
const Sequencer = require(require.resolve('@jest/test-sequencer', { paths: [require.resolve('jest')] })).default;

/**
 * Seconds each file of 5 s or more took in a whole run on two cores, three files at a time (`jest --json`, issue
 * 31), rounded: only their order matters. Keep it whole: a long file left out is started by its size (a clone's
 * run once started writer-history, then 22 s long, among the last ones).
 */
const SECONDS = {
  'test/browser/dashboard.test.ts': 100,
  'test/integration/ingest.test.ts': 61,
  'test/e2e/npm-start-keys.test.ts': 46,
  'test/integration/dynamodb-faults.test.ts': 25,
  'test/e2e/local-api-keys.test.ts': 23,
  'test/integration/performance.test.ts': 22,
  'test/integration/hummingbot-bridge.test.ts': 21,
  'test/integration/exchange-feed.test.ts': 20,
  'test/e2e/local-api.test.ts': 19,
  'test/integration/freqtrade-bridge.test.ts': 19,
  'test/integration/fleet-polls.test.ts': 18,
  'test/integration/read-budgets.test.ts': 16,
  'test/integration/writer-properties.test.ts': 16,
  'test/integration/importer.test.ts': 13,
  'test/integration/ingest-replay.test.ts': 13,
  'test/integration/fleet-performance.test.ts': 12,
  'test/integration/time-windows.test.ts': 12,
  'test/package/writer-package.test.ts': 5,
  'test/integration/demo-bot.test.ts': 11,
  'test/integration/hostile-input.test.ts': 11,
  'test/integration/real-bots.test.ts': 10,
  'test/integration/writer-history.test.ts': 10,
  'test/integration/conditional-get.test.ts': 8,
  'test/integration/trade-listings.test.ts': 8,
  'test/integration/writer.test.ts': 8,
  'test/integration/equity-series.test.ts': 6,
  'test/unit/demo-data.test.ts': 6,
  'test/integration/keys-cli.test.ts': 5,
  'test/integration/pnl-series.test.ts': 5,
};

/** A guess for a file that is not listed: a second per 2 KB of test code. */
const SECONDS_PER_BYTE = 1 / 2048;

class SlowestFirst extends Sequencer {
  /** The milliseconds jest sorts `test` by: those it measured last time, or those above. */
  time(test) {
    const measured = super.time(test);
    if (measured !== undefined && measured !== null) return measured;
    const file = relative(test.context.config.rootDir, test.path).split('\\').join('/');
    return 1000 * (SECONDS[file] ?? statSync(test.path).size * SECONDS_PER_BYTE);
  }
}

module.exports = SlowestFirst;
