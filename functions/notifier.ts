/**
 * The notifier (not an HTTP route): subscribed to the alerts topic, it sends each message there (a bot's change the
 * probe published, a CloudWatch alarm's change of state) to the configured Telegram, Discord, Slack and webhook
 * channels, for a person; scheduled daily at DIGEST_HOUR_UTC (`{ "digest": true }`), it sends the digest. Fails when
 * a channel did not take a message (after its retries), so the event lands in the on-failure queue.
 */
import type { Context, SNSEvent } from 'aws-lambda';
import { readAlertsConfig } from '../api/alerts/config';
import { buildDigest } from '../api/alerts/digest';
import { digestEvent } from '../api/alerts/digest-text';
import { notify, stageChannels } from '../api/alerts/notifier';
import { eventOfSnsMessage } from '../api/alerts/topic';
import { config } from '../api/config';

const alerts = readAlertsConfig(process.env);

export const handler = async (event: SNSEvent | { digest: true }, context: Context) => {
  const channels = await stageChannels(alerts, process.env);
  const now = new Date();
  const events =
    'Records' in event
      ? event.Records.map((record) => eventOfSnsMessage(record.Sns, config.stage))
      : [digestEvent(await buildDigest(now), config.stage, now.toISOString(), alerts.digestHourUtc)];
  await notify(events, channels, context);
};
