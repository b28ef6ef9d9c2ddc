/**
 * The alerts' own configuration, read once by the functions that use it (the probe, the notifier) when they load;
 * a missing or malformed variable stops the cold start with its name, as api/read-config.ts does for the rest.
 */
import { integer, required } from '../read-config';

type Env = Record<string, string | undefined>;

/** The alerts' configuration (readAlertsConfig's; its members' notes are there). */
export type AlertsConfig = ReturnType<typeof readAlertsConfig>;

export function readAlertsConfig(env: Env) {
  const dashboardUrl = env.DASHBOARD_URL || undefined;
  if (dashboardUrl && !/^https?:\/\/[^/]+/.test(dashboardUrl))
    throw new Error(`configuration: DASHBOARD_URL must be an http(s) URL, got "${dashboardUrl}"`);
  return {
    // The alerts table (resources/tables.js): what the alerts last said of each bot.
    table: required(env, 'ALERTS_TABLE'),
    // The hour (UTC) the daily digest is scheduled at: its text says when to expect the next.
    digestHourUtc: integer(env, 'DIGEST_HOUR_UTC', 7, 0, 23),
    // How often the probe runs (300 s deployed; `npm start`'s PROBE_SECONDS): a longer gap means it was down.
    probeIntervalSeconds: integer(env, 'PROBE_INTERVAL_SECONDS', 300, 1, 86_400),
    // Deployed: the alerts topic the probe publishes each bot's change to. Unset locally, where `npm start` sends.
    topicArn: env.ALERTS_TOPIC_ARN || undefined,
    // The stage's URL with its trailing slash (the dashboard's), for links to a bot's view; unset: no links.
    dashboardUrl,
    // Deployed: where the ALERT_* values are kept (settings.ts); names only, never values.
    parametersPath: env.ALERT_PARAMETERS_PATH || undefined,
    secretId: env.ALERT_SECRET_ID || undefined,
  };
}
