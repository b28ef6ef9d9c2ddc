/**
 * `npm run bridge -- freqtrade --url URL --username USER --account ID [--name NAME] [--interval SECONDS] [--once]`
 * `npm run bridge -- freqtrade --config FILE [--once]`
 * `npm run bridge -- hummingbot --mqtt mqtt://HOST:1883 [--namespace hbot] [--username U] [--config FILE]`
 * `npm run bridge -- hummingbot --csv data/trades_<config>.csv --account ID [--name NAME] [--config FILE] [--once]`
 * `npm run bridge -- exchange --exchange binance --account ID [--quote USDT] [--symbols BTC/USDT,…] [--once]`
 * `npm run bridge -- exchange --config FILE [--once]`
 *
 * Mirrors running bots into the API, through the writer. freqtrade (packages/feeds/src/bridges/freqtrade): each bot's profile,
 * trades, balance and state, one account per bot, polled. hummingbot (packages/feeds/src/bridges/hummingbot): every instance that
 * publishes under the MQTT namespace, one account each, as its messages come; or, for a bot without a broker, its
 * trades file followed. Locally into `npm start`'s database; with --stage into that deployed stage (AWS credentials
 * from the environment, limited to the stack's bot-writer policy).
 *
 * freqtrade's password comes from FREQTRADE_PASSWORD, --password-file FILE, or --password (which `ps` shows: prefer
 * the others). Its config file is JSON: {"stage"?, "endpoint"?, "bots": [{"url", "username", "password" |
 * "passwordFile" | "passwordEnv", "account", "name"?, "interval"?, "stallSeconds"?}]}. A bot's display name is
 * --name (or "name"), else its bot_name, else (left at freqtrade's default) "freqtrade (ACCOUNT)". hummingbot's MQTT password comes from
 * HUMMINGBOT_MQTT_PASSWORD or --password-file FILE (or the config's "passwordFile" or "passwordEnv"), never from the
 * command line; its config file is packages/feeds/src/bridges/hummingbot/config.ts's.
 *
 * The exchange feed (packages/feeds/src/bridges/exchange) mirrors an exchange account read with a read-only key: its
 * key and secret come from EXCHANGE_API_KEY and EXCHANGE_API_SECRET, or --key-file and --secret-file, never from the
 * command line; its config file is {"stage"?, "endpoint"?, "accounts": [{"exchange", "account", "keyFile" | "keyEnv",
 * "secretFile" | "secretEnv", "quote"?, "symbols"?, "reconcileWith"?, "name"?, "url"?, "since"?, "interval"?}]}.
 *
 * Exit: 0; 1 when a poll failed with --once (one line says which bot and why); 2 when the command is wrong.
 * Without --once it runs until Ctrl-C or SIGTERM, retrying a failing bot, broker or database with back-off.
 */
