// Stops the DynamoDB Local of test/kit/global-setup.cjs.
'use strict';

module.exports = async function globalTeardown() {
  // Named by several projects: the first teardown stops it, the others find nothing to stop.
  const db = globalThis.testDynamoDbLocal;
  globalThis.testDynamoDbLocal = undefined;
  await db?.close();
};
