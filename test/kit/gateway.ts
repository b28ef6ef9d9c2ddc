/**
 * What API Gateway does in front of the functions in a deployed stage, for in-process tests: the same rules as the
 * local gateway of `npm start` (scripts/local-stack/gateway-rules.ts: the identity source, the REQUEST authorizer's
 * event and how its policy is read), with the real authorizer function called in this process, and the gateway's own
 * problem+json answers rendered from resources/gateway-responses.js, the definition that is deployed.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent } from 'aws-lambda';
import gatewayResponses from '../../resources/gateway-responses.js';
import stages from '../../resources/stages.js';
import { authorizerDecision, authorizerEvent, identityPresent } from '../../scripts/local-stack/gateway-rules';
import { serviceDefinition } from '../../scripts/local-stack/service-definition';
import { eventFor, type FunctionName, invoke, ROUTES, type Response } from './api-harness';
import { expectContract } from './contract';

function gatewayAnswer(type: string, event: APIGatewayProxyEvent): Response {
  const settings = stages.stageSettings(event.requestContext.stage, { CORS_ALLOWED_ORIGINS: process.env.CORS_ALLOWED_ORIGINS });
  const rendered = gatewayResponses.render(type, { requestId: event.requestContext.requestId, resourcePath: event.resource }, settings);
  return { statusCode: rendered.statusCode, headers: rendered.headers, body: JSON.parse(rendered.body) };
}

/** The authorizer's event for a request, as API Gateway builds it. */
function authorizerEventOf(event: APIGatewayProxyEvent) {
  const defined = (values: Record<string, string | undefined> | null) =>
    values ? Object.fromEntries(Object.entries(values).map(([name, value]) => [name, value ?? ''])) : null;
  return authorizerEvent({
    stage: event.requestContext.stage,
    method: 'GET',
    resourcePath: event.resource,
    path: event.path,
    headers: defined(event.headers) ?? {},
    multiValueHeaders: (event.multiValueHeaders ?? {}) as Record<string, string[]>,
    queryStringParameters: defined(event.queryStringParameters),
    multiValueQueryStringParameters: event.multiValueQueryStringParameters as Record<string, string[]> | null,
    pathParameters: defined(event.pathParameters),
    requestId: event.requestContext.requestId,
  });
}

/** The authorizer's answer for a request, as Lambda runs it: an error passed to the callback fails the invocation. */
export async function runAuthorizer(event: APIGatewayProxyEvent): Promise<APIGatewayAuthorizerResult> {
  const { handler } = require('../../functions/authorizer.ts');
  const context = { functionName: 'authorizer', awsRequestId: `authorizer-${event.requestContext.requestId}` };
  return new Promise((resolve, reject) =>
    handler(authorizerEventOf(event), context, (error: unknown, result: APIGatewayAuthorizerResult) =>
      error ? reject(typeof error === 'string' ? new Error(error) : error) : resolve(result),
    ),
  );
}

/** A request through the gateway: health is public, every other route needs an allowed key. */
export async function throughGateway(name: FunctionName, event: APIGatewayProxyEvent): Promise<Response> {
  if (name !== 'health') {
    const route = serviceDefinition().routes.find((candidate) => candidate.functionKey === name);
    if (!identityPresent(event.headers, route?.identityHeaders)) return gatewayAnswer('UNAUTHORIZED', event);
    const authorizer = authorizerEventOf(event);
    const decision = await runAuthorizer(event).then(
      (result) => authorizerDecision({ failed: false, result }, authorizer.methodArn),
      (error: unknown) => authorizerDecision({ failed: true, error }, authorizer.methodArn),
    );
    if ('refusal' in decision) return gatewayAnswer(decision.refusal, event);
    event = { ...event, requestContext: { ...event.requestContext, authorizer: decision.context } };
  }
  return invoke(name, event);
}

/**
 * The tests' one request: `name`'s event (its path's `account`, `query`, `headers`) with `key` in x-api-key (or as a
 * Bearer token), through the gateway, its answer held to openapi.yaml.
 */
export async function call(
  name: FunctionName,
  options: { key?: string; bearer?: boolean; account?: string; query?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Response> {
  const { key, bearer, account, query = {}, headers } = options;
  const auth: Record<string, string> = key === undefined ? {} : bearer ? { Authorization: `Bearer ${key}` } : { 'x-api-key': key };
  const response = await throughGateway(name, eventFor(name, { account, query, headers: { ...headers, ...auth } }));
  expectContract(ROUTES[name], response);
  return response;
}