import './support/quiet-sdk';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freqtradeClient } from '@trading-bot-api/feeds/bridges/freqtrade/api';
import { FreqtradeBridge } from '@trading-bot-api/feeds/bridges/freqtrade/bridge';
import { HummingbotBridge } from '@trading-bot-api/feeds/bridges/hummingbot/bridge';
import { configOf, type HummingbotConfig } from '@trading-bot-api/feeds/bridges/hummingbot/config';
import { followTradesFile } from '@trading-bot-api/feeds/bridges/hummingbot/csv';
import { listenToBroker } from '@trading-bot-api/feeds/bridges/hummingbot/mqtt';
import { runBridges, type Scheduled } from '@trading-bot-api/feeds/bridges/run';
import { ConfigError, type FeedAccount, feedAccountOf, feedAccountsOf } from '@trading-bot-api/feeds/bridges/exchange/config';
import { ExchangeFeed } from '@trading-bot-api/feeds/bridges/exchange/feed';
import type { Difference, Writer } from '@trading-bot-api/writer';
import { deliverAlerts } from '../api/alerts/delivery';
import { reconciliationEvent } from '../api/alerts/events';
import { configuredChannels } from '../api/alerts/remote';
import { commandLine, failureText, runCommand, stopSignal, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';

const USAGE = [
  'usage: npm run bridge -- freqtrade --url URL --username USER --account ID [--interval SECONDS] [--once]',
  '                         [--name NAME] [--password-file FILE] [--stall-after SECONDS] [--stage NAME] [--endpoint URL]',
  '       npm run bridge -- freqtrade --config FILE [--once] [--stage NAME] [--endpoint URL]',
  'The password: FREQTRADE_PASSWORD, --password-file FILE, or --password PASS (visible to ps).',
  '       npm run bridge -- hummingbot --mqtt mqtt://HOST:1883 [--namespace hbot] [--username USER] [--password-file FILE]',
  '                         [--client-id ID] [--config FILE] [--state FILE] [--stage NAME] [--endpoint URL]',
  '       npm run bridge -- hummingbot --csv data/trades_CONFIG.csv --account ID [--name NAME] [--config FILE] [--state FILE] [--once]',
  "The MQTT password: HUMMINGBOT_MQTT_PASSWORD, --password-file FILE, or the config's passwordFile or passwordEnv.",
  '       npm run bridge -- exchange --exchange binance --account ID [--quote USDT] [--symbols BTC/USDT,ETH/USDT]',
  '                         [--key-file FILE --secret-file FILE] [--url ORIGIN] [--name NAME] [--reconcile-with ACCOUNT]',
  '                         [--since DATE] [--interval SECONDS] [--once] [--stage NAME] [--endpoint URL]',
  '       npm run bridge -- exchange --config FILE [--once] [--stage NAME] [--endpoint URL]',
  'The key and secret: EXCHANGE_API_KEY and EXCHANGE_API_SECRET, or --key-file and --secret-file (a read-only key).',
].join('\n');

const fail: (message: string) => never = (message) => usageFailure('bridge', USAGE, message);

const DEFAULT_INTERVAL = 10;

/** Where secrets come from: a file's text (its last newline dropped), an environment variable. */
const SECRETS = {
  readFile: (file: string) => readFileSync(file, 'utf8').replace(/\r?\n$/, ''),
  env: process.env,
};

/**
 * A password as given: itself, a file holding it, or an environment variable naming it, the first given of these;
 * undefined when none is given, or the variable is not set.
 */
function passwordOf(given: { password?: unknown; passwordFile?: unknown; passwordEnv?: unknown }): string | undefined {
  if (typeof given.password === 'string') return given.password;
  if (typeof given.passwordFile === 'string')
    try {
      return SECRETS.readFile(given.passwordFile);
    } catch (error) {
      fail(`cannot read the password file ${given.passwordFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  if (typeof given.passwordEnv === 'string') return process.env[given.passwordEnv];
}

function positive(value: unknown, what: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0)
    fail(`${what} must be a number of seconds above 0, got ${JSON.stringify(value)}`);
  return number;
}

/** A bot of the config file or the command line; `name` says how its fields are written there. */
function botOf(bot: Record<string, unknown>, password: string, name: (field: 'interval' | 'stallSeconds' | 'name') => string) {
  return {
    url: bot.url as string,
    username: bot.username as string,
    password,
    account: bot.account as string,
    intervalSeconds: bot.interval === undefined ? DEFAULT_INTERVAL : positive(bot.interval, name('interval')),
    stallSeconds: bot.stallSeconds === undefined ? undefined : positive(bot.stallSeconds, name('stallSeconds')),
    name: bot.name === undefined ? undefined : displayName(bot.name, name('name')),
  };
}

/** A config file's JSON; what cannot be read or parsed is the command's fault. */
function readConfig<T>(file: string): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(`cannot read the config ${file}: ${(error as Error).message}`);
  }
}

function botsOfConfig(file: string) {
  const parsed = readConfig<{ stage?: string; endpoint?: string; bots?: Record<string, unknown>[] }>(file);
  if (!Array.isArray(parsed?.bots) || !parsed.bots.length) fail(`${file}: "bots" must be a list of bots`);
  const accounts = new Set<string>();
  const bots = parsed.bots.map((bot, index) => {
    const where = `${file}: bots[${index}]`;
    for (const field of ['url', 'username', 'account'])
      if (typeof bot[field] !== 'string' || !bot[field]) fail(`${where}.${field} is required (a string)`);
    if (accounts.has(bot.account as string)) fail(`${where}: account ${bot.account} is given to two bots; one account each`);
    accounts.add(bot.account as string);
    const password = passwordOf(bot);
    if (password === undefined) fail(`${where}: give "password", "passwordFile" or "passwordEnv" (an environment variable that is set)`);
    return botOf(bot, password, (field) => `${where}.${field}`);
  });
  return { bots, stage: parsed.stage, endpoint: parsed.endpoint };
}

/** The bots to run and where to write, from the command line (and the config file it names). */
function parse() {
  // Every kind's flags are strings but these two; which kind takes which is checked below.
  const strings = ([...Object.values(KIND_FLAGS).flat(), 'config', 'stage', 'endpoint'] as const).map(
    (flag) => [flag, { type: 'string' }] as const,
  );
  const { values, positionals } = commandLine('bridge', USAGE, {
    ...(Object.fromEntries(strings) as Record<(typeof strings)[number][0], { type: 'string' }>),
    symbols: { type: 'string', multiple: true },
    once: { type: 'boolean', default: false },
  });
  if (!['freqtrade', 'hummingbot', 'exchange'].includes(positionals[0]) || positionals.length !== 1)
    fail(
      positionals.length
        ? `unknown bot kind ${positionals.join(' ')}; this bridge speaks to freqtrade, hummingbot and exchange accounts`
        : 'say which kind of bot: freqtrade, hummingbot or exchange',
    );
  const kind = positionals[0] as keyof typeof KIND_FLAGS;
  // On the command line a password is visible to anyone who lists the processes.
  if (kind === 'hummingbot' && values.password !== undefined)
    fail('no --password for hummingbot: set HUMMINGBOT_MQTT_PASSWORD, or give --password-file FILE');
  for (const [flag, value] of Object.entries(values)) {
    if (value === undefined || ['config', 'once', 'stage', 'endpoint', 'help'].includes(flag)) continue;
    if (!(KIND_FLAGS[kind] as readonly string[]).includes(flag)) fail(`--${flag} is not for ${kind}`);
    // hummingbot's flags override its config file's settings; the others' bots are wholly in the file.
    if (values.config && kind !== 'hummingbot') fail(`--${flag} goes in the config file with --config`);
  }
  if (kind === 'hummingbot') {
    const options = hummingbotOptions(values);
    return { hummingbot: options, stage: options.stage, endpoint: options.endpoint };
  }
  const { once, stage, endpoint } = values;
  if (kind === 'exchange') return { once, stage, endpoint, ...exchangeOptions(values) };
  if (values.config) {
    const config = botsOfConfig(values.config);
    return { bots: config.bots, once, stage: stage ?? config.stage, endpoint: endpoint ?? config.endpoint };
  }
  for (const flag of ['url', 'username', 'account'] as const) if (!values[flag]) fail(`--${flag} is required (or --config FILE)`);
  const password = passwordOf({ password: values.password, passwordFile: values['password-file'], passwordEnv: 'FREQTRADE_PASSWORD' });
  if (password === undefined) fail('no password: set FREQTRADE_PASSWORD, or give --password-file FILE');
  const bot = botOf({ ...values, stallSeconds: values['stall-after'] }, password, (field) =>
    field === 'interval' ? '--interval' : field === 'name' ? '--name' : '--stall-after',
  );
  return { bots: [bot], once, stage, endpoint };
}

/** The flags each kind of bot takes, beside --config, --once, --stage and --endpoint. */
const KIND_FLAGS = {
  freqtrade: ['url', 'username', 'password', 'password-file', 'account', 'interval', 'stall-after', 'name'],
  hummingbot: ['mqtt', 'namespace', 'username', 'password-file', 'client-id', 'state', 'csv', 'account', 'name'],
  exchange: ['exchange', 'quote', 'symbols', 'key-file', 'secret-file', 'reconcile-with', 'since', 'account', 'url', 'interval', 'name'],
} as const;

/** A display name as given (--name, "name"): some text, of a length a table column can show. */
function displayName(value: unknown, what: string): string {
  if (typeof value !== 'string' || !value.trim() || value.length > 100) fail(`${what} must be a name of 1 to 100 characters`);
  return value.trim();
}

/** The exchange feed's accounts: the flags for one, or the config file's (and where it writes, if it says). */
function exchangeOptions(values: Record<string, string | boolean | string[] | undefined>) {
  try {
    if (values.config) {
      const file = values.config as string;
      const parsed = readConfig<{ stage?: string; endpoint?: string }>(file);
      return {
        accounts: feedAccountsOf(parsed, file, SECRETS),
        stage: (values.stage as string | undefined) ?? parsed.stage,
        endpoint: (values.endpoint as string | undefined) ?? parsed.endpoint,
      };
    }
    if (!values.exchange || !values.account) fail('--exchange and --account are required (or --config FILE)');
    const account: FeedAccount = feedAccountOf(
      {
        exchange: values.exchange,
        account: values.account,
        quote: values.quote,
        symbols: ((values.symbols as string[] | undefined) ?? []).flatMap((list) => list.split(',')).filter(Boolean),
        name: values.name,
        reconcileWith: values['reconcile-with'],
        since: values.since,
        url: values.url,
        interval: values.interval,
        ...(values['key-file'] ? { keyFile: values['key-file'] } : { keyEnv: 'EXCHANGE_API_KEY' }),
        ...(values['secret-file'] ? { secretFile: values['secret-file'] } : { secretEnv: 'EXCHANGE_API_SECRET' }),
      },
      'the command line',
      SECRETS,
    );
    return { accounts: [account] };
  } catch (error) {
    if (error instanceof ConfigError)
      fail(
        error.message
          .replace(/^the command line(\.| )/, '')
          .replace('keyEnv names EXCHANGE_API_KEY, which is not set', 'no key: set EXCHANGE_API_KEY, or give --key-file FILE')
          .replace(
            'secretEnv names EXCHANGE_API_SECRET, which is not set',
            'no secret: set EXCHANGE_API_SECRET, or give --secret-file FILE',
          ),
      );
    throw error;
  }
}

/** The exchange feed's accounts, scheduled; a reconciliation's differences also go to the alert channels, if any. */
async function exchangeFeeds(
  options: { accounts?: FeedAccount[]; stage?: string; endpoint?: string },
  writer: Writer,
  signal: AbortSignal,
  report: (line: string) => void,
) {
  // A stage's own channels are read only for a deployed stage (no --endpoint: its database is AWS's).
  const alert = await reconciliationAlerts(options.endpoint ? undefined : options.stage, report);
  return (options.accounts ?? []).map((account): Scheduled => {
    const feed = new ExchangeFeed(account, writer, { report, signal, alert });
    return { bridge: feed, intervalMs: account.intervalSeconds * 1000, source: feed.source };
  });
}

/**
 * What a reconciliation found first, sent to the alert channels configured here (the ALERT_* variables, and a
 * stage's secret and parameters), one `reconciliation` event per difference; nothing when none is configured (the
 * differences are printed either way).
 */
async function reconciliationAlerts(stage: string | undefined, report: (line: string) => void) {
  const { channels, problems } = await configuredChannels(process.env, { stage });
  for (const problem of problems) report(`alerts: ${problem}`);
  if (!channels.length) return undefined;
  return async (found: { accountId: string; exchangeAccountId: string; checkedAt: string; fresh: Difference[] }) => {
    const events = found.fresh.map((difference) => reconciliationEvent({ ...found, difference }, stage ?? 'local'));
    for (const { channel, failed } of await deliverAlerts(events, channels))
      if (failed.length) report(`alerts: ${channel} did not take ${failed.length} reconciliation alerts: ${failed[0].reason}`);
  };
}

/** The hummingbot bridge's settings: the command line over the config file. */
function hummingbotOptions(values: Record<string, string | boolean | string[] | undefined>) {
  const text = (flag: string) => values[flag] as string | undefined;
  const file = text('config');
  // Without a file, the config's defaults (config.ts): an empty config is valid.
  let config: HummingbotConfig;
  try {
    config = configOf(file ? JSON.parse(readFileSync(file, 'utf8')) : {}, file ?? '');
  } catch (error) {
    fail(`cannot read the config ${file}: ${(error as Error).message}`);
  }
  const csv = text('csv');
  const mqtt = text('mqtt') ?? (csv ? undefined : config.mqtt);
  if (csv && text('mqtt')) fail('--csv and --mqtt are two ways in: give one');
  if (!csv && !mqtt) fail('--mqtt mqtt://HOST:1883 is required (or "mqtt" in the config, or --csv FILE for a bot without a broker)');
  if (csv && !text('account')) fail('--account ID is required with --csv: the account the trades file is mirrored into');
  if (!csv && text('account')) fail('--account is for --csv; map MQTT instances to accounts in the config ("instances")');
  if (!csv && values.once) fail('--once is for --csv: MQTT messages keep coming');
  if (mqtt) {
    if (!URL.canParse(mqtt)) fail(`--mqtt ${JSON.stringify(mqtt)} is not a URL such as mqtt://127.0.0.1:1883`);
    const url = new URL(mqtt);
    if (!['mqtt:', 'mqtts:', 'ws:', 'wss:', 'tcp:'].includes(url.protocol))
      fail(`--mqtt must be an mqtt://, mqtts://, ws:// or wss:// URL`);
    if (url.password) fail('no password in the URL: set HUMMINGBOT_MQTT_PASSWORD, or give --password-file FILE');
  }
  const username = text('username') ?? config.username;
  const passwordFile = text('password-file') ?? config.passwordFile;
  const password = passwordOf({ passwordFile, passwordEnv: config.passwordEnv ?? 'HUMMINGBOT_MQTT_PASSWORD' });
  if (password === undefined && config.passwordEnv) fail(`the config's passwordEnv names ${config.passwordEnv}, which is not set`);
  if (username && password === undefined && mqtt) fail('no password: set HUMMINGBOT_MQTT_PASSWORD, or give --password-file FILE');
  const stage = text('stage') ?? config.stage ?? 'local';
  const namespace = (text('namespace') ?? config.namespace ?? 'hbot').replace(/[/.]$/, '');
  const account = text('account');
  // The instance whose profile the config gives the account, or the account itself.
  const instance = account
    ? (Object.entries(config.instances).find(([, profile]) => profile.account === account)?.[0] ?? account)
    : undefined;
  // --name names the one bot of a trades file; over MQTT each instance is named in the config ("instances").
  if (text('name') !== undefined) {
    if (!instance) fail('--name is for --csv (one bot); name MQTT instances in the config ("instances": {"ID": {"name": ...}})');
    config = {
      ...config,
      instances: { ...config.instances, [instance]: { ...config.instances[instance], name: displayName(text('name'), '--name') } },
    };
  }
  const state =
    text('state') ??
    config.state ??
    join('.data', 'hummingbot', csv ? `${stage}-csv-${account}.json` : `${stage}-${namespace.replaceAll('/', '_')}.json`);
  return {
    config,
    mqtt,
    csv,
    instance,
    namespace,
    username,
    password,
    clientId: text('client-id'),
    state,
    once: values.once === true,
    stage: text('stage') ?? config.stage,
    endpoint: text('endpoint') ?? config.endpoint,
  };
}

async function hummingbot(options: ReturnType<typeof hummingbotOptions>, writer: Writer, stop: AbortSignal): Promise<void> {
  const report = (line: string) => console.log(line);
  let bridge: HummingbotBridge | undefined;
  try {
    bridge = await HummingbotBridge.open({
      writer,
      namespace: options.namespace,
      config: options.config,
      stateFile: options.state,
      report,
    });
    if (options.csv) {
      report(`bridge ${options.csv}: following it into account ${options.instance}${options.once ? ' (to its end)' : ''}`);
      await followTradesFile(options.csv, options.instance!, bridge, { follow: !options.once, signal: stop, report });
    } else {
      const opened = bridge;
      // The broker's settings (namespace, username, password, client id) as the command line and config give them.
      await listenToBroker({
        ...options,
        url: options.mqtt!,
        signal: stop,
        report,
        onMessage: (topic, payload) => opened.receive(topic, payload),
      });
    }
  } finally {
    await bridge?.close();
  }
  const wrote = bridge?.accounts ?? [];
  report(
    `bridge ${options.once ? 'read to the end' : 'stopped'}: wrote ${wrote.length ? wrote.join(', ') : 'no account'}` +
      `${bridge?.replayedFills ? `; ${bridge.replayedFills} fills given again, written once` : ''}`,
  );
}

async function main() {
  const options = parse();
  const writer = await targetWriter(options);
  const signal = stopSignal();
  try {
    if (options.hummingbot) return await hummingbot(options.hummingbot, writer, signal);
    const report = (line: string) => console.log(`bridge ${line}`);
    const scheduled: Scheduled[] = options.bots
      ? options.bots.map((bot) => ({
          bridge: new FreqtradeBridge({
            client: freqtradeClient(bot),
            writer,
            account: bot.account,
            stallSeconds: bot.stallSeconds,
            name: bot.name,
          }),
          intervalMs: bot.intervalSeconds * 1000,
          source: `freqtrade at ${bot.url}`,
        }))
      : await exchangeFeeds(options, writer, signal, report);
    process.exitCode = (await runBridges(scheduled, { once: options.once, signal, report })) ? 0 : 1;
  } finally {
    writer.close();
  }
}

runCommand('bridge', main, { text: (error) => failureText(error) });
