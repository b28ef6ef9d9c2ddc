/**
 * The scheduled probe under `npm start`: the real probe function, invoked through serverless offline's Lambda API
 * every PROBE_SECONDS (60 by default; PROBE=off turns it off), as EventBridge invokes it every 5 minutes in AWS.
 * It prints a line when something changes (a bot turns stale, errors or recovers, the database stops or starts
 * answering), not every minute when nothing did.
 */
import type { ProbeResult } from '../../lib/operations/probe';
import { type Offline, requestOverSocket } from './offline';
import { functionName } from './service-definition';

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
export async function invokeProbe(offline: Pick<Offline, 'lambdaSocket'>, stage: string): Promise<ProbeResult> {
  const event = { version: '0', 'detail-type': 'Scheduled Event', source: 'aws.events', time: new Date().toISOString(), detail: {} };
  const answer = await requestOverSocket(offline.lambdaSocket, {
    method: 'POST',
    path: `/2015-03-31/functions/${functionName(stage, 'probe')}/invocations`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(event),
  });
  const result = JSON.parse(answer.body.toString());
  if (answer.headers['x-amz-function-error'] || answer.status !== 200)
    throw new Error(`the probe failed: ${result?.errorMessage ?? answer.status}`);
  return result as ProbeResult;
}

/** Runs the probe now and every `seconds`, printing what changed; stop() ends it. */
export function watchProbe(options: {
  offline: Pick<Offline, 'lambdaSocket'>;
  stage: string;
  seconds: number;
  print: (line: string) => void;
}): { stop(): void } {
  let previous: ProbeResult | undefined;
  let failing = false;
  const run = async () => {
    try {
      const result = await invokeProbe(options.offline, options.stage);
      for (const line of probeChanges(previous, result)) options.print(`probe: ${line}`);
      previous = result;
      failing = false;
    } catch (error) {
      if (!failing) options.print(`probe: ${(error as Error).message}`);
      failing = true;
    }
  };
  void run();
  const timer = setInterval(run, options.seconds * 1000);
  return { stop: () => clearInterval(timer) };
}
