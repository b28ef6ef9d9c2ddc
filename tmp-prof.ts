import './scripts/support/quiet-sdk';
import { startDynamoDbLocal } from './scripts/support/dynamodb-local';
import { LOCAL_AWS_ENV, localFunctionEnv } from './scripts/support/local-db';
import { measureFleet } from './bench/fleet';
import { createStore, batchGetItems } from './lib/store/dynamodb';
import { readStamps } from './lib/store/fleet-table';
import tables from './resources/tables.js';
Object.assign(process.env, LOCAL_AWS_ENV);
(async () => {
  const db = await startDynamoDbLocal({ log: () => {} });
  const closers: (() => Promise<void>)[] = [];
  try {
    await measureFleet({
      endpoint: db.endpoint,
      sizes: [1000],
      samples: 3,
      env: (stage) => {
        const e: NodeJS.ProcessEnv = { ...process.env, ...localFunctionEnv(stage, db.endpoint, 'x'.repeat(40)), AUTH_MODE: 'off' };
        delete e.NODE_OPTIONS;
        return e;
      },
      onStarted: (c) => closers.push(c),
    });
    const store = createStore({
      tables: tables.tableNames('benchfleet1000'),
      endpoint: db.endpoint,
      region: 'us-east-1',
      connectTimeoutMs: 1000,
      requestTimeoutMs: 5000,
      maxAttempts: 1,
    });
    for (const aspect of ['status', 'balance'] as const) {
      const keys = [{ shard: 'meta' }, ...[...Array(8).keys()].map((n) => ({ shard: `${aspect}#${n}` }))];
      const t = (f: () => Promise<unknown>) => async () => {
        const a = [];
        for (let i = 0; i < 40; i++) {
          const s = performance.now();
          await f();
          a.push(performance.now() - s);
        }
        a.sort((x, y) => x - y);
        return a[20].toFixed(2);
      };
      console.log(
        aspect,
        'raw batchget',
        await t(() => batchGetItems(store, { [store.tables.fleet]: keys }))(),
        'readStamps',
        await t(() => readStamps(store, aspect, '*'))(),
      );
    }
  } finally {
    for (const c of closers) await c();
    await db.close();
  }
})();
