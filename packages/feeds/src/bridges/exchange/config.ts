/**
 * The exchange feed's accounts as the command gives them (flags for one, or a config file for several, as the other
 * bridges): each an exchange account, the API account it is mirrored into, and where its key and secret are read
 * from (a file or an environment variable: never the command line, where `ps` shows them). Pure but for the reads
 * of those files and variables, which the caller passes in.
 */
import { isAccountId } from '@trading-bot-api/writer';
import { binance } from './binance';
import type { ExchangeProfile } from './profile';

/** One exchange account mirrored into one account of the API. */
interface ExchangeAccount {
  /** The API's account. */
  account: string;
  name: string;
  /** The account's currency: the quote its markets are followed in and its holdings valued in. */
  quote: string;
  /** Markets to follow besides those found (ccxt's `BTC/USDT`, or `BTC_USDT`). */
  symbols: readonly string[];
  /** The account of the bot that trades on this exchange account: its trades' markets are followed too. */
  reconcileWith?: string;
  /** Where the history of transfers starts (ISO 8601). */
  since: string;
  environment: 'live' | 'paper';
}

/** One account ready to sync: its settings, the exchange, its key and secret, the origin and the interval. */
export interface FeedAccount extends FeedKeys {
  profile: ExchangeProfile;
  config: ExchangeAccount;
  url?: string;
  intervalSeconds: number;
}

/** The exchanges the feed mirrors, by the name the commands give them (`--exchange binance`). */
const PROFILES: Readonly<Record<string, ExchangeProfile>> = { binance };

/** Seconds between two syncs by default: Binance's fills are read once a minute at a cost of 20 weight a market. */
const DEFAULT_INTERVAL = 60;
const DEFAULT_QUOTE = 'USDT';

/** A setting the feed cannot take, with where it was given. */
export class ConfigError extends Error {}

/** Where secrets come from: a file's text (its last newline dropped), an environment variable. */
export interface SecretSources {
  readFile(file: string): string;
  env: Readonly<Record<string, string | undefined>>;
}

type Entry = Record<string, unknown>;

function text(entry: Entry, field: string, where: string, required = false): string | undefined {
  const value = entry[field];
  if (value === undefined || value === null) {
    if (required) throw new ConfigError(`${where}.${field} is required (a string)`);
    return undefined;
  }
  if (typeof value !== 'string' || !value) throw new ConfigError(`${where}.${field} must be a non-empty string`);
  return value;
}

