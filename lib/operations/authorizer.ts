import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { encodeScope } from '../access';
import { apiKeyOf, findApiKey } from '../store/api-keys-table';
import { store } from './store';

/**
 * The API Gateway REQUEST authorizer. Unknown or missing key: "Unauthorized" (API Gateway answers 401); disabled
 * key: a Deny policy (403). A valid key gets an Allow policy for every GET of the API, because API Gateway caches
 * one policy per key for all routes, and a context naming the accounts it may see, which the functions enforce.
 */
export async function authorize(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const key = apiKeyOf(event.headers);
  const record = key === undefined ? undefined : await findApiKey(store, key);
  // API Gateway turns exactly this error message into a 401.
  if (!record) throw new Error('Unauthorized');
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
