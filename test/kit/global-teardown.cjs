// Stops the DynamoDB Local of test/kit/global-setup.cjs, and removes the run's folder once the writer package's build it
// started has ended.
'use strict';

const { join } = require('node:path');

module.exports = async function globalTeardown() {
  const db = globalThis.testDynamoDbLocal;
  globalThis.testDynamoDbLocal = undefined;
  await db?.close();
  await globalThis.testWriterBuild;
  globalThis.testWriterBuild = undefined;
  // The workers' DynamoDB Locals with streams (test/kit/api-harness.ts) end with their workers; should one outlive
  // its worker, its supervisor is stopped here.
  const { readdirSync, readFileSync } = require('node:fs');
  const dir = process.env.TEST_RUN_DIR;
  for (const name of dir ? readdirSync(dir).filter((file) => file.startsWith('streams-database-')) : []) {
    try {
      process.kill(JSON.parse(readFileSync(join(dir, name), 'utf8')).pid, 'SIGTERM');
    } catch {
      // Gone with its worker.
    }
  }
  require('./run-dir.ts').removeRunDir();
};
