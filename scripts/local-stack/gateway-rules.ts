/**
 * What API Gateway decides in front of the functions, whichever way they are reached: the local gateway of
 * `npm start` (gateway/gateway.ts, over serverless offline) and the in-process tests (test/kit/gateway.ts) both
 * decide here, so the two cannot drift apart.
 *
 * - The identity source: without an `x-api-key` header API Gateway answers 401 and never asks the authorizer (on a
 *   route whose authorizer has no identity source, metrics, it always asks).
 * - The REQUEST authorizer's event, and how its outcome is read: "Unauthorized" (thrown, or passed to the callback)
 *   is a 401; any other failure is AUTHORIZER_FAILURE (503); a policy that does not Allow this method (or also
 *   Denies it, or names no principal) is a 403; otherwise the request goes on with the authorizer's context.
 *
 * Both render the gateway's own answers from resources/gateway-responses.js, the definition that is deployed.
 */
/** The gateway responses an authorizer's outcome can lead to. */
type Refusal = 'UNAUTHORIZED' | 'AUTHORIZER_FAILURE' | 'ACCESS_DENIED';

export type Decision = { refusal: Refusal } | { context: Record<string, unknown> };

/** The ARN API Gateway gives the authorizer for a method of a route. */
function methodArn(stage: string, method: string, resourcePath: string): string {
  return `arn:aws:execute-api:us-east-1:000000000000:local/${stage}/${method}${resourcePath}`;
}

/**
 * Whether the request carries every header of the route's identity source (names in lower case; header names in
 * any case): API Gateway answers 401 without asking the authorizer otherwise. A route with none always asks it.
 */
export function identityPresent(
  headers: Record<string, string | string[] | undefined> | null | undefined,
  identityHeaders: readonly string[] = ['x-api-key'],
): boolean {
  return identityHeaders.every((wanted) => {
    const value = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === wanted)?.[1];
    return Boolean(Array.isArray(value) ? value[0] : value);
  });
}

/** What a request reaching a route tells its REQUEST authorizer. */
export interface RouteRequest {
  stage: string;
  method: string;
  /** The route's template, such as `/api/{account}/trades`. */
  resourcePath: string;
  path: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  queryStringParameters: Record<string, string> | null;
  multiValueQueryStringParameters?: Record<string, string[]> | null;
  pathParameters: Record<string, string> | null;
  requestId: string;
}

/** The authorizer's event, as API Gateway builds it. */
export function authorizerEvent(request: RouteRequest) {
  return {
    type: 'REQUEST',
    methodArn: methodArn(request.stage, request.method, request.resourcePath),
    resource: request.resourcePath,
    path: request.path,
    httpMethod: request.method,
    headers: request.headers,
    multiValueHeaders: request.multiValueHeaders,
    queryStringParameters: request.queryStringParameters,
    multiValueQueryStringParameters: request.multiValueQueryStringParameters ?? null,
    pathParameters: request.pathParameters,
    stageVariables: null,
    requestContext: {
      requestId: request.requestId,
      stage: request.stage,
      resourcePath: request.resourcePath,
      httpMethod: request.method,
      path: `/${request.stage}${request.path}`,
    },
  };
}

interface Statement {
  Effect: string;
  Resource: string | string[];
}

/** Whether an IAM-style resource pattern (`*` any run of characters) names `arn`. */
function arnMatches(pattern: string, arn: string): boolean {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(arn);
}

function messageOf(error: unknown): unknown {
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  return (error as { errorMessage?: unknown } | null)?.errorMessage;
}

/**
 * How API Gateway reads the authorizer's outcome for the method at `arn`: its failure (`failed`, with what it threw
 * or passed to the callback), or its result. Every statement of the policy counts, as in IAM: an explicit Deny wins.
 */
export function authorizerDecision(outcome: { failed: true; error: unknown } | { failed: false; result: unknown }, arn: string): Decision {
  if (outcome.failed) return { refusal: messageOf(outcome.error) === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE' };
  const result = outcome.result as
    | { policyDocument?: { Statement?: Statement[] }; principalId?: string; context?: Record<string, unknown> }
    | string
    | null;
  if (result === 'Unauthorized') return { refusal: 'UNAUTHORIZED' };
  if (!result || typeof result !== 'object') return { refusal: 'AUTHORIZER_FAILURE' };
  const statements = result.policyDocument?.Statement ?? [];
  const names = (statement: Statement) => [statement.Resource].flat().some((resource) => arnMatches(resource, arn));
  const allowed = statements.some((statement) => statement.Effect === 'Allow' && names(statement));
  const denied = statements.some((statement) => statement.Effect === 'Deny' && names(statement));
  if (!allowed || denied || !result.principalId) return { refusal: 'ACCESS_DENIED' };
  return { context: { principalId: result.principalId, ...result.context } };
}
