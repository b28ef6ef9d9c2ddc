/**
 * The deployed notifier's work (functions/notifier.ts): the channels configured for the stage, the events sent to
 * them, and what operators are told of it. A channel that fails is logged once with its reason (ChannelWatch), every
 * undelivered message is counted in the `AlertDeliveryFailures` metric (alarmed on), and the invocation then fails,
 * naming the channels and reasons, so that Lambda hands the event to the on-failure queue, where it can be read.
 * The channels that took it are not asked again: the function is not retried (serverless.yml).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { config } from '../config';
import { NAMESPACE } from '../operations/probe';
import { logger, SERVICE } from '../telemetry';
import type { Channel } from './channels';
import type { AlertsConfig } from './config';
import { ChannelWatch, type ChannelReport, type DeliveryOptions, deliverAlerts } from './delivery';
import type { AlertEvent } from './events';
import { configuredChannels } from './remote';

const notifierMetrics = new Metrics({ namespace: NAMESPACE, serviceName: SERVICE, defaultDimensions: { stage: config.stage } });

const watch = new ChannelWatch();
let lastSaid = '';

/** The stage's channels: the environment and files first, then the secret and the parameters (settings.ts). */
export async function stageChannels(alerts: AlertsConfig, env: Record<string, string | undefined>): Promise<Channel[]> {
  const { channels, problems } = await configuredChannels(env, alerts);
  // A wrong setting, or none at all, is said when it first shows and when it changes, not on every alarm.
  const said = problems.length ? problems.join('\n') : channels.length ? '' : 'none';
  if (said !== lastSaid) {
    for (const problem of problems) logger.error(problem);
    if (said === 'none') logger.warn('alerts: no channel is configured (docs/alerts.md); events reach only the topic’s own subscribers');
  }
  lastSaid = said;
  return channels;
}

/** Sends `events` to `channels`, publishes the metrics, logs, and throws when any channel did not take them all. */
export async function notify(
  events: AlertEvent[],
  channels: readonly Channel[],
  context: Context,
  options: DeliveryOptions = {},
): Promise<ChannelReport[]> {
  logger.addContext(context);
  const reports = await deliverAlerts(events, channels, options);
  const delivered = reports.reduce((sum, report) => sum + report.delivered.length, 0);
  const failed = reports.reduce((sum, report) => sum + report.failed.length, 0);
  notifierMetrics.addMetric('AlertsDelivered', MetricUnit.Count, delivered);
  notifierMetrics.addMetric('AlertDeliveryFailures', MetricUnit.Count, failed);
  notifierMetrics.publishStoredMetrics();
  for (const { level, line, channel, reason } of watch.note(reports)) logger[level](line, { channel, reason });
  logger.info('alerts: sent', {
    events: events.map((event) => ({ type: event.type, id: event.id })),
    channels: reports.map((report) => ({
      channel: report.channel,
      delivered: report.delivered.length,
      failed: report.failed.length,
      waitedMs: report.waitedMs,
    })),
  });
  const failures = reports.filter((report) => report.failed.length);
  if (failures.length) {
    const why = failures.map((report) => `${report.channel}: ${report.failed[0].reason}`).join('; ');
    throw new Error(`alerts not delivered to ${failures.map((report) => report.channel).join(', ')}: ${why}`);
  }
  return reports;
}
