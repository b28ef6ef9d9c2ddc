/**
 * What API Gateway does in front of the functions in a deployed stage, for in-process tests: the identity-source
 * check, the REQUEST authorizer (the real function) and its policy, and the gateway's own problem+json answers
 * rendered from resources/gateway-responses.js, the definition that is deployed.
 */
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import gatewayResponses from '../../resources/gateway-responses.js';
import stages from '../../resources/stages.js';
import { type FunctionName, invoke, type Response } from './api-harness';

function gatewayAnswer(type: string, event: APIGatewayProxyEvent): Response {
  const settings = stages.stageSettings(event.requestContext.stage, { CORS_ALLOWED_ORIGINS: process.env.CORS_ALLOWED_ORIGINS });
  const rendered = gatewayResponses.render(type, { requestId: event.requestContext.requestId, resourcePath: event.resource }, settings);
  return { statusCode: rendered.statusCode, headers: rendered.headers, body: JSON.parse(rendered.body) };
}

function headerOf(event: APIGatewayProxyEvent, name: string): string | undefined {
  return Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
}

/** The ARN API Gateway gives the authorizer for this request's method. */
function methodArnOf(event: APIGatewayProxyEvent): string {
  return `arn:aws:execute-api:us-east-1:123456789012:abcdef1234/${event.requestContext.stage}/GET${event.resource}`;
}

/** The authorizer's answer for a request, as API Gateway asks for it. */
export async function runAuthorizer(event: APIGatewayProxyEvent): Promise<APIGatewayAuthorizerResult> {
  const { handler } = require('../../functions/authorizer.ts');
  const authorizerEvent = {
    type: 'REQUEST',
    methodArn: methodArnOf(event),
    resource: event.resource,
    path: event.path,
    httpMethod: 'GET',
    headers: event.headers,
    multiValueHeaders: event.multiValueHeaders,
    pathParameters: event.pathParameters,
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    stageVariables: null,
    requestContext: event.requestContext,
  } as unknown as APIGatewayRequestAuthorizerEvent;
  const context = { functionName: 'authorizer', awsRequestId: `authorizer-${event.requestContext.requestId}` };
  // As Lambda runs it: an error passed to the callback (a string for "Unauthorized") fails the invocation.
  return new Promise((resolve, reject) =>
    handler(authorizerEvent, context, (error: unknown, result: APIGatewayAuthorizerResult) => (error ? reject(typeof error === 'string' ? new Error(error) : error) : resolve(result))),
  );
}

/** A request through the gateway: health is public, every other route needs an allowed key. */
export async function throughGateway(name: FunctionName, event: APIGatewayProxyEvent): Promise<Response> {
  if (name !== 'health') {
    // The identity source (x-api-key) must be present, or API Gateway answers 401 without asking the authorizer.
    if (!headerOf(event, 'x-api-key')) return gatewayAnswer('UNAUTHORIZED', event);
    let result: APIGatewayAuthorizerResult;
    try {
      result = await runAuthorizer(event);
    } catch (error) {
      return gatewayAnswer(error instanceof Error && error.message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE', event);
    }
    const [statement] = result.policyDocument.Statement as { Effect: string; Resource: string }[];
    const resourcePattern = new RegExp(`^${statement.Resource.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    if (statement.Effect !== 'Allow' || !resourcePattern.test(methodArnOf(event))) return gatewayAnswer('ACCESS_DENIED', event);
    event = { ...event, requestContext: { ...event.requestContext, authorizer: { principalId: result.principalId, ...result.context } } };
  }
  return invoke(name, event);
}
