import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { encodeScope } from '../access';
import { type ApiKeyRecord, apiKeyOf, findApiKey, keyIdOf } from '@trading-bot-api/core/store/api-keys-table';
import { logDatabaseFailure, logger } from '../telemetry';
import { store } from '../database';

/** What the authorizer answers for a missing or unknown key: API Gateway turns exactly this into a 401. */
export const UNAUTHORIZED = 'Unauthorized';

/**
 * The API Gateway REQUEST authorizer. Unknown or missing key: "Unauthorized" (API Gateway answers 401); disabled
 * key: a Deny policy (403); a key that cannot be looked up: any other error, which API Gateway answers with its
 * AUTHORIZER_FAILURE response (503), never a 401. A valid key gets an Allow policy for every GET of the API,
 * because API Gateway caches one policy per key for all routes, and a context naming the accounts it may see,
 * which the functions enforce. Every refusal is an info line naming the key's id (never the key).
 */
export async function authorize(
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
): Promise<APIGatewayAuthorizerResult | typeof UNAUTHORIZED> {
  logger.addContext(context);
  const key = apiKeyOf(event.headers);
  const keys = {
    request_id: event.requestContext?.requestId,
    route: event.resource,
    keyId: key === undefined ? null : (keyIdOf(key) ?? null),
  };
  let record: ApiKeyRecord | undefined;
  try {
    record = key === undefined ? undefined : await findApiKey(store, key);
  } catch (error) {
    // Said with its cause: an outage (a warning; API Gateway answers 503) or a misconfiguration of the authorizer's
    // table or role (an error, which no retry mends), or a bug (its stack).
    const said = logDatabaseFailure(error, keys, {
      unavailable: 'API key check failed: the database did not answer',
      misconfigured: 'API key check failed: the database refused the authorizer',
    });
    if (!said) logger.error('API key check failed', { ...keys, error });
    throw error;
  }
  if (!record) {
    logger.info('API key refused', { ...keys, reason: key === undefined ? 'no x-api-key header' : 'unknown key' });
    return UNAUTHORIZED;
  }
  if (record.disabled) logger.info('API key refused', { ...keys, reason: 'disabled key' });
  const [apiArn, stage] = event.methodArn.split('/');
  return {
    principalId: record.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: record.disabled ? 'Deny' : 'Allow', Resource: `${apiArn}/${stage}/GET/*` }],
    },
    context: record.disabled ? {} : { keyId: record.keyId, accounts: encodeScope(record.accounts) },
  };
}
