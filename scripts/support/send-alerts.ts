/**
 * What `npm run alerts` and `npm run digest --send` share: an event sent to every channel configured here (the ALERT_*
 * variables and their files) and, with a stage, that deployed stage's secret and parameters, each channel's outcome
 * printed. False (the command then exits 1) when a channel is configured wrong, none is, or one did not take it.
 */
import { deliverAlerts } from '../../api/alerts/delivery';
import type { AlertEvent } from '../../api/alerts/events';
import { configuredChannels } from '../../api/alerts/remote';

export async function sendToChannels(
  event: AlertEvent,
  stage: string | undefined,
  words: { none: string; took: string; failed: string },
): Promise<boolean> {
  const { channels, problems } = await configuredChannels(process.env, { stage });
  for (const problem of problems) console.error(problem);
  if (!channels.length) {
    console.error(words.none);
    return false;
  }
  const reports = await deliverAlerts([event], channels);
  for (const { channel, failed } of reports)
    console.log(failed.length ? `${channel}: ${words.failed}: ${failed[0].reason}` : `${channel}: ${words.took}`);
  return !problems.length && reports.every((report) => !report.failed.length);
}
