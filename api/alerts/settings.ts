/**
 * Which channels are configured, from the ALERT_* variables. Each variable is read, first found wins, from:
 *
 * 1. the environment (`ALERT_TELEGRAM_BOT_TOKEN=...`), for `npm start` and the commands;
 * 2. a file named by `<NAME>_FILE` (its content, trimmed), so that a secret need not sit in a shell's history;
 * 3. deployed, the Secrets Manager secret named by ALERT_SECRET_ID, a JSON object of the variables;
 * 4. deployed, the SSM parameters under ALERT_PARAMETERS_PATH, one per variable, named by it (SecureString).
 *
 * The same sources hold the P&L alerts' rules (ALERT_DAILY_LOSS, ALERT_DRAWDOWN, ALERT_TRADE_CLOSED: pnl.ts), which
 * the probe reads. The template holds only the secret's name and the parameters' path (serverless.yml); the values
 * are read at run time (remote.ts), so a rotated token or a changed limit needs no deploy. Any subset of channels may be configured; one with a part
 * missing (a Telegram token without its chat) is reported and left off, never half-used.
 */
import { readFileSync } from 'node:fs';
import { type Channel, discordChannel, slackChannel, telegramChannel, webhookChannel } from './channels';
import { PNL_VARIABLES } from './pnl';

const ALERT_VARIABLES = [
  'ALERT_TELEGRAM_BOT_TOKEN',
  'ALERT_TELEGRAM_CHAT_ID',
  'ALERT_TELEGRAM_API_URL',
  'ALERT_DISCORD_WEBHOOK_URL',
  'ALERT_SLACK_WEBHOOK_URL',
  'ALERT_WEBHOOK_URL',
  ...PNL_VARIABLES,
] as const;

type AlertVariable = (typeof ALERT_VARIABLES)[number];

export type AlertValues = Partial<Record<AlertVariable, string>>;

const TELEGRAM_API_URL = 'https://api.telegram.org';

type Env = Record<string, string | undefined>;

/** The variables that name a channel (not the Telegram API's address, nor the P&L rules, which say what to send). */
export const CHANNEL_VARIABLES = ALERT_VARIABLES.filter(
  (name) => name !== 'ALERT_TELEGRAM_API_URL' && !(PNL_VARIABLES as readonly string[]).includes(name),
);

/** True when a channel's variable (or its `_FILE`) is set: `npm start` then sends from its probe. */
export function alertsRequested(env: Env): boolean {
  return CHANNEL_VARIABLES.some((name) => env[name] || env[`${name}_FILE`]);
}

/**
 * The variables from the environment and from `_FILE`s; a named file that cannot be read is an error naming the
 * variable and the file (never its content).
 */
export function localAlertValues(env: Env): AlertValues {
  const values: AlertValues = {};
  for (const name of ALERT_VARIABLES) {
    const direct = env[name];
    const file = env[`${name}_FILE`];
    if (direct) values[name] = direct.trim();
    else if (file) {
      try {
        values[name] = readFileSync(file, 'utf8').trim();
      } catch (error) {
        throw new Error(`alerts: ${name}_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
  }
  return values;
}

/**
 * Only the known variables, as trimmed strings, from the sources in order (the local values, a secret's JSON, SSM's
 * parameters): each from the first source with a value for it.
 */
export function mergeAlertValues(...sources: Record<string, unknown>[]): AlertValues {
  const merged: AlertValues = {};
  for (const name of ALERT_VARIABLES) {
    const found = sources.map((source) => source[name]).find((value) => typeof value === 'string' && value.trim());
    if (found !== undefined) merged[name] = (found as string).trim();
  }
  return merged;
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${name} must be an http(s) URL`);
  return value;
}

/**
 * The channels the values configure, and a line for each that is configured wrong (named by variable, never with
 * its value); those are left off.
 */
export function channelsOf(values: AlertValues): { channels: Channel[]; problems: string[] } {
  const channels: Channel[] = [];
  const problems: string[] = [];
  const attempt = (build: () => Channel) => {
    try {
      channels.push(build());
    } catch (error) {
      problems.push(`alerts: ${(error as Error).message}`);
    }
  };
  const token = values.ALERT_TELEGRAM_BOT_TOKEN;
  const chatId = values.ALERT_TELEGRAM_CHAT_ID;
  if (token || chatId) {
    attempt(() => {
      if (!token) throw new Error('telegram is off: ALERT_TELEGRAM_CHAT_ID is set but ALERT_TELEGRAM_BOT_TOKEN is not');
      if (!chatId) throw new Error('telegram is off: ALERT_TELEGRAM_BOT_TOKEN is set but ALERT_TELEGRAM_CHAT_ID is not');
      if (!/^\d+:[\w-]+$/.test(token))
        throw new Error('telegram is off: ALERT_TELEGRAM_BOT_TOKEN is not a bot token (digits, a colon, then letters)');
      const apiUrl = httpUrl('ALERT_TELEGRAM_API_URL', values.ALERT_TELEGRAM_API_URL ?? TELEGRAM_API_URL);
      return telegramChannel({ token, chatId, apiUrl });
    });
  }
  const discord = values.ALERT_DISCORD_WEBHOOK_URL;
  if (discord) attempt(() => discordChannel({ webhookUrl: httpUrl('discord is off: ALERT_DISCORD_WEBHOOK_URL', discord) }));
  const slack = values.ALERT_SLACK_WEBHOOK_URL;
  if (slack) attempt(() => slackChannel({ webhookUrl: httpUrl('slack is off: ALERT_SLACK_WEBHOOK_URL', slack) }));
  const webhook = values.ALERT_WEBHOOK_URL;
  if (webhook) attempt(() => webhookChannel({ url: httpUrl('webhook is off: ALERT_WEBHOOK_URL', webhook) }));
  return { channels, problems };
}
