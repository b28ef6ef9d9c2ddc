// Projects as in aws-samples' serverless-test-samples: unit (pure logic), integration (handlers against DynamoDB
// Local through the real SDK) and e2e (serverless offline over HTTP), plus the packaged template and the bench.
const transform = { '\\.[cm]?[jt]s$': '<rootDir>/test/kit/esbuild-transform.js' };
// middy, aedes (the tests' MQTT broker), p-map and p-retry (with its is-network-error), and the signing libraries
// ccxt's CommonJS build requires (@noble, @scure) ship ES modules only; esbuild turns them into CommonJS for jest like
// our own sources.
const transformIgnorePatterns = ['/node_modules/(?!(@middy|aedes|p-map|p-retry|is-network-error|@noble|@scure)/)'];
// One DynamoDB Local for the run (and the dashboard's build), started by the first project that needs it; each test
// file creates tables of its own in it. Unit tests need neither: `npm run test:unit` runs without Java.
const withDatabase = {
  globalSetup: '<rootDir>/test/kit/global-setup.cjs',
  globalTeardown: '<rootDir>/test/kit/global-teardown.cjs',
};
// The workspace packages' names resolve to their TypeScript sources, as tsconfig.json's `paths` say (tsc, tsx and
// esbuild read those themselves): `@trading-bot-api/core/decimal` is packages/core/src/decimal.ts.
const { paths } = require('./tsconfig.json').compilerOptions;
const moduleNameMapper = Object.fromEntries(
  Object.entries(paths).map(([name, [target]]) => [
    `^${name.replace('*', '(.*)')}$`,
    `<rootDir>/${target.replace(/^\.\//, '').replace('*', '$1')}`,
  ]),
);
const common = {
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/scripts/support/quiet-sdk.ts'],
};

module.exports = {
  // Three test files at a time, whatever the machine: jest's default (cores − 1) runs one at a time on CI's two cores,
  // and a file alone keeps them three-quarters busy at most, waiting on other processes (DynamoDB Local, serverless
  // offline, Chromium) and on what it tests (a dashboard's poll, a retry's back-off). Measured on two cores (issue 31):
  // two files at a time 241 s, three 216 s, four 208 s, with more contention for the tests that wait on a deadline.
  maxWorkers: 3,
  // The slowest files first, on a clone jest never ran too (CI's).
  testSequencer: '<rootDir>/test/kit/sequencer.js',
  // Hooks and tests may wait on DynamoDB Local while another file loads it: 60 s, not jest's 5, before a wait counts
  // as a failure (a table's creation took over 5 s once under two files). No test judges how long something took.
  testTimeout: 60_000,
  projects: [
    // Pure logic: modules that build no client and read no configuration, so no environment is set up for them.
    {
      ...common,
      displayName: 'unit',
      // A package's tests of its own modules live in it (packages/writer/test): only it may import its src/ past its entry.
      testMatch: ['<rootDir>/test/unit/**/*.test.ts', '<rootDir>/packages/*/test/**/*.test.ts'],
    },
    { ...common, ...withDatabase, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, ...withDatabase, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    // The packaged CloudFormation template of the prod stage, and a smoke run of the benchmark.
    { ...common, ...withDatabase, displayName: 'package', testMatch: ['<rootDir>/test/package/**/*.test.ts'] },
    { ...common, ...withDatabase, displayName: 'bench', testMatch: ['<rootDir>/test/bench/**/*.test.ts'] },
    // The dashboard in Chromium (playwright-core), against npm start's stack. Its key prompt is tried in the e2e
    // project instead, on the AUTH=on npm start of test/e2e/npm-start-keys.test.ts: a stack of its own would cost
    // the run some 30 CPU-seconds.
    { ...common, ...withDatabase, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
  ],
};
