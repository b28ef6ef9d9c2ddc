/**
 * `npm start`: DynamoDB Local (data kept in .data/, or in memory with DB=memory), the tables from resources/tables.js,
 * demo data when the tables are empty (DEMO=off: none, and no demo bot; docs/operations.md), then the API on http://localhost:PORT/api and the dashboard at /: serverless offline behind the local
 * gateway, which answers as the deployed stage does. AUTH=on requires API keys, as deployed stages do.
 * Ctrl-C, closing the terminal, or this process dying in any other way stops everything it started.
 */
import './support/quiet-sdk';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { alertsRequested, channelsOf, localAlertValues } from '../api/alerts/settings';
import { ensureDashboardBuilt } from '../resources/dashboard-build.js';
import { demoDataset } from './demo/dataset';
import { DemoBot } from './demo/demo-bot';
import { stageIsEmpty } from './support/backup';
import { loadDataset, localWriter } from './support/load-data';
import { startDynamoDbLocal } from './local-stack/dynamodb-local';
import { adminClient, ensureTables, LOCAL_PORTS, localFunctionEnv, portFromEnv } from './local-stack/local-db';
import { startDatabaseDoor } from './local-stack/database-door';
import { watchProbe } from './local-stack/probe-watch';
import { startLocalApi } from './local-stack/local-api';
import { portIsFree } from './local-stack/processes';
import { exposureOf } from './local-stack/exposure';

const STAGE = 'local';
const ROOT = join(__dirname, '..');
const DATA_DIR = join(ROOT, '.data');

