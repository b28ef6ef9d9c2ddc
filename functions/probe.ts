/**
 * Scheduled probe (an EventBridge event every 5 minutes; not an HTTP route): checks DynamoDB and every account's
 * bot, publishes CloudWatch metrics in EMF and one log line naming the stale and erroring accounts, records each
 * bot's change of condition and each P&L alert set (ALERT_DAILY_LOSS, ALERT_DRAWDOWN, ALERT_TRADE_CLOSED, read as
 * the channels' settings are) in the alerts table and publishes them to the alerts topic (deployed), and returns its
 * findings with those alerts as `alerts` (`npm start` prints what changed between two runs, and sends the alerts).
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { readAlertsConfig } from '../api/alerts/config';
import { stageRules } from '../api/alerts/pnl-watch';
import { alertOnFleet } from '../api/alerts/probe-alerts';
import { publishAlerts } from '../api/alerts/topic';
import { config } from '../api/config';
import { store } from '../api/database';
import { probeFleet, reportProbe } from '../api/operations/probe';

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
        probeIntervalSeconds: alerts.probeIntervalSeconds,
        dashboardUrl: alerts.dashboardUrl,
        rules: await stageRules(alerts, process.env),
        publish: topicArn ? (found) => publishAlerts(topicArn, found) : undefined,
      })
    : [];
  return { ...result, alerts: events };
};
