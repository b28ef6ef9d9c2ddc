import tables from '../../resources/tables.js';
import { ABOVE_EVERY_ID } from '@trading-bot-api/core/ids';
import { batchGetItems, getItem } from '@trading-bot-api/core/store/dynamodb';
import { DatabaseError, DatabaseMisconfigured } from '@trading-bot-api/core/store/errors';
import type { Tables } from '@trading-bot-api/core/tables';
import type { Health } from '@trading-bot-api/core/types';
import { store } from '../database';
import { logDatabaseFailure } from '../telemetry';

const SERVICE_NAME = 'Trading Bot API';
const SERVICE_VERSION = '1.0';

/**
 * The tables the API's functions read (resources/tables.js), each with a key no item can have (an id starts with a
 * letter or digit, packages/core/src/ids.ts) in its own key attributes: a check reads nothing, reveals nothing, and
 * needs only the reads the API's role already has.
 */
export const HEALTH_CHECKS = tables.DATA_TABLES.map((table) => {
  const { partitionKey, sortKey } = (tables.TABLES as Record<string, { partitionKey: string; sortKey?: string }>)[table];
  const probe = `${ABOVE_EVERY_ID}health-probe`;
  return { name: table as keyof Tables, key: { [partitionKey]: probe, ...(sortKey ? { [sortKey]: probe } : {}) } };
});

/**
 * Checks every table the API reads with one BatchGetItem (one round trip; each missing key is half a read unit):
 * `ok` when DynamoDB answers, `unavailable` when it does not (an outage, logged with what the SDK or the network said,
 * under `requestId`). A table missing, or one the role may not read, is a misconfiguration, not an outage: each table
 * is then read alone to name the one refused, which is thrown and answered as a 500 whose cause is in the log. A bug
 * is thrown as it is.
 */
export async function checkHealth(now: Date, requestId?: string): Promise<Health> {
  const started = performance.now();
  let healthy = true;
  try {
    await batchGetItems(store, Object.fromEntries(HEALTH_CHECKS.map(({ name, key }) => [store.tables[name], [key]])));
  } catch (error) {
    if (error instanceof DatabaseMisconfigured) {
      const each = await Promise.allSettled(HEALTH_CHECKS.map(({ name, key }) => getItem(store, store.tables[name], key)));
      const refused = each.find((outcome) => outcome.status === 'rejected' && outcome.reason instanceof DatabaseMisconfigured);
      throw refused?.status === 'rejected' ? refused.reason : error;
    }
    if (!(error instanceof DatabaseError)) throw error;
    logDatabaseFailure(error, { request_id: requestId }, { unavailable: 'health: the database did not answer', misconfigured: '' });
    healthy = false;
  }
  const latencyMs = Math.round(performance.now() - started);
  return {
    status: healthy ? 'ok' : 'unavailable',
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    time: now.toISOString(),
    checks: { database: { status: healthy ? 'ok' : 'error', latencyMs } },
  };
}
