/**
 * The scheduled probe under `npm start`: the real probe function, invoked through serverless offline's Lambda API
 * every PROBE_SECONDS (60 by default; PROBE=off turns it off), as EventBridge invokes it every 5 minutes in AWS.
 * It prints a line when something changes (a bot turns stale, errors or recovers, the database stops or starts
 * answering), not every minute when nothing did. With channels configured (any ALERT_* variable), it also sends the
 * alerts the probe recorded, and the database's own changes, which only this watch can tell locally (deployed, the
 * database's alarm tells them): the same messages a deployed stage sends, from a laptop.
 */
import type { Channel } from '../../api/alerts/channels';
import { ChannelWatch, type DeliveryOptions, deliverAlerts } from '../../api/alerts/delivery';
import { type AlertEvent, databaseEvent } from '../../api/alerts/events';
import type { ProbeResult } from '../../api/operations/probe';
import { invokeFunction, type Offline } from './offline';

/** What the probe function returns: its findings, and the bots' alerts it recorded. */
export type ProbeAnswer = ProbeResult & { alerts?: AlertEvent[] };

/** What changed between two probes, as lines for an operator; the first probe gets a one-line summary. */
export function probeChanges(previous: ProbeResult | undefined, next: ProbeResult): string[] {
  const lines: string[] = [];
  if (!next.databaseHealthy) {
    if (!previous || previous.databaseHealthy) lines.push(`the database does not answer (after ${next.latencyMs} ms)`);
    return lines;
  }
  if (previous && !previous.databaseHealthy) lines.push('the database answers again');
  if (!previous?.databaseHealthy) {
    const bots = next.bots!;
    const attention = [...next.stale.map((entry) => entry.accountId), ...next.inError.map((entry) => entry.accountId)];
    lines.push(
      `${bots.total} bots: ${bots.running} running, ${bots.paused} paused, ${bots.stopped} stopped, ${bots.error} in error; ` +
        (attention.length ? `needing attention: ${[...new Set(attention)].join(', ')}` : 'none stale or in error'),
    );
    if (!previous) return lines;
  }
  const before = {
    stale: new Set(previous?.stale.map((entry) => entry.accountId)),
    inError: new Set(previous?.inError.map((entry) => entry.accountId)),
  };
  for (const entry of next.stale) {
    if (!before.stale.has(entry.accountId)) {
      lines.push(
        `${entry.accountId} is stale: running, ${entry.heartbeatAgeSeconds === null ? 'never heard from' : `no heartbeat for ${entry.heartbeatAgeSeconds} s`}`,
      );
    }
  }
  for (const accountId of before.stale) {
    if (!next.stale.some((entry) => entry.accountId === accountId)) lines.push(`${accountId} recovered: heartbeating again`);
  }
  for (const entry of next.inError) {
    if (!before.inError.has(entry.accountId)) lines.push(`${entry.accountId} reports an error${entry.message ? `: ${entry.message}` : ''}`);
  }
  for (const accountId of before.inError) {
    if (!next.inError.some((entry) => entry.accountId === accountId)) lines.push(`${accountId} recovered: no longer in error`);
  }
  return lines;
}

/** Invokes the probe once through serverless offline's Lambda API; what it found. */
async function invokeProbe(offline: Pick<Offline, 'lambdaSocket'>, stage: string): Promise<ProbeAnswer> {
  const event = { version: '0', 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} };
  const { status, failed, result } = await invokeFunction(offline, stage, 'probe', event);
  if (failed) throw new Error(`the probe failed: ${(result as { errorMessage?: string } | null)?.errorMessage ?? status}`);
  return result as ProbeAnswer;
}

/** The database's changes between two probes, as alerts (the first probe says only that it does not answer). */
function databaseAlerts(previous: ProbeResult | undefined, next: ProbeResult, stage: string): AlertEvent[] {
  if (!next.databaseHealthy && (!previous || previous.databaseHealthy))
    return [databaseEvent(true, stage, next.time, `No answer within ${next.latencyMs} ms.`)];
  if (next.databaseHealthy && previous && !previous.databaseHealthy) return [databaseEvent(false, stage, next.time)];
  return [];
}

/** Sends a probe's alerts to the channels, and the lines that say so. */
async function sendAlerts(
  events: AlertEvent[],
  alerts: { channels: Channel[]; watch: ChannelWatch; delivery?: DeliveryOptions },
): Promise<string[]> {
  if (!events.length) return [];
  const reports = await deliverAlerts(events, alerts.channels, alerts.delivery);
  const lines = events.map((event) => {
    const took = reports.filter((report) => report.delivered.includes(event.id)).map((report) => report.channel);
    return `alerts: ${event.type}${event.accountId ? ` ${event.accountId}` : ''} sent to ${took.length ? took.join(', ') : 'no channel'}`;
  });
  return [...lines, ...alerts.watch.note(reports).map((note) => note.line)];
}

/**
 * Runs the probe now and every `seconds`, printing what changed (and sending alerts to `alerts.channels`); stop()
 * ends it, once the run in progress (if any) has finished. `probed` settles when the first run has read the fleet
 * (answered or failed; its alerts may still be on their way).
 */
export function watchProbe(options: {
  offline: Pick<Offline, 'lambdaSocket'>;
  stage: string;
  seconds: number;
  print: (line: string) => void;
  alerts?: { channels: Channel[]; delivery?: DeliveryOptions };
  /** How the probe is run (the probe function through serverless offline unless given). */
  invoke?: () => Promise<ProbeAnswer>;
}): { probed: Promise<void>; stop(): Promise<void> } {
  let previous: ProbeResult | undefined;
  let failing = false;
  const alerts = options.alerts && { ...options.alerts, watch: new ChannelWatch() };
  const invoke = options.invoke ?? (() => invokeProbe(options.offline, options.stage));
  let markProbed!: () => void;
  const probed = new Promise<void>((resolve) => {
    markProbed = resolve;
  });
  const run = async () => {
    try {
      const result = await invoke().finally(markProbed);
      for (const line of probeChanges(previous, result)) options.print(`probe: ${line}`);
      if (alerts) {
        const events = [...databaseAlerts(previous, result, options.stage), ...(result.alerts ?? [])];
        for (const line of await sendAlerts(events, alerts)) options.print(line);
      }
      previous = result;
      failing = false;
    } catch (error) {
      if (!failing) options.print(`probe: ${(error as Error).message}`);
      failing = true;
    }
  };
  // One run at a time: a run that waits out a channel's rate limit is not overtaken by the next.
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= run().finally(() => {
      running = undefined;
    });
  };
  tick();
  const timer = setInterval(tick, options.seconds * 1000);
  return {
    probed,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
