import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { decodeScope, EVERYONE, NOBODY } from '../access';
import { config } from '../config';
import contract from '../../resources/http-contract.js';
import { corsHeaders } from './cors';
import { entityTag, noneMatch } from './etag';
import { type Held, heldOf, Validated } from '../operations/validated';
import { HTTP, HttpProblem, serviceUnavailable, unauthorized } from '../errors';
import { chosenRepresentation, JSON_REPRESENTATION, type Representation, represented } from './representation';
import { DatabaseError } from '@trading-bot-api/core/store/errors';
import { type ParameterParsers, type ParsedQuery, parseQuery } from './params';
import { suggestAccounts } from '../operations/suggestions';
import { logAccess, logDatabaseFailure, logger, withReadTally } from '../telemetry';
import type { Principal } from '../access';

/**
 * The one composition of middleware every function goes through: it reads typed input from the API Gateway
 * event, maps every error to problem+json in one place, and puts the same headers on every response.
 */

/** What a handler receives. */
export interface Input<P extends ParameterParsers> {
  path: Record<string, string>;
  query: ParsedQuery<P>;
  principal: Principal;
  requestId: string;
  now: Date;
  /** Whether the client holds the answer with this entity tag (If-None-Match, weak comparison), and named any. */
  held: Held;
  /** The representation the answer will have (the `format` of one of the operation's representations; `json` by default). */
  format: string;
}

