// Stops the DynamoDB Local of test/kit/global-setup.cjs, and waits for the writer package's build it started.
'use strict';

module.exports = async function globalTeardown() {
  const db = globalThis.testDynamoDbLocal;
  globalThis.testDynamoDbLocal = undefined;
  await db?.close();
  const build = globalThis.testWriterBuild;
  globalThis.testWriterBuild = undefined;
  if (build) {
    await build;
    require('./writer-build.ts').removeWriterBuildOutcome();
  }
};
