/**
 * `npm run bridge -- freqtrade --url URL --username USER --account ID [--interval SECONDS] [--once]`
 * `npm run bridge -- freqtrade --config FILE [--once]`
 *
 * Mirrors running freqtrade bots into the API (lib/bridges/freqtrade): each bot's profile, trades, balance and
 * state, one account per bot, through the writer. Locally into `npm start`'s database; with --stage into that
 * deployed stage (AWS credentials from the environment, limited to the stack's bot-writer policy).
 *
 * The password comes from FREQTRADE_PASSWORD, --password-file FILE, or --password (which `ps` shows: prefer the
 * others). The config file is JSON: {"stage"?, "endpoint"?, "bots": [{"url", "username", "password" | "passwordFile"
 * | "passwordEnv", "account", "interval"?, "stallSeconds"?}]}.
 *
 * Exit: 0; 1 when a poll failed with --once (one line says which bot and why); 2 when the command is wrong.
 * Without --once it runs until Ctrl-C or SIGTERM, retrying a failing bot with back-off.
 */
import './support/quiet-sdk';
import { readFileSync } from 'node:fs';
import { freqtradeClient } from '../lib/bridges/freqtrade/api';
import { FreqtradeBridge } from '../lib/bridges/freqtrade/bridge';
import { runBridges, type Scheduled } from '../lib/bridges/run';
import { commandLine, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';

const USAGE = [
  'usage: npm run bridge -- freqtrade --url URL --username USER --account ID [--interval SECONDS] [--once]',
  '                         [--password-file FILE] [--stall-after SECONDS] [--stage NAME] [--endpoint URL]',
  '       npm run bridge -- freqtrade --config FILE [--once] [--stage NAME] [--endpoint URL]',
  'The password: FREQTRADE_PASSWORD, --password-file FILE, or --password PASS (visible to ps).',
].join('\n');

const fail: (message: string) => never = (message) => usageFailure('bridge', USAGE, message);

interface BotConfig {
  url: string;
  username: string;
  password: string;
  account: string;
  intervalSeconds: number;
  stallSeconds?: number;
}

const DEFAULT_INTERVAL = 10;

function secretFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    fail(`cannot read the password file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

function positive(value: unknown, what: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0)
    fail(`${what} must be a number of seconds above 0, got ${JSON.stringify(value)}`);
  return number;
}

function botsOfConfig(file: string): { bots: BotConfig[]; stage?: string; endpoint?: string } {
  let parsed: { stage?: string; endpoint?: string; bots?: Record<string, unknown>[] };
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`cannot read the config ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed?.bots) || !parsed.bots.length) fail(`${file}: "bots" must be a list of bots`);
  const accounts = new Set<string>();
  const bots = parsed.bots.map((bot, index) => {
    const where = `${file}: bots[${index}]`;
    for (const field of ['url', 'username', 'account'])
      if (typeof bot[field] !== 'string' || !bot[field]) fail(`${where}.${field} is required (a string)`);
    if (accounts.has(bot.account as string)) fail(`${where}: account ${bot.account} is given to two bots; one account each`);
    accounts.add(bot.account as string);
    let password: string | undefined;
    if (typeof bot.password === 'string') password = bot.password;
    else if (typeof bot.passwordFile === 'string') password = secretFile(bot.passwordFile);
    else if (typeof bot.passwordEnv === 'string') password = process.env[bot.passwordEnv];
    if (password === undefined) fail(`${where}: give "password", "passwordFile" or "passwordEnv" (an environment variable that is set)`);
    return {
      url: bot.url as string,
      username: bot.username as string,
      password,
      account: bot.account as string,
      intervalSeconds: bot.interval === undefined ? DEFAULT_INTERVAL : positive(bot.interval, `${where}.interval`),
      stallSeconds: bot.stallSeconds === undefined ? undefined : positive(bot.stallSeconds, `${where}.stallSeconds`),
    };
  });
  return { bots, stage: parsed.stage, endpoint: parsed.endpoint };
}

/** The bots to run and where to write, from the command line (and the config file it names); undefined after --help. */
function parse() {
  const parsed = commandLine('bridge', USAGE, {
    url: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    'password-file': { type: 'string' },
    account: { type: 'string' },
    interval: { type: 'string' },
    'stall-after': { type: 'string' },
    config: { type: 'string' },
    once: { type: 'boolean', default: false },
    stage: { type: 'string' },
    endpoint: { type: 'string' },
  });
  if (!parsed) return undefined;
  const { values, positionals } = parsed;
  if (positionals[0] !== 'freqtrade' || positionals.length !== 1)
    fail(
      positionals.length
        ? `unknown bot kind ${positionals.join(' ')}; this bridge speaks to freqtrade`
        : 'say which kind of bot: freqtrade',
    );
  if (values.config) {
    for (const flag of ['url', 'username', 'password', 'password-file', 'account', 'interval', 'stall-after'] as const)
      if (values[flag] !== undefined) fail(`--${flag} goes in the config file with --config`);
    const config = botsOfConfig(values.config);
    return { bots: config.bots, once: values.once, stage: values.stage ?? config.stage, endpoint: values.endpoint ?? config.endpoint };
  }
  for (const flag of ['url', 'username', 'account'] as const) if (!values[flag]) fail(`--${flag} is required (or --config FILE)`);
  const password = values.password ?? (values['password-file'] ? secretFile(values['password-file']) : process.env.FREQTRADE_PASSWORD);
  if (password === undefined) fail('no password: set FREQTRADE_PASSWORD, or give --password-file FILE');
  const bot: BotConfig = {
    url: values.url!,
    username: values.username!,
    password,
    account: values.account!,
    intervalSeconds: values.interval === undefined ? DEFAULT_INTERVAL : positive(values.interval, '--interval'),
    stallSeconds: values['stall-after'] === undefined ? undefined : positive(values['stall-after'], '--stall-after'),
  };
  return { bots: [bot], once: values.once, stage: values.stage, endpoint: values.endpoint };
}

async function main() {
  const options = parse();
  if (!options) return;
  const writer = targetWriter({ stage: options.stage, endpoint: options.endpoint });
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const scheduled: Scheduled[] = options.bots.map((bot) => ({
    bridge: new FreqtradeBridge({ client: freqtradeClient(bot), writer, account: bot.account, stallSeconds: bot.stallSeconds }),
    intervalMs: bot.intervalSeconds * 1000,
    source: `freqtrade at ${bot.url}`,
  }));
  try {
    const ok = await runBridges(scheduled, { once: options.once, signal: stop.signal, report: (line) => console.log(`bridge ${line}`) });
    process.exitCode = ok ? 0 : 1;
  } finally {
    writer.close();
  }
}

main().catch((error) => {
  console.error(`bridge: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
