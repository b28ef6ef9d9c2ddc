import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { EVERYONE } from '../access';
import { config } from '../config';
import { logger, SERVICE } from '../telemetry';
import { DatabaseError, DatabaseMisconfigured } from '@trading-bot-api/core/store/errors';
import type { BotState, FleetStatus } from '@trading-bot-api/core/types';
import { summarize } from './account-status';
import { fleetStatusOf } from './status';

/**
 * The scheduled probe (an EventBridge event every 5 minutes in AWS; every minute under `npm start`). It checks
 * DynamoDB and every account's bot (the fleet status of GET /api/all/status, for every account), publishes CloudWatch metrics in Embedded Metric Format (namespace
 * `TradingBotApi`, dimensions `service` and `stage`), logs one line naming the stale and erroring accounts, and
 * returns what it found. Stale is the rule of /api/{account}/status: running, yet silent for longer than
 * STALE_AFTER_SECONDS, or never heard from.
 */
export const NAMESPACE = 'TradingBotApi';

const metrics = new Metrics({ namespace: NAMESPACE, serviceName: SERVICE, defaultDimensions: { stage: config.stage } });

export interface ProbeResult {
  time: string;
  databaseHealthy: boolean;
  latencyMs: number;
  /** Bots by state; null when the database did not answer. */
  bots: (Record<BotState, number> & { total: number }) | null;
  /** Accounts whose bot is stale, and how long since each last heartbeat (null: never). */
  stale: { accountId: string; heartbeatAgeSeconds: number | null }[];
  /** Accounts whose bot reports `error`, with its message. */
  inError: { accountId: string; message: string | null }[];
  /** The age of the oldest heartbeat among running bots (null: none running, or one never heard from). */
  oldestHeartbeatAgeSeconds: number | null;
  /** Why the database could not be read, for the log: an outage (with the SDK's or the network's word) or a misconfiguration naming the table or permission. */
  databaseCause?: string;
}

/**
 * Reads every account's bot, and says what an operator must know, with the fleet's statuses it found it in (none when
 * the database did not answer): the alerts read them.
 */
export async function probeFleet(now: Date): Promise<{ result: ProbeResult; fleet: FleetStatus | undefined }> {
  const started = performance.now();
  let fleet: FleetStatus | undefined;
  let databaseCause: string | undefined;
  try {
    fleet = await fleetStatusOf(EVERYONE, now);
  } catch (error) {
    // An outage or a misconfiguration both leave the fleet unread, and the probe says the database is not healthy;
    // the log says which, and why. Anything else is a bug of ours, not the database's: it is thrown.
    if (error instanceof DatabaseError) databaseCause = `${error.message} (${error.reason})`;
    else if (error instanceof DatabaseMisconfigured) databaseCause = `misconfigured: ${error.message}`;
    else throw error;
  }
  const statuses = fleet?.accounts ?? [];
  const running = statuses.filter((status) => status.state === 'running');
  const { stale: _, ...bots } = fleet?.summary ?? summarize([]);
  const result: ProbeResult = {
    time: now.toISOString(),
    databaseHealthy: fleet !== undefined,
    latencyMs: Math.round(performance.now() - started),
    bots: fleet ? bots : null,
    stale: statuses.filter((status) => status.stale).map(({ accountId, heartbeatAgeSeconds }) => ({ accountId, heartbeatAgeSeconds })),
    inError: statuses.filter((status) => status.state === 'error').map(({ accountId, message }) => ({ accountId, message })),
    oldestHeartbeatAgeSeconds:
      running.length && running.every((status) => status.heartbeatAgeSeconds !== null)
        ? Math.max(...running.map((status) => status.heartbeatAgeSeconds!))
        : null,
    ...(databaseCause ? { databaseCause } : {}),
  };
  return { result, fleet };
}

/** The metric of each state's count of bots. */
const BOT_METRICS = { running: 'BotsRunning', paused: 'BotsPaused', stopped: 'BotsStopped', error: 'BotsInError' };

/** Publishes a probe's findings as metrics (one EMF document) and one log line. */
export function reportProbe(result: ProbeResult, context: Context): void {
  logger.addContext(context);
  metrics.addMetric('ProbeRuns', MetricUnit.Count, 1);
  metrics.addMetric('ProbeLatencyMs', MetricUnit.Milliseconds, result.latencyMs);
  metrics.addMetric('DatabaseHealthy', MetricUnit.Count, result.databaseHealthy ? 1 : 0);
  if (result.bots) {
    for (const [state, name] of Object.entries(BOT_METRICS)) metrics.addMetric(name, MetricUnit.Count, result.bots[state as BotState]);
    metrics.addMetric('StaleBots', MetricUnit.Count, result.stale.length);
    if (result.oldestHeartbeatAgeSeconds !== null)
      metrics.addMetric('OldestHeartbeatAgeSeconds', MetricUnit.Seconds, result.oldestHeartbeatAgeSeconds);
  }
  metrics.publishStoredMetrics();
  const line = {
    databaseHealthy: result.databaseHealthy,
    latencyMs: result.latencyMs,
    bots: result.bots,
    staleAccounts: result.stale.map((entry) => entry.accountId),
    errorAccounts: result.inError.map((entry) => entry.accountId),
    oldestHeartbeatAgeSeconds: result.oldestHeartbeatAgeSeconds,
    ...(result.databaseCause ? { cause: result.databaseCause } : {}),
  };
  if (!result.databaseHealthy) logger.error('probe: the database did not answer', line);
  else if (result.stale.length || result.inError.length) logger.warn('probe: bots need attention', line);
  else logger.info('probe: all well', line);
}
