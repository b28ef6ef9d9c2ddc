/**
 * The alerts topic (`trading-bot-api-<stage>-alerts`) as the alerts use it. The probe publishes each bot's change
 * there, beside CloudWatch's alarms, so that every subscriber hears the fleet by name: one message per event with a
 * body per kind of subscriber (SNS's `MessageStructure: json`):
 *
 * - `lambda` (the notifier): the AlertEvent itself, which it sends on to the channels;
 * - `email`: the event's text, with its title (in ASCII) as subject;
 * - `default` (HTTPS, and so Amazon Q Developer in chat applications, and any other): a custom notification in Q
 *   Developer's format (`version` 1.0, `source` custom), which it shows in Slack, Teams or Chime as it is.
 *
 * The notifier reads back either kind of message (`eventOfSnsMessage`).
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { ALERT_TYPES, type AlertEvent, alarmEvent } from './events';

/** SNS asks for a subject of ASCII without line breaks, under 100 characters. */
function subjectOf(title: string): string {
  const ascii = title
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return (ascii.length > 99 ? `${ascii.slice(0, 98)}…`.replace(/[^\x20-\x7e]/g, '') : ascii) || 'Trading Bot API alert';
}

/** Q Developer's custom notification of an event: its title, and the rest of its text as the description. */
function chatNotificationOf(event: AlertEvent): Record<string, unknown> {
  const [, ...rest] = event.text.split('\n');
  return {
    version: '1.0',
    source: 'custom',
    id: event.id,
    content: { textType: 'client-markdown', title: event.title, description: rest.join('\n') },
    metadata: {
      eventType: event.type,
      ...(event.accountId ? { threadId: `${event.stage}-${event.accountId}`, relatedResources: [event.accountId] } : {}),
      additionalContext: { stage: event.stage, time: event.time, ...(event.accountId ? { accountId: event.accountId } : {}) },
    },
  };
}

/** The Publish input of an event. */
export function publishInputOf(topicArn: string, event: AlertEvent) {
  return {
    TopicArn: topicArn,
    MessageStructure: 'json',
    Subject: subjectOf(event.title),
    Message: JSON.stringify({
      default: JSON.stringify(chatNotificationOf(event)),
      email: event.text,
      lambda: JSON.stringify(event),
    }),
  };
}

let client: SNSClient | undefined;

/** Publishes each event, in order; throws on the first the topic refuses (the rest are not published). */
export async function publishAlerts(topicArn: string, events: readonly AlertEvent[]): Promise<void> {
  client ??= new SNSClient({ maxAttempts: 3 });
  for (const event of events) await client.send(new PublishCommand(publishInputOf(topicArn, event)));
}

function isAlertEvent(value: unknown): value is AlertEvent {
  const event = value as AlertEvent;
  return (
    !!event &&
    typeof event === 'object' &&
    (ALERT_TYPES as readonly string[]).includes(event.type) &&
    typeof event.id === 'string' &&
    typeof event.text === 'string' &&
    typeof event.title === 'string'
  );
}

/**
 * The event an SNS message stands for: one of ours (the probe's), a CloudWatch alarm's change of state, or any other
 * text published to the topic by hand, passed on as an alarm with that text.
 */
export function eventOfSnsMessage(
  sns: { Message: string; MessageId: string; Subject?: string | null; Timestamp?: string },
  stage: string,
): AlertEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(sns.Message);
  } catch {
    parsed = undefined;
  }
  if (isAlertEvent(parsed)) return parsed;
  if (parsed && typeof parsed === 'object' && 'AlarmName' in parsed)
    return alarmEvent(parsed as Record<string, unknown>, stage, sns.MessageId);
  const time = sns.Timestamp && !Number.isNaN(Date.parse(sns.Timestamp)) ? new Date(sns.Timestamp).toISOString() : new Date().toISOString();
  const title = `[${stage}] 🔔 ${sns.Subject || 'Message on the alerts topic'}`;
  return { type: 'alarm', id: `${stage}:sns:${sns.MessageId}`, stage, time, title, text: `${title}\n${sns.Message}` };
}