/** A cursor secret that survives restarts (so cursors stay valid) but never leaves the git-ignored data folder. */
function localCursorSecret(inMemory: boolean): string {
  if (inMemory) return randomBytes(32).toString('hex');
  const file = join(DATA_DIR, 'cursor-secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/**
 * What serverless offline prints but nobody needs: its start-up banner (it names the private sockets behind the local
 * gateway, which nobody can use), its two lines per request (the functions' access line says more), and the
 * functions' metric lines (EMF, which CloudWatch reads in AWS).
 */
const OFFLINE_CHATTER =
  /[│┌└─]|^Starting Offline|^Offline \[|^Function names exposed|^ {3}\* |^Scheduling \[|^Server ready|^\s*$|^(GET|HEAD|OPTIONS) \S+ \(λ: [\w-]+\)$|^\(λ: [\w-]+\) RequestId: |^\{"_aws":/;

/** Levels of the functions' log lines that an operator must see as they happen. */
const ALARMING = new Set(['WARN', 'ERROR', 'CRITICAL']);

/** The level of one of the functions' log lines (Powertools writes one JSON object per line), or undefined. */
function functionLogLevel(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === 'string' ? level : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where each line serverless offline prints goes. The functions log as deployed (every request's access line at
 * INFO, which CloudWatch keeps in AWS); here those lines go to `file`, so the terminal keeps what needs a person: the
 * banner, the probe watch's findings, warnings and errors (a 5xx's access line, an unexpected error with its stack),
 * and anything serverless offline says that is not a function's log line. `verbose` (LOG_LEVEL=DEBUG) prints every
 * line of the functions as well. The probe's own lines go to the file only: the probe watch prints what changes.
 */
function offlineLineRouter(file: number, verbose: boolean): (line: string) => void {
  return (line) => {
    if (OFFLINE_CHATTER.test(line)) return;
    const level = functionLogLevel(line);
    if (level === undefined) {
      console.log(line);
      return;
    }
    // One write per line on a file opened for appending: lines of several npm starts never split each other.
    writeSync(file, `${line}\n`);
    if ((verbose || ALARMING.has(level)) && !/"function_name":"[\w-]+-probe"/.test(line)) console.log(line);
  };
}

/** Things to stop on the way out, newest first. */
const cleanups: (() => Promise<unknown>)[] = [];
let stopping = false;

/** What the closing line says of the data, once the database is chosen. */
let dataKept = '';

/** Stops what was started; on Ctrl-C (or a kill) says so, and where the data is, last. A closed terminal hears nothing. */
async function shutdown(code: number, signal?: NodeJS.Signals): Promise<never> {
  if (!stopping) {
    stopping = true;
    const told = signal === 'SIGINT' || signal === 'SIGTERM';
    if (told) console.log('\nnpm start: stopping…');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    if (told) console.log(`npm start: stopped.${dataKept}`);
  }
  process.exit(code);
}

async function main() {
  const inMemory = process.env.DB === 'memory' || process.argv.includes('--in-memory');
  const auth = process.env.AUTH === 'on';
  // DEMO=off: an operator's own fleet, which starts empty and never gets a demo account or the demo bot's trading.
  const demo = process.env.DEMO !== 'off';
  // The demo's fleet in one reporting currency, valued at its broker feed's prices (docs/operations.md); an operator's
  // own fleet (DEMO=off) has one only when REPORTING_CURRENCY names it.
  if (demo && !process.env.REPORTING_CURRENCY) process.env.REPORTING_CURRENCY = 'USD';
  const exposure = exposureOf(process.env);
  const ports = { PORT: portFromEnv('PORT'), DB_PORT: portFromEnv('DB_PORT'), LAMBDA_PORT: portFromEnv('LAMBDA_PORT') };
  for (const [name, value] of Object.entries(ports)) {
    if (!(await portIsFree(value))) {
      throw new Error(
        `port ${value} is already in use (is another "npm start" running?). Stop it, or choose another port: ${name}=<port> npm start`,
      );
    }
  }

  // The page served at / (dashboard/): rebuilt when its sources changed since the last build.
  ensureDashboardBuilt({ log: (line) => console.log(line) });

  const dataDir = inMemory ? undefined : join(DATA_DIR, 'dynamodb');
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  dataKept = dataDir ? ' The data stays in .data for the next npm start (rm -rf .data forgets it).' : ' Its data was in memory: gone.';
  // DynamoDB Local listens on a port of its own choosing; tools reach it through the door on DB_PORT.
  const db = await startDynamoDbLocal({ dataDir, lightLoad: true, log: (line) => console.log(line) });
  cleanups.push(() => db.close());
  const door = await startDatabaseDoor({ port: ports.DB_PORT, target: db.endpoint });
  cleanups.push(() => door.close());

  const cursorSecret = localCursorSecret(inMemory);
  Object.assign(process.env, localFunctionEnv(STAGE, db.endpoint, cursorSecret));
  const client = adminClient(db.endpoint);
  await ensureTables(client, STAGE);
  if (demo && (await stageIsEmpty(client, STAGE))) {
    const dataset = demoDataset(new Date());
    const writer = localWriter(db.endpoint, { stage: STAGE });
    await loadDataset(writer, dataset);
    writer.close();
    console.log(`Loaded demo data through the writer: ${dataset.accounts.length} accounts, ${dataset.trades.length} trades.`);
  }
  client.destroy();

  // The functions' log lines, appended across runs (DB=memory too: the folder is git-ignored all the same).
  const logFile = join(DATA_DIR, 'logs', 'functions.log');
  mkdirSync(dirname(logFile), { recursive: true });
  const logs = openSync(logFile, 'a');
  cleanups.push(async () => closeSync(logs));
  const verbose = (process.env.LOG_LEVEL ?? '').toUpperCase() === 'DEBUG';

  // Alerts go out from the probe watch when a channel's ALERT_* variable is set (docs/alerts.md); their links lead to
  // DASHBOARD_URL (the dashboard's public address: a phone cannot open localhost), none when it is unset.
  let alertChannels: ReturnType<typeof channelsOf> | undefined;
  if (alertsRequested(process.env)) {
    alertChannels = channelsOf(localAlertValues(process.env));
    for (const problem of alertChannels.problems) console.error(problem);
  }
  const probeSeconds = process.env.PROBE === 'off' ? 0 : Number(process.env.PROBE_SECONDS || 60);
  if (!Number.isInteger(probeSeconds) || probeSeconds < 0)
    throw new Error(`PROBE_SECONDS must be a whole number of seconds, got "${process.env.PROBE_SECONDS}"`);
  const api = await startLocalApi({
    stage: STAGE,
    dbEndpoint: db.endpoint,
    cursorSecret,
    port: ports.PORT,
    lambdaPort: ports.LAMBDA_PORT,
    auth,
    listenAddress: exposure.listenAddress,
    allowedHosts: exposure.allowedHosts,
    // The probe's interval: a longer gap between two runs means the stack was down (api/alerts/transitions.ts).
    env: probeSeconds ? { PROBE_INTERVAL_SECONDS: String(probeSeconds) } : {},
    onLine: offlineLineRouter(logs, verbose),
  });
  cleanups.push(() => api.stop());

  if (probeSeconds) {
    const watch = watchProbe({
      offline: api.offline,
      stage: STAGE,
      seconds: probeSeconds,
      print: (line) => console.log(line),
      alerts: alertChannels?.channels.length ? { channels: alertChannels.channels } : undefined,
    });
    cleanups.push(async () => watch.stop());
    // The first probe reads the fleet as loaded, before the demo bot's first heartbeats change it: otherwise which
    // bots it finds in error depends on which of the two came first (a CI run's alerts once lacked the bot in error).
    await watch.probed;
  }

  const demoBot = demo && process.env.DEMO_BOT !== 'off';
  if (demoBot) {
    const writer = localWriter(db.endpoint, { stage: STAGE });
    const bot = new DemoBot({ writer, log: (line) => console.error(line) });
    await bot.load();
    bot.start();
    cleanups.push(async () => {
      await bot.stop();
      writer.close();
    });
  }
  const base = `http://localhost:${ports.PORT}`;
  const trades = `'${base}/api/primary-usd/trades?status=open&limit=5'`;
  // Commands that work as pasted into another shell in this folder, which has none of this one's variables.
  const dbPort = ports.DB_PORT === LOCAL_PORTS.DB_PORT ? '' : `DB_PORT=${ports.DB_PORT} `;
  const tryIt = auth
    ? [
        '  Try it in another shell, in this folder (this makes a key for every account and keeps it in $KEY):',
        `       KEY=$(${dbPort}npm run --silent keys -- create --accounts '*' --label me --quiet)`,
        `       curl -H "x-api-key: $KEY" ${trades}`,
      ]
    : [`  Try: curl ${base}/api/health`, `       curl ${trades}`];
  console.log(
    [
      '',
      exposure.opened
        ? `Trading Bot API is running at ${base}/api, listening on ${exposure.listenAddress}:${ports.PORT}, answering the Host names ${['localhost', ...exposure.allowedHosts].join(', ')}`
        : `Trading Bot API is running at ${base}/api (loopback only)`,
      `  Dashboard: ${base}/`,
      auth
        ? '  API keys: ON, as on a deployed stage: every request but /api/health needs one in the x-api-key header'
        : '  API keys: OFF. Every account is visible to programs on this machine (AUTH=on npm start to require keys).',
      `  Database: DynamoDB Local ${inMemory ? 'in memory' : `with data in ${dataDir}`}; tools reach it on http://127.0.0.1:${ports.DB_PORT}`,
      `  Lambda Invoke API (functions no route serves): http://127.0.0.1:${ports.LAMBDA_PORT}`,
      verbose
        ? `  Function logs: here and in ${logFile}`
        : `  Function logs: ${logFile} (a line per request; warnings and errors show here too, every line with LOG_LEVEL=DEBUG)`,
      !demo
        ? "  Demo: off (DEMO=off): only your own bots' accounts (docs/operations.md)"
        : demoBot
          ? '  Demo bot: trading the demo accounts live (DEMO_BOT=off npm start to run without it; DEMO=off for no demo at all)'
          : '  Demo bot: off (npm run demo-bot runs it against this server)',
      probeSeconds
        ? `  Probe: every ${probeSeconds} s; a line below when a bot turns stale, errors or recovers (PROBE=off to stop it)`
        : '  Probe: off',
      alertChannels?.channels.length
        ? `  Alerts: ${probeSeconds ? 'sent' : 'would be sent (the probe is off)'} to ${alertChannels.channels.map((channel) => channel.name).join(', ')} on each change (npm run alerts -- test tries them)`
        : '  Alerts: none (set ALERT_TELEGRAM_BOT_TOKEN, ALERT_DISCORD_WEBHOOK_URL, ... to send them: docs/alerts.md)',
      ...tryIt,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  // Whatever ends the API process ends the stack; supervise.cjs covers the cases where this process cannot act.
  api.offline.process.child.once('exit', () => {
    if (!stopping) {
      console.error('npm start: serverless offline stopped unexpectedly');
      void shutdown(1);
    }
  });
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0, signal));
/** A failure nothing caught: its stack, then everything stops. */
function crashed(error: unknown) {
  console.error(`npm start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  void shutdown(1);
}
process.on('uncaughtException', crashed);
process.on('unhandledRejection', crashed);
// Started from `npm start`, our parent is npm (or its shell): when it is gone, so is the terminal we report to.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void shutdown(0);
}, 1000).unref();

main().catch(async (error) => {
  // A missing prerequisite, a port or a setting: its message says what to do, without a stack.
  console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
});
