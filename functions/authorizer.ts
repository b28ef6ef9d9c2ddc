/**
 * API Gateway REQUEST authorizer for every data route (not /api/health).
 * Reads the `x-api-key` header; answers "Unauthorized" (401) for a missing or unknown key, Deny (403) for a disabled
 * key, Allow with `{keyId, accounts}` context otherwise; a failed lookup is an error (AUTHORIZER_FAILURE, 503).
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent, Callback, Context } from 'aws-lambda';
import { authorize, UNAUTHORIZED } from '../api/operations/authorizer';

// The callback form: "Unauthorized" is how API Gateway is told to answer 401, an outcome rather than a failure of
// this function, and it is passed as the callback's error instead of thrown (a throw is reported as a crash).
export const handler = (
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
  callback: Callback<APIGatewayAuthorizerResult>,
): void => {
  authorize(event, context).then(
    (result) => (result === UNAUTHORIZED ? callback(UNAUTHORIZED) : callback(null, result)),
    (error: Error) => callback(error),
  );
};
