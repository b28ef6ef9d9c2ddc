import { ABOVE_EVERY_ID } from '@trading-bot-api/core/ids';
import { accountKey } from '@trading-bot-api/core/store/accounts-table';
import { getItem } from '@trading-bot-api/core/store/dynamodb';
import { DatabaseError } from '@trading-bot-api/core/store/errors';
import type { Health } from '@trading-bot-api/core/types';
import { store } from '../database';
import { logDatabaseFailure } from '../telemetry';

const SERVICE_NAME = 'Trading Bot API';
const SERVICE_VERSION = '1.0';

// A key no account can have (an account id starts with a letter or digit, packages/core/src/ids.ts): the probe reads
// nothing, reveals nothing, and needs only the GetItem permission the API already has.
export const HEALTH_PROBE_KEY = accountKey(`${ABOVE_EVERY_ID}health-probe`);

/**
 * Checks DynamoDB with one GetItem: `ok` when it answers, `unavailable` when it does not (an outage, logged with what
 * the SDK or the network said, under `requestId`). A misconfiguration (a missing table, permission or credentials)
 * or a bug is not an outage: it is thrown, and answered as a 500 whose cause is in the log.
 */
export async function checkHealth(now: Date, requestId?: string): Promise<Health> {
  const started = performance.now();
  const healthy = await getItem(store, store.tables.accounts, HEALTH_PROBE_KEY).then(
    () => true,
    (error: unknown) => {
      if (!(error instanceof DatabaseError)) throw error;
      logDatabaseFailure(
        error,
        { request_id: requestId },
        {
          unavailable: 'health: the database did not answer',
          misconfigured: 'health: the database refused the check',
        },
      );
      return false;
    },
  );
  const latencyMs = Math.round(performance.now() - started);
  return {
    status: healthy ? 'ok' : 'unavailable',
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    time: now.toISOString(),
    checks: { database: { status: healthy ? 'ok' : 'error', latencyMs } },
  };
}
