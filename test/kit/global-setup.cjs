// Jest global setup of the projects that need a database: one DynamoDB Local (in memory) for the whole run. Test files share it and keep apart by
// creating their own tables (test/kit/api-harness.ts), so they can run in parallel. Jest runs it once per run, whichever
// of the projects naming it are in the run.
'use strict';

const { join } = require('node:path');

require('tsx/cjs/api').register();
const { PrerequisiteError, startDynamoDbLocal } = require('../../scripts/local-stack/dynamodb-local.ts');
const { makeRunDir } = require('./run-dir.ts');
const { startWriterBuild } = require('./writer-build.ts');
const { buildFunctionBundles } = require('./function-bundles.ts');
const { buildScripts } = require('./scripts.ts');
const { makeStagePool } = require('./fleet-stages.ts');
const { validatorsFile } = require('./contract-validators.ts');

/** The projects whose tests use the writer package as built (test/kit/writer-build.ts). */
const WITH_WRITER_BUILD = ['e2e', 'package'];

/** Whether the run may have a test of the projects `names` (it is not told which projects are in the run). */
function runs(globalConfig, names) {
  const { selectProjects, ignoreProjects = [] } = globalConfig;
  return names.some((name) => (!selectProjects || selectProjects.includes(name)) && !ignoreProjects.includes(name));
}

module.exports = async function globalSetup(globalConfig) {
  // What the run makes once for several test files goes there; the workers inherit its path.
  makeRunDir();
  // Built beside the first test files, not awaited here: the tests that use it wait for it.
  if (runs(globalConfig, WITH_WRITER_BUILD)) globalThis.testWriterBuild = startWriterBuild();
  // The dashboard's build, once, before any test file starts a stack that serves it (they would race to build it).
  require('../../resources/dashboard-build.js').ensureDashboardBuilt({ log: (line) => process.stderr.write(`${line}\n`) });
  // The functions' bundles, once for every serverless offline the run starts (resources/local-runs.js), built while
  // DynamoDB Local starts; the workers inherit the variable.
  const bundles = join(process.env.TEST_RUN_DIR, 'bundles');
  try {
    const [db] = await Promise.all([
      startDynamoDbLocal({ lightLoad: true, log: (line) => process.stderr.write(`${line}\n`) }),
      buildFunctionBundles(bundles),
      // The programs the tests run (test/kit/scripts.ts), the same way.
      buildScripts(),
      // The contract's validators (test/kit/contract-validators.ts), compiled here while the others start.
      Promise.resolve().then(validatorsFile),
    ]);
    // Before any test writes: the stages whose streams stay quick (test/kit/fleet-stages.ts).
    await makeStagePool(db.endpoint);
    process.env.OFFLINE_PREBUILT_BUNDLES = bundles;
    globalThis.testDynamoDbLocal = db;
    // Jest starts its workers after this, and they inherit the variable.
    process.env.TEST_DYNAMODB_ENDPOINT = db.endpoint;
  } catch (error) {
    if (error instanceof PrerequisiteError) {
      process.stderr.write(`\n${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
};
