// Jest global setup of the projects that need a database: one DynamoDB Local (in memory) for the whole run. Test files share it and keep apart by
// creating their own tables (test/kit/api-harness.ts), so they can run in parallel.
'use strict';

require('tsx/cjs/api').register();
const { PrerequisiteError, startDynamoDbLocal } = require('../../scripts/local-stack/dynamodb-local.ts');

module.exports = async function globalSetup() {
  // Every project that needs the database names this set-up; the first one starts it, the others find it running.
  if (globalThis.testDynamoDbLocal) return;
  // The dashboard's build, once, before any test file starts a stack that serves it (they would race to build it).
  require('../../resources/dashboard-build.js').ensureDashboardBuilt({ log: (line) => process.stderr.write(`${line}\n`) });
  try {
    const db = await startDynamoDbLocal({ log: (line) => process.stderr.write(`${line}\n`) });
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
