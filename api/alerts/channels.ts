/**
 * The four channels, each as its service speaks: what request carries a message, and what the answer means (sent,
 * wait this long, try again, or give up and why). Pure: delivery.ts does the sending, retrying and waiting.
 *
 * - Telegram: Bot API `sendMessage` (`{ ok, result }`, or `{ ok: false, error_code, description, parameters }`,
 *   `parameters.retry_after` in seconds on 429); 4,096 characters of text after entities are parsed.
 * - Discord: execute webhook with `?wait=true` (200 with the message once posted); `content` at most 2,000
 *   characters; 429 with `retry_after` (seconds, fractional) in the JSON body and a `Retry-After` header.
 * - Slack: incoming webhook, `text` with one `section` block (whose text is at most 3,000 characters); `ok` as the
 *   body, otherwise a short error word (`invalid_payload`, `no_service`, ...); 429 with `Retry-After`.
 * - Webhook: the AlertEvent as JSON (webhook.schema.json), whole; any 2xx; 429 with `Retry-After`.
 *
 * Messages longer than a channel's limit are split at line ends into parts numbered `(1/2)`, each within the limit,
 * so a long digest arrives whole; a single line longer than the limit is cut, ending in `…`. Discord and Slack count
 * their markup, so their text is split once escaped; Telegram counts the text once its HTML is parsed, so its text
 * is split before. Lengths are counted in
 * UTF-16 code units, which is what Telegram counts and never less than the characters Discord and Slack count.
 * No message can mention everyone or run a command: Discord's `allowed_mentions` is empty, Slack's and Telegram's
 * markup is escaped, and no channel is ever read from: this product only speaks.
 */
import type { AlertEvent } from './events';

const CHANNEL_NAMES = ['telegram', 'discord', 'slack', 'webhook'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What a service's answer means. */
export type Verdict =
  | { kind: 'sent' }
  | { kind: 'wait'; seconds: number; reason: string }
  | { kind: 'retry'; reason: string }
  | { kind: 'fail'; reason: string };

export interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

export interface Channel {
  name: ChannelName;
  /** The requests that carry `event`: one per part of its text. */
  requests(event: AlertEvent): OutgoingRequest[];
  judge(answer: Answer): Verdict;
  /**
   * Values that must never appear in a log line: tokens, and each URL whole, its path and query, and its path (a
   * service may quote any of them). Removed from a service's answer before it is read or cut, and from every reason.
   */
  secrets: string[];
}

/** A POST of `body` as JSON to `url`. */
const post = (url: string, body: unknown): OutgoingRequest => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** Room kept at the end of a part for its number, `\n(12/12)`. */
const PART_MARK_ROOM = 10;

/** `text` in parts of at most `limit` code units, split at line ends, numbered when more than one. */
export function splitText(text: string, limit: number): string[] {
  if (text.length <= limit) return [text];
  const room = limit - PART_MARK_ROOM;
  const parts: string[] = [];
  let current = '';
  for (const whole of text.split('\n')) {
    const line = whole.length > room ? cut(whole, room) : whole;
    const joined = current === '' ? line : `${current}\n${line}`;
    if (joined.length <= room) {
      current = joined;
      continue;
    }
    parts.push(current);
    current = line;
  }
  parts.push(current);
  return parts.map((part, i) => `${part}\n(${i + 1}/${parts.length})`);
}

/** The first `room` code units of `line`, ending in `…`, never splitting a surrogate pair. */
function cut(line: string, room: number): string {
  let end = room - 1;
  const code = line.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${line.slice(0, end)}…`;
}

const URL_IN_TEXT = /(https?:\/\/\S+)/;

/** Escapes the text around URLs with `escapePlain`, leaving URLs whole so that the apps still link them. */
function escapeOutsideUrls(text: string, escapePlain: (plain: string) => string): string {
  return text
    .split(URL_IN_TEXT)
    .map((piece, i) => (i % 2 === 1 ? piece : escapePlain(piece)))
    .join('');
}

/** Seconds from a `Retry-After` header (seconds, or an HTTP date). */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const raw = headers.get('retry-after');
  if (raw === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Number(raw);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

function parseJson(body: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body);
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A short, printable excerpt of what a service answered. */
function excerpt(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** The verdict every service shares for statuses it does not explain otherwise. */
function byStatus(answer: Answer, reason: string, waitSeconds?: number): Verdict {
  if (answer.status >= 200 && answer.status < 300) return { kind: 'sent' };
  if (answer.status === 429) return { kind: 'wait', seconds: waitSeconds ?? retryAfterSeconds(answer.headers) ?? 1, reason };
  if (answer.status >= 500 || answer.status === 408) return { kind: 'retry', reason };
  return { kind: 'fail', reason };
}

/** Telegram's HTML and Slack's mrkdwn escape the same three characters. */
const escapeHtml = (plain: string) => plain.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Telegram: the first line of the first part in bold (HTML parse mode; the tags do not count toward the limit). */
export function telegramChannel(options: { token: string; chatId: string; apiUrl: string }): Channel {
  const url = `${options.apiUrl.replace(/\/+$/, '')}/bot${options.token}/sendMessage`;
  return {
    name: 'telegram',
    secrets: [options.token, ...urlSecrets(url)],
    requests: (event) =>
      splitText(event.text, 4096).map((part, i) => {
        const html = i === 0 ? marked(part, escapeHtml, '<b>', '</b>') : escapeHtml(part);
        return post(url, { chat_id: options.chatId, text: html, parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
      }),
    judge: (answer) => {
      const body = parseJson(answer.body);
      if (answer.status === 200 && body?.ok === true) return { kind: 'sent' };
      const description = typeof body?.description === 'string' ? body.description : excerpt(answer.body);
      const retryAfter = (body?.parameters as { retry_after?: unknown } | undefined)?.retry_after;
      const reason = `HTTP ${answer.status}: ${description}`;
      if (answer.status === 200) return { kind: 'fail', reason: `unexpected answer: ${excerpt(answer.body)}` };
      return byStatus(answer, reason, typeof retryAfter === 'number' ? retryAfter : undefined);
    },
  };
}

const escapeDiscord = (plain: string) => plain.replace(/([\\*_~`|[\]])/g, '\\$1');

