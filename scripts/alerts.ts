/**
 * `npm run alerts -- test [--stage NAME]`
 *
 * Sends one test message to every configured channel (Telegram, Discord, Slack, webhook: docs/alerts.md) and says
 * which answered. Channels come from the ALERT_* variables (or their `_FILE`s); with --stage, also from that
 * deployed stage's secret and parameters (AWS credentials from the environment), as its notifier reads them.
 * Exit: 0 when every configured channel answered; 1 when one did not, one is configured wrong, or none is; 2 when the
 * command is wrong.
 */
import './support/quiet-sdk';
import { testEvent } from '../api/alerts/events';
import { CHANNEL_VARIABLES } from '../api/alerts/settings';
import { commandLine, runCommand, usageFailure } from './support/command-line';
import { sendToChannels } from './support/send-alerts';

const USAGE = 'usage: npm run alerts -- test [--stage NAME]';

async function main() {
  const { values, positionals } = commandLine('alerts', USAGE, { stage: { type: 'string' } });
  if (positionals.length !== 1 || positionals[0] !== 'test')
    usageFailure('alerts', USAGE, positionals.length ? `unknown command ${positionals.join(' ')}` : 'say test');
  const variables = CHANNEL_VARIABLES.join(', ');
  const sent = await sendToChannels(testEvent(values.stage ?? 'local', new Date().toISOString()), values.stage, {
    none: `alerts: no channel is configured: set ${variables} (docs/alerts.md)`,
    took: 'answered (the test message is there)',
    failed: 'did not answer',
  });
  if (!sent) process.exitCode = 1;
}

// The stage's settings say `alerts:` themselves (as the notifier logs them): once is enough.
runCommand('alerts', main, { text: (error) => (error instanceof Error ? error.message : String(error)).replace(/^alerts: /, '') });
