/**
 * `serverless package --stage prod` as a deploy from a clean shell runs it, built once per run where it can be: the
 * dashboard's test builds it beside the npm start stack it runs on (that the stack keeps answering is its check), and
 * the packaged template's test reads what that build made instead of building again (some 11 CPU-seconds, with the
 * functions' bundles). Whichever of the two asks first builds it; when the template's test was first, the
 * dashboard's builds again, since its check needs a build beside its stack.
 *
 * Such a build uses serverless-esbuild's default work folder, `.esbuild`, which it deletes when done: two at once
 * would take each other's bundles, so they take turns (a lock file), and other commands of the tests build elsewhere
 * (SCRATCH_BUILDS).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitUntil } from '../../scripts/local-stack/processes';
import { runDir } from './run-dir';

const ROOT = join(__dirname, '..', '..');
export const SERVERLESS = join(ROOT, 'node_modules', 'serverless', 'bin', 'serverless.js');
/** Where the tests' other serverless commands bundle (ESBUILD_WORK_FOLDER): outside `.esbuild`, which a package deletes. */
export const SCRATCH_BUILDS = '.cache/esbuild';

/**
 * The alerts' secrets as an operator's shell might hold them while deploying (after `npm start` with alerts, say):
 * none may reach the template, which holds only where the notifier reads them at run time.
 */
export const ALERT_SECRETS = {
  ALERT_TELEGRAM_BOT_TOKEN: '123:SENTINEL-telegram-token',
  ALERT_TELEGRAM_CHAT_ID: '-100SENTINEL',
  ALERT_DISCORD_WEBHOOK_URL: 'https://discord.com/api/webhooks/1/SENTINEL-discord',
  ALERT_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/SENTINEL-slack',
  ALERT_WEBHOOK_URL: 'https://receiver.example/SENTINEL-webhook',
};

/** The exchange accounts a deploy names for the scheduled exchange feed (resources/stages.js): settings, never keys. */
export const EXCHANGE_FEEDS = JSON.stringify([{ exchange: 'binance', account: 'bn-main', reconcileWith: 'ft-main' }]);

/**
 * What a deploy from a clean shell sees: none of the local-run variables (serverless-esbuild's default work folder
 * among them), the alerts' secrets, one exchange account for the feed, and `extra`.
 */
export function deployEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SLS_TELEMETRY_DISABLED: '1', ...ALERT_SECRETS, EXCHANGE_FEEDS, ...extra };
  const local = ['CURSOR_SECRET', 'DYNAMODB_ENDPOINT', 'AUTH_MODE', 'CORS_ALLOWED_ORIGINS', 'PORT', 'LAMBDA_PORT', 'DASHBOARD_URL'];
  for (const name of [...local, 'ESBUILD_WORK_FOLDER', 'OFFLINE_PREBUILT_BUNDLES']) if (!(name in extra)) delete env[name];
  return env;
}

/** `serverless package --stage prod` into `out`, with deployEnv(`extra`): in `.esbuild` unless `extra` says otherwise. */
async function packageStage(out: string, extra: Record<string, string> = {}): Promise<void> {
  await promisify(execFile)(process.execPath, [SERVERLESS, 'package', '--stage', 'prod', '--package', out], {
    cwd: ROOT,
    env: deployEnv(extra),
  });
}

/** The run's shared build: its folder, the lock its builder holds, and the file saying it is done (or how it failed). */
function shared() {
  const folder = join(runDir(), 'package-prod');
  return { folder, lock: `${folder}.lock`, done: `${folder}.done` };
}

/** Takes the lock of the shared build: true when this caller is to build it. */
function claim(): boolean {
  try {
    writeFileSync(shared().lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function buildShared(): Promise<void> {
  const { folder, done } = shared();
  try {
    await packageStage(folder);
    writeFileSync(done, '{}');
  } catch (error) {
    writeFileSync(done, JSON.stringify({ error: String((error as Error).message) }));
    throw error;
  }
}

/** The shared build's folder once it is done (whoever builds it); throws how it failed. */
async function sharedBuilt(): Promise<string> {
  const { folder, done } = shared();
  await waitUntil(async () => existsSync(done), { timeoutMs: 240_000, alive: () => true, describe: () => 'the package was not built' });
  const { error } = JSON.parse(readFileSync(done, 'utf8')) as { error?: string };
  if (error) throw new Error(`serverless package failed: ${error}`);
  return folder;
}

/** Builds the package now (beside the dashboard test's npm start): the shared build, or one of its own after it. */
export async function packageBeside(): Promise<void> {
  if (claim()) return buildShared();
  await sharedBuilt().catch(() => undefined);
  const out = mkdtempSync(join(tmpdir(), 'package-beside-start-'));
  try {
    await packageStage(out);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The folder of the run's package (the template's test): built here when no other test has built it. */
export async function packagedStage(): Promise<string> {
  if (claim()) await buildShared();
  return sharedBuilt();
}