/** A line of Discord markdown: its specials escaped, and a quote, heading or list mark at its start too. */
const discordLine = (line: string) => escapeOutsideUrls(line, escapeDiscord).replace(/^([>#-])/, '\\$1');

/** The event's text in a markup, its first line (the title) in bold (Discord and Slack count the markup toward their limits). */
function marked(text: string, escapeLine: (line: string) => string, open: string, close = open): string {
  const [first, ...rest] = text.split('\n');
  return [`${open}${escapeLine(first)}${close}`, ...rest.map(escapeLine)].join('\n');
}

/** Discord: the title in bold; no mention is ever resolved (`allowed_mentions.parse` empty). */
export function discordChannel(options: { webhookUrl: string }): Channel {
  const target = new URL(options.webhookUrl);
  target.searchParams.set('wait', 'true');
  return {
    name: 'discord',
    secrets: [...urlSecrets(options.webhookUrl), ...urlSecrets(target.toString())],
    requests: (event) =>
      splitText(marked(event.text, discordLine, '**'), 2000).map((content) =>
        post(target.toString(), { content, allowed_mentions: { parse: [] } }),
      ),
    judge: (answer) => {
      const body = parseJson(answer.body);
      const message = typeof body?.message === 'string' ? body.message : excerpt(answer.body);
      const retryAfter = typeof body?.retry_after === 'number' ? body.retry_after : undefined;
      return byStatus(answer, `HTTP ${answer.status}: ${message}`, retryAfter);
    },
  };
}

/** Slack: `text` (the notification's words) and one section block with the title in bold. */
export function slackChannel(options: { webhookUrl: string }): Channel {
  return {
    name: 'slack',
    secrets: urlSecrets(options.webhookUrl),
    requests: (event) =>
      splitText(marked(event.text, escapeHtml, '*'), 3000).map((mrkdwn) =>
        post(options.webhookUrl, { text: mrkdwn, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: mrkdwn } }] }),
      ),
    judge: (answer) => byStatus(answer, `HTTP ${answer.status}: ${excerpt(answer.body) || 'no body'}`),
  };
}

/** The generic webhook: the event as it is, JSON (webhook.schema.json). */
export function webhookChannel(options: { url: string }): Channel {
  return {
    name: 'webhook',
    secrets: urlSecrets(options.url),
    requests: (event) => [post(options.url, event)],
    judge: (answer) => byStatus(answer, `HTTP ${answer.status}${answer.body ? `: ${excerpt(answer.body)}` : ''}`),
  };
}

/**
 * What of `url` must never be logged: the URL whole, its path and query, and its path when it is more than `/` (a
 * webhook's secret is in its path or query; a server's error page may quote the URL, or only its path, as
 * Express's `Cannot POST /hooks/<secret>` does). Each also as JSON that escapes its slashes writes it, and decoded.
 */
function urlSecrets(url: string): string[] {
  const { pathname, search } = new URL(url);
  const forms = [url, `${pathname}${search}`, ...(pathname.length > 1 ? [pathname] : [])];
  const variants = forms.flatMap((form) => [form, form.replaceAll('/', '\\/'), safeDecode(form)]);
  return [...new Set(variants)];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `text` with every secret taken out, the longest first (so a URL goes whole, not around its path). Applied to a
 * service's answer before it is read or cut to an excerpt (a URL cut partway would no longer match), and again to
 * every reason: reasons are logged and thrown, secrets never are.
 */
export function scrub(text: string, secrets: readonly string[]): string {
  let clean = text;
  const longestFirst = [...secrets].sort((a, b) => b.length - a.length);
  for (const secret of longestFirst) if (secret.length >= 4) clean = clean.split(secret).join('[secret]');
  return clean;
}
