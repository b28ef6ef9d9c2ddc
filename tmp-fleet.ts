import './scripts/support/quiet-sdk';
import { startDynamoDbLocal } from './scripts/support/dynamodb-local';
import { LOCAL_AWS_ENV, localFunctionEnv } from './scripts/support/local-db';
import { measureFleet } from './bench/fleet';
Object.assign(process.env, LOCAL_AWS_ENV);
(async () => {
  const db = await startDynamoDbLocal({ log: console.error });
  const closers: (() => Promise<void>)[] = [];
  try {
    const r = await measureFleet({
      endpoint: db.endpoint,
      sizes: [5, Number(process.argv[2] ?? 1000)],
      samples: 50,
      env: (stage) => {
        const e: NodeJS.ProcessEnv = { ...process.env, ...localFunctionEnv(stage, db.endpoint, 'x'.repeat(40)), AUTH_MODE: 'off' };
        delete e.NODE_OPTIONS;
        return e;
      },
      onStarted: (c) => closers.push(c),
    });
    console.log(JSON.stringify(r, null, 1));
  } finally {
    for (const c of closers) await c();
    await db.close();
  }
})();
