/**
 * Scheduled probe (an EventBridge event every 5 minutes; not an HTTP route): checks DynamoDB and every account's
 * bot, publishes CloudWatch metrics in EMF and one log line naming the stale and erroring accounts, records each
 * bot's change of condition in the alerts table and publishes it to the alerts topic (deployed), and returns its
 * findings with those changes as `alerts` (`npm start` prints what changed between two runs, and sends the alerts).
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { readAlertsConfig } from '../lib/alerts/config';
import { alertOnFleet } from '../lib/alerts/probe-alerts';
import { publishAlerts } from '../lib/alerts/topic';
import { config } from '../lib/config';
import { probeFleet, reportProbe } from '../lib/operations/probe';
import { store } from '../lib/operations/store';

const alerts = readAlertsConfig(process.env);
const topicArn = alerts.topicArn;

export const handler = async (_event: ScheduledEvent, context: Context) => {
  const now = new Date();
  const { result, fleet } = await probeFleet(now);
  reportProbe(result, context);
  const events = fleet
    ? await alertOnFleet(fleet.accounts, now, {
        store,
        table: alerts.table,
        stage: config.stage,
        staleAfterSeconds: config.staleAfterSeconds,
        dashboardUrl: alerts.dashboardUrl,
        publish: topicArn ? (found) => publishAlerts(topicArn, found) : undefined,
      })
    : [];
  return { ...result, alerts: events };
};