function secretOf(entry: Entry, which: 'key' | 'secret', where: string, sources: SecretSources): string {
  const file = text(entry, `${which}File`, where);
  const env = text(entry, `${which}Env`, where);
  if (entry[which] !== undefined) throw new ConfigError(`${where}: give "${which}File" or "${which}Env", never the ${which} itself`);
  if (file && env) throw new ConfigError(`${where}: give one of "${which}File" and "${which}Env"`);
  if (file) {
    let value: string;
    try {
      value = sources.readFile(file);
    } catch (error) {
      throw new ConfigError(
        `${where}: cannot read the ${which} file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    if (!value) throw new ConfigError(`${where}: the ${which} file ${file} is empty`);
    return value;
  }
  if (env) {
    const value = sources.env[env];
    if (!value) throw new ConfigError(`${where}: ${which}Env names ${env}, which is not set`);
    return value;
  }
  throw new ConfigError(`${where}: give "${which}File" or "${which}Env"`);
}

/** An account's key and secret as a store of secrets holds them (a scheduled feed's: scheduled.ts). */
export interface FeedKeys {
  apiKey: string;
  secret: string;
}

/**
 * One account of the config file (or of the flags, turned into the same shape), checked; its key and secret read
 * from the files or variables it names, or given (`keys`, when the entry names none).
 */
export function feedAccountOf(entry: Entry, where: string, sources: SecretSources | { keys: FeedKeys }): FeedAccount {
  const exchange = text(entry, 'exchange', where, true)!;
  const profile = PROFILES[exchange];
  if (!profile)
    throw new ConfigError(
      `${where}.exchange ${JSON.stringify(exchange)} is not one the feed mirrors (${Object.keys(PROFILES).join(', ')})`,
    );
  const account = text(entry, 'account', where, true)!;
  if (!isAccountId(account))
    throw new ConfigError(`${where}.account ${JSON.stringify(account)} is not an account id (1–64 letters, digits, ".", "_" or "-")`);
  const quote = text(entry, 'quote', where) ?? DEFAULT_QUOTE;
  if (!/^[A-Z0-9]{2,12}$/.test(quote)) throw new ConfigError(`${where}.quote must be a currency code such as USDT`);
  const reconcileWith = text(entry, 'reconcileWith', where);
  if (reconcileWith !== undefined && !isAccountId(reconcileWith)) throw new ConfigError(`${where}.reconcileWith is not an account id`);
  if (reconcileWith === account) throw new ConfigError(`${where}.reconcileWith names the feed's own account`);
  const symbols = entry.symbols ?? [];
  if (!Array.isArray(symbols) || symbols.some((symbol) => typeof symbol !== 'string'))
    throw new ConfigError(`${where}.symbols must be a list of markets such as "BTC/USDT"`);
  const since = text(entry, 'since', where) ?? profile.historyStart;
  if (!Number.isFinite(Date.parse(since))) throw new ConfigError(`${where}.since ${JSON.stringify(since)} is not a date`);
  const url = text(entry, 'url', where);
  if (url !== undefined && !URL.canParse(url)) throw new ConfigError(`${where}.url ${JSON.stringify(url)} is not a URL`);
  const parsed = url === undefined ? undefined : new URL(url);
  if (parsed && (!['http:', 'https:'].includes(parsed.protocol) || parsed.pathname !== '/' || parsed.username || parsed.password))
    throw new ConfigError(`${where}.url must be an origin only, such as https://testnet.binance.vision`);
  const interval = entry.interval ?? DEFAULT_INTERVAL;
  const intervalSeconds = typeof interval === 'string' ? Number(interval) : interval;
  if (typeof intervalSeconds !== 'number' || !Number.isFinite(intervalSeconds) || intervalSeconds <= 0)
    throw new ConfigError(`${where}.interval must be a number of seconds above 0`);
  return {
    profile,
    config: {
      account,
      name: text(entry, 'name', where) ?? `${profile.name} ${account}`,
      quote,
      symbols: symbols as string[],
      reconcileWith,
      since: new Date(since).toISOString(),
      // A testnet's or a fake's money is not real.
      environment: url === undefined ? 'live' : 'paper',
    },
    ...('keys' in sources
      ? givenKeys(entry, where, sources.keys)
      : { apiKey: secretOf(entry, 'key', where, sources), secret: secretOf(entry, 'secret', where, sources) }),
    url: url?.replace(/\/$/, ''),
    intervalSeconds,
  };
}

function givenKeys(entry: Entry, where: string, keys: FeedKeys): FeedKeys {
  for (const field of ['key', 'secret', 'keyFile', 'secretFile', 'keyEnv', 'secretEnv'])
    if (entry[field] !== undefined) throw new ConfigError(`${where}: "${field}" is not taken here: the key and secret are in the secret`);
  if (typeof keys?.apiKey !== 'string' || !keys.apiKey || typeof keys.secret !== 'string' || !keys.secret)
    throw new ConfigError(`${where}: the secret holds no "apiKey" and "secret" for this account`);
  return { apiKey: keys.apiKey, secret: keys.secret };
}

/** Every account of a config file (`{"accounts": [...]}`), each account once. */
export function feedAccountsOf(parsed: unknown, file: string, sources: SecretSources): FeedAccount[] {
  const accounts = (parsed as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(accounts) || !accounts.length) throw new ConfigError(`${file}: "accounts" must be a list of exchange accounts`);
  return accountListOf(accounts, `${file}: accounts`, () => sources);
}

/** Each entry of the list named `list` (a config file's, EXCHANGE_FEEDS) as an account, each account once. */
export function accountListOf(entries: unknown[], list: string, sourcesOf: (entry: Entry) => SecretSources | { keys: FeedKeys }) {
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const where = `${list}[${index}]`;
    if (!entry || typeof entry !== 'object') throw new ConfigError(`${where} must be an object`);
    const account = feedAccountOf(entry as Entry, where, sourcesOf(entry as Entry));
    if (seen.has(account.config.account))
      throw new ConfigError(`${where}: account ${account.config.account} is given twice; one exchange account each`);
    seen.add(account.config.account);
    return account;
  });
}
