/**
 * The hummingbot bridge's configuration (pure: checks a parsed JSON file). hummingbot's messages do not say which
 * account an instance is, in which currency, at which broker, nor whether it trades for real: the file does.
 *
 *   {
 *     "mqtt": "mqtt://10.0.0.5:1883", "namespace": "hbot", "username": "tba", "passwordFile": "/etc/tba/mqtt.password",
 *     "instances": {
 *       "pmm-btc": { "account": "hb-pmm", "name": "PMM BTC", "currency": "USDT", "broker": "binance",
 *                    "environment": "live", "controllers": { "pmm_simple_1": "BTC-USDT" } }
 *     },
 *     "discover": true, "feeRates": { "BNB": "612.5" }, "state": "/var/lib/tba/hummingbot.json"
 *   }
 *
 * Every key is optional. An instance not listed is mirrored into the account of its own id (unless `discover` is
 * false), named after it, at broker `hummingbot`, `live`, in the quote currency of its first fill.
 */
import { isAccountId, isDecimal } from '@trading-bot-api/writer';
import { pairOf } from './messages';

export interface InstanceProfile {
  account: string;
  name: string;
  /** Undefined: the quote currency of the instance's first fill. */
  currency?: string;
  broker: string;
  environment: 'live' | 'paper';
  /** A v2 controller's trading pair (`BTC-USDT`), for its unrealized P&L when the instance holds several positions. */
  controllers: Record<string, string>;
}

export interface HummingbotConfig {
  mqtt?: string;
  namespace?: string;
  username?: string;
  passwordFile?: string;
  passwordEnv?: string;
  stage?: string;
  endpoint?: string;
  state?: string;
  discover: boolean;
  /** The value of one token in the quote currency, for flat fees paid in a token that is neither base nor quote. */
  feeRates: Record<string, string>;
  /** Seconds between two writes of an instance's unrealized P&L (hummingbot sends it every second). */
  marksSeconds: number;
  /** Seconds after hummingbot's last ERROR log before a bot that goes on beating is running again. */
  errorSeconds: number;
  instances: Record<string, Partial<InstanceProfile>>;
}

const CURRENCY = /^[A-Z0-9]{2,12}$/;
const TEXT_KEYS = ['mqtt', 'namespace', 'username', 'passwordFile', 'passwordEnv', 'stage', 'endpoint', 'state'] as const;

/** The checked configuration, or an Error naming the first thing wrong (with `where`, the file). */
export function configOf(value: unknown, where: string): HummingbotConfig {
  const fail = (message: string): never => {
    throw new Error(`${where}: ${message}`);
  };
  if (!value || typeof value !== 'object' || Array.isArray(value)) fail('must be a JSON object');
  const input = value as Record<string, unknown>;
  const known = new Set([...TEXT_KEYS, 'discover', 'feeRates', 'marksSeconds', 'errorSeconds', 'instances', 'password']);
  for (const key of Object.keys(input)) if (!known.has(key)) fail(`unknown key "${key}"`);
  // A password in the file would sit beside settings anyone may read: it goes in its own file or the environment.
  if (input.password !== undefined) fail('give the password as "passwordFile" or "passwordEnv", not in the file itself');
  const config: HummingbotConfig = { discover: true, feeRates: {}, marksSeconds: 30, errorSeconds: 300, instances: {} };
  for (const key of TEXT_KEYS) {
    if (input[key] === undefined) continue;
    if (typeof input[key] !== 'string' || !input[key]) fail(`"${key}" must be a text`);
    config[key] = input[key] as string;
  }
  if (input.discover !== undefined) {
    if (typeof input.discover !== 'boolean') fail('"discover" must be true or false');
    config.discover = input.discover as boolean;
  }
  for (const key of ['marksSeconds', 'errorSeconds'] as const) {
    if (input[key] === undefined) continue;
    if (typeof input[key] !== 'number' || !Number.isFinite(input[key]) || (input[key] as number) < 0)
      fail(`"${key}" must be a number of seconds, 0 or more`);
    config[key] = input[key] as number;
  }
  if (input.feeRates !== undefined) {
    if (!input.feeRates || typeof input.feeRates !== 'object' || Array.isArray(input.feeRates)) fail('"feeRates" must be an object');
    for (const [token, rate] of Object.entries(input.feeRates as Record<string, unknown>)) {
      if (!isDecimal(rate) || rate.startsWith('-')) fail(`feeRates.${token} must be a decimal string such as "612.5"`);
      config.feeRates[token.toUpperCase()] = rate as string;
    }
  }
  if (input.instances !== undefined) {
    if (!input.instances || typeof input.instances !== 'object' || Array.isArray(input.instances)) fail('"instances" must be an object');
    const accounts = new Map<string, string>();
    for (const [instance, raw] of Object.entries(input.instances as Record<string, unknown>)) {
      const at = `instances["${instance}"]`;
      if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail(`${at} must be an object`);
      const profile = raw as Record<string, unknown>;
      for (const key of Object.keys(profile))
        if (!['account', 'name', 'currency', 'broker', 'environment', 'controllers'].includes(key)) fail(`${at}: unknown key "${key}"`);
      const account = profile.account ?? instance;
      if (typeof account !== 'string' || !isAccountId(account))
        fail(`${at}.account must be 1–64 letters, digits, ".", "_" or "-" (the instance id is not one: give "account")`);
      const other = accounts.get(account as string);
      if (other !== undefined) fail(`${at}: account ${account} is given to instance ${other} too; one account each`);
      accounts.set(account as string, instance);
      for (const key of ['name', 'broker'] as const)
        if (profile[key] !== undefined && (typeof profile[key] !== 'string' || !profile[key])) fail(`${at}.${key} must be a text`);
      if (profile.currency !== undefined && (typeof profile.currency !== 'string' || !CURRENCY.test(profile.currency)))
        fail(`${at}.currency must be a currency code such as "USDT"`);
      if (profile.environment !== undefined && profile.environment !== 'live' && profile.environment !== 'paper')
        fail(`${at}.environment must be "live" or "paper"`);
      const controllers: Record<string, string> = {};
      if (profile.controllers !== undefined) {
        if (!profile.controllers || typeof profile.controllers !== 'object' || Array.isArray(profile.controllers))
          fail(`${at}.controllers must be an object of controller id to trading pair`);
        for (const [controller, pair] of Object.entries(profile.controllers as Record<string, unknown>)) {
          if (typeof pair !== 'string' || !pairOf(pair)) fail(`${at}.controllers.${controller} must be a trading pair such as "BTC-USDT"`);
          controllers[controller] = pair as string;
        }
      }
      // Every key checked above: the profile as given, its account and controllers as read.
      config.instances[instance] = { ...(profile as Partial<InstanceProfile>), account: account as string, controllers };
    }
  }
  return config;
}

/** The profile of `instance`: the configuration's, or the defaults (see the module's comment). */
export function profileOf(config: Pick<HummingbotConfig, 'instances'>, instance: string): InstanceProfile {
  const given = config.instances[instance] ?? {};
  return {
    account: given.account ?? instance,
    name: given.name ?? `hummingbot ${instance}`,
    currency: given.currency,
    broker: given.broker ?? 'hummingbot',
    environment: given.environment ?? 'live',
    controllers: given.controllers ?? {},
  };
}
