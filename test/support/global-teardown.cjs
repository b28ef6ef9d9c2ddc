// Stops the DynamoDB Local of test/support/global-setup.cjs.
'use strict';

module.exports = async function globalTeardown() {
  await globalThis.testDynamoDbLocal?.close();
};
