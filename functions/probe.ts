/**
 * Scheduled probe (an EventBridge event every 5 minutes; not an HTTP route): checks DynamoDB and every account's
 * bot, publishes CloudWatch metrics in EMF and one log line naming the stale and erroring accounts, and returns its
 * findings (`npm start` prints what changed between two runs).
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { reportProbe, runProbe } from '../lib/operations/probe';

export const handler = async (_event: ScheduledEvent, context: Context) => {
  const result = await runProbe(new Date());
  reportProbe(result, context);
  return result;
};