/** A body with a status other than 200 (the health check's 503). */
export class Reply<T> {
  constructor(
    readonly statusCode: number,
    readonly body: T,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A 503 that still carries its body (the health check's), with the stage's Retry-After. */
export function unavailableReply<T>(body: T): Reply<T> {
  return new Reply(HTTP.SERVICE_UNAVAILABLE, body, contract.retryAfterHeaders(HTTP.SERVICE_UNAVAILABLE, config.retryAfterSeconds));
}

type Event = Partial<APIGatewayProxyEvent>;
type Middleware = MiddlewareObj<Event, APIGatewayProxyResult, Error, Context>;

const JSON_TYPE = JSON_REPRESENTATION.mediaType;

function requestIdOf(event: Event, context: Context): string {
  return event.requestContext?.requestId ?? context.awsRequestId;
}

function principalOf(event: Event): Principal {
  const authorizer = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  if (authorizer && typeof authorizer.accounts === 'string') {
    return { accounts: decodeScope(authorizer.accounts), keyId: String(authorizer.keyId ?? '') };
  }
  // With keys required, a request that reached a function without the authorizer's context is refused, so a
  // misconfigured route fails closed.
  if (config.authMode === 'required') throw unauthorized();
  return EVERYONE;
}

/** What a client is told of a misconfiguration: that it is one, and where its cause is; never the table or the role. */
const MISCONFIGURED_DETAIL =
  'The service is misconfigured: its database refused it (a missing table, permission or credentials). The log names the cause under this request id.';

const DATABASE_LINES = { unavailable: 'database unavailable', misconfigured: 'database misconfigured' };

/** Maps any error to problem+json; unknown errors become a generic 500, logged with the request id. */
const problemErrors = (): Middleware => ({
  onError: async (request) => {
    const requestId = requestIdOf(request.event, request.context);
    let problem = request.error;
    // The store's own words for a database that did not serve the call: an outage is always a 503, logged with
    // what the SDK or the network said; a misconfiguration is a 500 whose cause (the table, the permission) is
    // logged, never shown.
    if (logDatabaseFailure(problem, { request_id: requestId }, DATABASE_LINES)) {
      problem =
        problem instanceof DatabaseError
          ? serviceUnavailable(problem.fault === 'throttled' ? 'The database is busy (throttling requests). Retry later.' : undefined)
          : new HttpProblem('INTERNAL_ERROR', MISCONFIGURED_DETAIL);
    }
    if (!(problem instanceof HttpProblem)) {
      // The one line with the stack; the client sees only the request id.
      logger.error('unexpected error', { request_id: requestId, error: problem });
      problem = new HttpProblem('INTERNAL_ERROR', 'The request failed unexpectedly.');
    }
    const { code, status, title, detail, errors, accountId } = problem as HttpProblem;
    // A 404 for an account names the nearest ids the caller may see (api/operations/suggestions.ts).
    const suggestions = accountId === undefined ? undefined : await suggestAccounts(principalOf(request.event), accountId);
    request.response = {
      statusCode: status,
      headers: { 'Content-Type': contract.PROBLEM_CONTENT_TYPE, ...contract.retryAfterHeaders(status, config.retryAfterSeconds) },
      body: JSON.stringify({
        ...contract.problemBody({ code, status, title, detail, instance: request.event.path ?? '', requestId, errors }),
        ...(suggestions ? { suggestions } : {}),
      }),
    };
  },
});

/** The access line (telemetry.ts's logAccess), after the response or the error's. */
const accessLog = (): Middleware => {
  const started = new WeakMap<object, number>();
  const log: Middleware['after'] = async (request) => {
    const status = request.response?.statusCode ?? HTTP.INTERNAL_ERROR;
    logAccess(request.event, requestIdOf(request.event, request.context), status, started.get(request.event) ?? performance.now());
  };
  return {
    before: async (request) => {
      started.set(request.event, performance.now());
    },
    after: log,
    onError: log,
  };
};

function headerOf(event: Event, name: string): string | undefined {
  return Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;
}

/**
 * Cheap polling: every 200 carries an ETag, and a request whose If-None-Match names it gets 304 with no body and
 * the same headers. An operation that tags its answer before reading it (the fleet's, from its version) has
 * set both already; any other 200 gets a strong tag derived from its body, which is still computed (and its items
 * read): what is saved there is the transfer.
 */
const conditionalGet = (): Middleware => ({
  after: async (request) => {
    const response = request.response;
    if (!response || response.statusCode !== HTTP.OK || response.headers?.ETag !== undefined) return;
    const tag = entityTag(response.body);
    response.headers = { ...response.headers, ETag: tag };
    if (noneMatch(headerOf(request.event, 'if-none-match'), tag)) {
      response.statusCode = HTTP.NOT_MODIFIED;
      response.body = '';
    }
  },
});

/** Headers every response carries, errors included. */
const responseHeaders = (): Middleware => {
  const addHeaders: Middleware['after'] = async (request) => {
    if (!request.response) return;
    const origin = headerOf(request.event, 'origin');
    const cors = corsHeaders(origin, config.corsAllowedOrigins);
    // A negotiated answer varies by Accept as well as by Origin: both are named.
    const vary = [request.response.headers?.Vary, cors.Vary].filter((value) => value !== undefined);
    request.response.headers = {
      ...request.response.headers,
      'X-Request-Id': requestIdOf(request.event, request.context),
      ...contract.API_HEADERS,
      ...cors,
      ...(vary.length ? { Vary: vary.join(', ') } : {}),
    };
  };
  return { after: addHeaders, onError: addHeaders };
};

/**
 * Wraps a handler: `run` gets typed input and returns a body (200) or a Reply. Query parameters are parsed with
 * `parameters`; one not listed there is a 400. A `public` operation needs no key and sees no account. An operation
 * with `representations` answers its 200s in the one the request asks for (the first by default; see
 * `chosenRepresentation`); the others answer JSON.
 */
export function httpHandler<P extends ParameterParsers, T>(
  parameters: P,
  run: (input: Input<P>) => Promise<T | Reply<T> | Validated<T>>,
  options: { public?: boolean; representations?: readonly Representation<T>[] } = {},
) {
  const offered = options.representations ?? [JSON_REPRESENTATION as Representation<T>];
  const negotiated = offered.length > 1;
  const composed = middy<Event, APIGatewayProxyResult, Error, Context>()
    .use(injectLambdaContext(logger))
    .use(accessLog())
    .use(responseHeaders())
    .use(conditionalGet())
    .use(problemErrors())
    .handler(async (event, context) => {
      // Who is asking is settled before anything about the request is, so an unauthenticated call learns nothing.
      const principal = options.public ? NOBODY : principalOf(event);
      const raw: Record<string, readonly string[] | undefined> =
        event.multiValueQueryStringParameters ??
        Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).map(([name, value]) => [name, [value ?? '']]));
      const query = parseQuery(parameters, raw);
      const representation = chosenRepresentation(offered, (query as { format?: unknown }).format, headerOf(event, 'accept'));
      const input: Input<P> = {
        path: Object.fromEntries(Object.entries(event.pathParameters ?? {}).map(([name, value]) => [name, value ?? ''])),
        query,
        principal,
        requestId: requestIdOf(event, context),
        now: new Date(),
        held: heldOf(headerOf(event, 'if-none-match'), noneMatch),
        format: representation.format,
      };
      const result = await run(input);
      // A Validated answer carries the operation's own tag: a 304 for an answer the client holds, a 200 otherwise;
      // a 304 carries the headers its 200 would (RFC 9110 asks for ETag; the rest keeps clients' caches simple).
      if (result instanceof Validated) {
        const headers = { 'Content-Type': JSON_TYPE, ETag: result.tag };
        if (result.body === undefined) return { statusCode: HTTP.NOT_MODIFIED, headers, body: '' };
        return { statusCode: HTTP.OK, headers, body: JSON.stringify(result.body) };
      }
      if (representation !== JSON_REPRESENTATION && !(result instanceof Reply)) {
        return represented(representation, result, { query: raw }, negotiated);
      }
      const reply = result instanceof Reply ? result : new Reply(HTTP.OK, result);
      return {
        statusCode: reply.statusCode,
        headers: { 'Content-Type': JSON_TYPE, ...reply.headers },
        body: JSON.stringify(reply.body),
      };
    });
  // Each request counts its own DynamoDB reads, even when requests of one instance overlap (serverless offline).
  return (event: Event, context: Context): Promise<APIGatewayProxyResult> => withReadTally(() => composed(event, context));
}
