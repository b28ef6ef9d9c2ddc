/**
 * Sends events to channels, and says what became of each: the one retry loop of the alerts. Every channel is served
 * at once and on its own, so a failing or slow channel never stops or delays the others; within a channel the
 * events keep their order.
 *
 * - 429: waited out for exactly what the service asked (Telegram's `parameters.retry_after`, Discord's
 *   `retry_after`, a `Retry-After` header), then sent again; a wait longer than 30 s is a failure now
 *   rather than a function timing out.
 * - No answer, 5xx, 408: tried again after 1 s, 2 s, 4 s (`attempts` in all).
 * - Any other refusal (a wrong token, a deleted webhook): not repeated; it would fail the same way.
 * - A channel that failed an event after its retries is not tried for the rest of that batch: its remaining events
 *   fail with the same reason at once, instead of each waiting through the retries again.
 *
 * Reasons are the service's own words with every secret of the channel taken out (from the answer before it is read
 * or cut, and from the reason): tokens, URLs, and their paths and queries never appear, whole or cut short.
 * Waiting goes through `sleep`, which tests replace, so no test waits for real.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type Answer, type Channel, type ChannelName, scrub, type Verdict } from './channels';
import type { AlertEvent } from './events';

export interface DeliveryOptions {
  /** Waits `ms`; tests pass one that records the wait and returns at once. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Tries per message, the first included; the longest rate-limit wait honoured (30 s: well inside the notifier's
 * timeout); per request, 10 s; the first pause before trying again after a transient failure, doubled each time.
 */
const ATTEMPTS = 4;
const MAX_WAIT_SECONDS = 30;
const TIMEOUT_MS = 10_000;
const BACKOFF_MS = 1000;

export interface ChannelReport {
  channel: ChannelName;
  /** Ids of the events the channel took. */
  delivered: string[];
  /** The events it did not, each with why. */
  failed: { eventId: string; type: string; reason: string }[];
  /** Requests sent, retries included. */
  requests: number;
  /** Milliseconds waited on the service's word (429s). */
  waitedMs: number;
}

/** Why a request got no answer, without its URL (which may hold a token): the system's error code. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer in time';
  const code =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message.replace(/\S*:\/\/\S*/g, '')
        : undefined;
  return code ? `could not connect (${code})` : 'could not connect';
}

/** Sends one request until it is taken, refused for good, or out of tries. */
async function send(
  channel: Channel,
  request: { url: string; headers: Record<string, string>; body: string },
  wait: (ms: number) => Promise<void>,
  report: ChannelReport,
): Promise<{ ok: true } | { ok: false; reason: string; channelDown: boolean }> {
  let last: Verdict = { kind: 'retry', reason: 'not sent' };
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    report.requests += 1;
    try {
      const response = await fetch(request.url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'error',
      });
      // Scrubbed before it is read: a reason quotes it, cut to an excerpt, and a secret cut partway would not match.
      const answer: Answer = { status: response.status, headers: response.headers, body: scrub(await response.text(), channel.secrets) };
      last = channel.judge(answer);
    } catch (error) {
      last = { kind: 'retry', reason: networkReason(error) };
    }
    if (last.kind === 'sent') return { ok: true };
    if (last.kind === 'fail') return { ok: false, reason: scrub(last.reason, channel.secrets), channelDown: false };
    if (attempt === ATTEMPTS) break;
    if (last.kind === 'wait') {
      if (last.seconds > MAX_WAIT_SECONDS) {
        const reason = `${last.reason} (asked to wait ${last.seconds} s, more than the ${MAX_WAIT_SECONDS} s waited)`;
        return { ok: false, reason: scrub(reason, channel.secrets), channelDown: true };
      }
      const ms = Math.ceil(last.seconds * 1000);
      report.waitedMs += ms;
      await wait(ms);
    } else {
      await wait(BACKOFF_MS * 2 ** (attempt - 1));
    }
  }
  const reason = 'reason' in last ? last.reason : 'not sent';
  return { ok: false, reason: scrub(`${reason} (after ${ATTEMPTS} tries)`, channel.secrets), channelDown: true };
}

/** Sends `events` in order to one channel. */
async function deliverToChannel(
  channel: Channel,
  events: readonly AlertEvent[],
  wait: (ms: number) => Promise<void>,
): Promise<ChannelReport> {
  const report: ChannelReport = { channel: channel.name, delivered: [], failed: [], requests: 0, waitedMs: 0 };
  let down: string | undefined;
  for (const event of events) {
    if (down !== undefined) {
      report.failed.push({ eventId: event.id, type: event.type, reason: `not tried: ${down}` });
      continue;
    }
    let failure: string | undefined;
    for (const request of channel.requests(event)) {
      const sent = await send(channel, request, wait, report);
      if (!sent.ok) {
        failure = sent.reason;
        if (sent.channelDown) down = sent.reason;
        break;
      }
    }
    if (failure === undefined) report.delivered.push(event.id);
    else report.failed.push({ eventId: event.id, type: event.type, reason: failure });
  }
  return report;
}

/** Sends `events` to every channel at once; one report per channel, in the channels' order. */
export async function deliverAlerts(
  events: readonly AlertEvent[],
  channels: readonly Channel[],
  options: DeliveryOptions = {},
): Promise<ChannelReport[]> {
  return Promise.all(channels.map((channel) => deliverToChannel(channel, events, options.sleep ?? sleep)));
}

/**
 * Remembers which channels are failing, so that a channel that keeps failing is reported once with its reason (and
 * again only when the reason changes), and once more when it delivers again: one per process (a Lambda instance,
 * `npm start`), whose every run hands its reports to `note`.
 */
export class ChannelWatch {
  private readonly failing = new Map<ChannelName, string>();

  /** The lines to log for these reports: channels that started failing (or fail otherwise now), and that recovered. */
  note(reports: readonly ChannelReport[]): { level: 'error' | 'info'; channel: ChannelName; line: string; reason?: string }[] {
    const lines: { level: 'error' | 'info'; channel: ChannelName; line: string; reason?: string }[] = [];
    for (const report of reports) {
      const [first] = report.failed;
      if (first) {
        if (this.failing.get(report.channel) !== first.reason) {
          const count = report.failed.length;
          lines.push({
            level: 'error',
            channel: report.channel,
            reason: first.reason,
            line: `alerts: ${report.channel} is failing: ${first.reason} (${count} message${count === 1 ? '' : 's'} not delivered; said once until it changes)`,
          });
        }
        this.failing.set(report.channel, first.reason);
      } else if (report.delivered.length && this.failing.delete(report.channel)) {
        lines.push({ level: 'info', channel: report.channel, line: `alerts: ${report.channel} delivers again` });
      }
    }
    return lines;
  }
}
