/**
 * `npm start`: dynalite (data kept in .data/, or in memory with DB=memory), the tables from resources/tables.js,
 * demo data when the tables are empty, then `serverless offline` on http://localhost:3000 with no stage prefix.
 * AUTH=on turns the API-key authorizer on, as in a deployed stage. Ctrl-C stops everything it started.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import tables from '../resources/tables.js';
import { demoDataset } from './support/dataset';
import { adminClient, ensureTables, localFunctionEnv, startDynalite } from './support/local-db';
import { portIsFree, startOffline } from './support/offline';

const STAGE = 'local';
const ROOT = join(__dirname, '..');
const DATA_DIR = join(ROOT, '.data');

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

function numberFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) fail(`${name} must be a port number, got "${raw}"`);
  return Number(raw);
}

/** A cursor secret that survives restarts (so cursors stay valid) but never leaves the git-ignored data folder. */
function localCursorSecret(inMemory: boolean): string {
  if (inMemory) return randomBytes(32).toString('hex');
  const file = join(DATA_DIR, 'cursor-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

async function main() {
  const inMemory = process.env.DB === 'memory' || process.argv.includes('--in-memory');
  const auth = process.env.AUTH === 'on';
  const port = numberFrom('PORT', 3000);
  const dbPort = numberFrom('DYNALITE_PORT', 8000);
  const lambdaPort = numberFrom('LAMBDA_PORT', 3002);
  for (const [name, value] of [['PORT', port], ['DYNALITE_PORT', dbPort], ['LAMBDA_PORT', lambdaPort]] as const) {
    if (!(await portIsFree(value))) {
      fail(`port ${value} is already in use (is another "npm start" running?). Stop it, or choose another port: ${name}=<port> npm start`);
    }
  }

  if (!inMemory) mkdirSync(join(DATA_DIR, 'dynalite'), { recursive: true });
  const db = await startDynalite({ port: dbPort, path: inMemory ? undefined : join(DATA_DIR, 'dynalite') });
  const env = localFunctionEnv(STAGE, db.endpoint, localCursorSecret(inMemory));
  Object.assign(process.env, env);
  const client = adminClient(db.endpoint);
  await ensureTables(client, STAGE);
  const accountsTable = tables.tableName(STAGE, 'accounts');
  const existing = await client.send(new ScanCommand({ TableName: accountsTable, Limit: 1 }));
  if (!existing.Count) {
    const { loadDataset } = await import('./support/load-data');
    const dataset = demoDataset(new Date());
    await loadDataset(client, dataset);
    console.log(`Loaded demo data: ${dataset.accounts.length} accounts, ${dataset.trades.length} trades.`);
  }

  const offline = await startOffline({
    port,
    lambdaPort,
    stage: STAGE,
    auth,
    env: { ...env, CORS_ALLOWED_ORIGINS: '*' },
  });
  const base = `http://localhost:${port}`;
  console.log(
    [
      '',
      `Trading Bot API is running at ${base}/api (loopback only)`,
      auth
        ? '  API keys: ON. Create one with: npm run keys -- create --accounts primary-usd --label me'
        : '  API keys: OFF. Every account is visible to anyone on this machine (AUTH=on npm start to require keys).',
      `  Database: dynalite on ${db.endpoint}, ${inMemory ? 'in memory' : `data in ${join(DATA_DIR, 'dynalite')}`}`,
      `  Try: curl ${base}/api/health`,
      `       curl '${base}/api/primary-usd/trades?status=open&limit=5'`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let probe: NodeJS.Timeout | undefined;
  const probeSeconds = Number(process.env.HEALTH_PROBE_SECONDS ?? 0);
  if (probeSeconds > 0) {
    // The deployed health function also runs on a schedule; locally that only happens when asked for.
    probe = setInterval(async () => {
      const response = await fetch(`${base}/api/health`).catch(() => undefined);
      console.log(`health probe: ${response ? response.status : 'no answer'}`);
    }, probeSeconds * 1000);
  }

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    if (probe) clearInterval(probe);
    await offline.stop();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  offline.child.once('exit', () => {
    if (!stopping) fail('serverless offline stopped unexpectedly');
  });
}

main().catch((error) => fail(error instanceof Error ? error.message : String(error)));
