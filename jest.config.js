// Projects as in aws-samples' serverless-test-samples: unit (pure logic), integration (handlers against DynamoDB
// Local through the real SDK) and e2e (serverless offline over HTTP), plus the packaged template and the bench.
const transform = { '\\.[cm]?[jt]s$': '<rootDir>/test/support/esbuild-transform.js' };
// middy and aedes (the tests' MQTT broker) ship ES modules only; esbuild turns them into CommonJS for jest like our
// own sources.
const transformIgnorePatterns = ['/node_modules/(?!(@middy|aedes)/)'];
// One DynamoDB Local for the run (and the dashboard's build), started by the first project that needs it; each test
// file creates tables of its own in it. Unit tests need neither: `npm run test:unit` runs without Java.
const withDatabase = {
  globalSetup: '<rootDir>/test/support/global-setup.cjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.cjs',
};
const common = { transform, transformIgnorePatterns, testEnvironment: 'node', setupFiles: ['<rootDir>/test/support/quiet-sdk.js'] };

module.exports = {
  // Two test files at a time, whatever the machine: jest's default (cores − 1) runs one at a time on CI's two cores,
  // and the suite is mostly waiting on other processes (DynamoDB Local, serverless offline, Chromium): 610 s → 446 s.
  maxWorkers: 2,
  // Hooks and tests may wait on DynamoDB Local while another file loads it: 60 s, not jest's 5, before a wait counts
  // as a failure (a table's creation took over 5 s once under two files). No test judges how long something took.
  testTimeout: 60_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      setupFiles: [...common.setupFiles, '<rootDir>/test/support/unit-env.js'],
    },
    { ...common, ...withDatabase, displayName: 'integration', testMatch: ['<rootDir>/test/integration/**/*.test.ts'] },
    { ...common, ...withDatabase, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.test.ts'] },
    // The packaged CloudFormation template of the prod stage, and a smoke run of the benchmark.
    { ...common, ...withDatabase, displayName: 'package', testMatch: ['<rootDir>/test/package/**/*.test.ts'] },
    { ...common, ...withDatabase, displayName: 'bench', testMatch: ['<rootDir>/test/bench/**/*.test.ts'] },
    // The dashboard in Chromium (playwright-core), against npm start's stack.
    { ...common, ...withDatabase, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
  ],
};
