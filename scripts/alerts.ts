/**
 * `npm run alerts -- test [--stage NAME]`
 *
 * Sends one test message to every configured channel (Telegram, Discord, Slack, webhook: docs/alerts.md) and says
 * which answered. Channels come from the ALERT_* variables (or their `_FILE`s); with --stage, also from that
 * deployed stage's secret and parameters (AWS credentials from the environment), as its notifier reads them.
 * Exit: 0 when every configured channel answered; 1 when one did not, or none is configured; 2 when the command is wrong.
 */
import './support/quiet-sdk';
import { deliverAlerts } from '../api/alerts/delivery';
import { testEvent } from '../api/alerts/events';
import { configuredChannels } from '../api/alerts/remote';
import { ALERT_VARIABLES } from '../api/alerts/settings';
import { commandLine, usageFailure } from './support/command-line';

const USAGE = 'usage: npm run alerts -- test [--stage NAME]';

async function main() {
  const parsed = commandLine('alerts', USAGE, { stage: { type: 'string' } });
  if (!parsed) return;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'test')
    usageFailure('alerts', USAGE, positionals.length ? `unknown command ${positionals.join(' ')}` : 'say test');
  const stage = values.stage ?? 'local';
  const { channels, problems } = await configuredChannels(process.env, { stage: values.stage });
  for (const problem of problems) console.error(problem);
  if (!channels.length) {
    console.error(
      `alerts: no channel is configured: set ${ALERT_VARIABLES.filter((name) => name !== 'ALERT_TELEGRAM_API_URL').join(', ')} (docs/alerts.md)`,
    );
    process.exitCode = 1;
    return;
  }
  const reports = await deliverAlerts([testEvent(stage, new Date().toISOString())], channels);
  for (const report of reports) {
    const [failure] = report.failed;
    console.log(
      failure ? `${report.channel}: did not answer: ${failure.reason}` : `${report.channel}: answered (the test message is there)`,
    );
  }
  if (problems.length || reports.some((report) => report.failed.length)) process.exitCode = 1;
}

main().catch((error) => {
  const message = error instanceof Error ? error.message : String(error);
  // The stage's settings say `alerts:` themselves (as the notifier logs them): once is enough.
  console.error(message.startsWith('alerts: ') ? message : `alerts: ${message}`);
  process.exit(1);
});
