// Stops the DynamoDB Local of test/kit/global-setup.cjs, and removes the run's folder once the writer package's build it
// started has ended.
'use strict';

module.exports = async function globalTeardown() {
  const db = globalThis.testDynamoDbLocal;
  globalThis.testDynamoDbLocal = undefined;
  await db?.close();
  await globalThis.testWriterBuild;
  globalThis.testWriterBuild = undefined;
  const { removeRunDir } = require('./run-dir.ts');
  removeRunDir();
};
