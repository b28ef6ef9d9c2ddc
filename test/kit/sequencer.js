// The order jest starts the test files in: jest's own (files that failed last time first, then the slowest by the
// times it keeps in its cache) wherever it has times. A clone it never ran (CI's) has none, and jest would start the
// biggest files first, which put npm start's tests, 90 s long, 148 s into a 325 s run; there the long files below
// start first, in this order, so the workers end together instead of one running a long file alone at the end.
'use strict';

const { statSync } = require('node:fs');
const { relative } = require('node:path');
// Jest's own sequencer, found from jest itself (it is jest's dependency, not the project's).
const Sequencer = require(require.resolve('@jest/test-sequencer', { paths: [require.resolve('jest')] })).default;

/** The files of 20 s or more in a whole run on two cores, longest first; the rest follow by size. */
const LONG_FIRST = [
  'test/browser/dashboard.test.ts',
  'test/integration/ingest.test.ts',
  'test/e2e/npm-start-keys.test.ts',
  'test/e2e/npm-start.test.ts',
  'test/integration/dynamodb-faults.test.ts',
  'test/e2e/local-api-keys.test.ts',
  'test/integration/performance.test.ts',
  'test/integration/hummingbot-bridge.test.ts',
  'test/integration/exchange-feed.test.ts',
];

class LongFirst extends Sequencer {
  /**
   * What jest sorts `test` by: the milliseconds it measured last time; else a rank above any, for a long file; else a
   * guess from its size (a second per 2 KB). Every file needs one: jest runs a file with a time after those without.
   */
  time(test) {
    const measured = super.time(test);
    if (measured !== undefined && measured !== null) return measured;
    const rank = LONG_FIRST.indexOf(relative(test.context.config.rootDir, test.path).split('\\').join('/'));
    return rank < 0 ? statSync(test.path).size / 2 : Number.MAX_SAFE_INTEGER - rank;
  }
}

module.exports = LongFirst;
