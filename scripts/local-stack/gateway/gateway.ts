/**
 * The local stand-in for what API Gateway does in front of the functions in a deployed stage, and the one door to
 * serverless offline (which listens only on private Unix sockets, see ../offline.ts). serverless offline runs the real
 * handlers, but its own gateway emulation differs from API Gateway where it matters: it reflects any Origin with
 * credentials, serves any Host, lists its routes on a 404, answers 401/403 in its own shape, turns a failing key
 * lookup into a 401, accepts a forged `sls-offline-authorizer-override` header, and answers some failures with an
 * empty 5xx. Here, each of those is decided as the deployed stage decides it, from the same definitions:
 *
 * - Host: only loopback names (DNS rebinding would otherwise let any web page read the API).
 * - Routes and methods: serverless.yml's, matched on the path as written by openapi.yaml's rules (routes.ts: a
 *   trailing slash, percent-encoding, dot segments); anything else is API Gateway's MISSING_AUTHENTICATION_TOKEN
 *   response, which the stage renders as a 404 problem (resources/gateway-responses.js).
 * - CORS: the preflight as the deployed stage answers it (serverless.yml's `cors` block, as resources/stage-options.js
 *   leaves it: an origin only to an allowed Origin); every response's CORS headers by the stage's allow-list
 *   (api/http/cors.ts, the functions' own rules), this gateway's own refusals the stage's fixed ones. Never credentials.
 * - API keys (AUTH=on): the real authorizer function, invoked through serverless offline's Lambda API, and its
 *   outcome read by the rules the in-process tests use too (../gateway-rules.ts).
 * - Failures: a 5xx that no function produced becomes the stage's problem+json gateway response.
 * - Load: a bounded number of requests in flight, a bounded queue, and the stage's 429 beyond it.
 *
 * LAMBDA_PORT is the Lambda Invoke API for the functions that no route serves (lambda-door.ts), started beside it. The
 * other concerns have files of their own here: the routes' matching (routes.ts), the concurrency gate (gate.ts),
 * gzip (gzip.ts), refusals of requests Node cannot parse (refusals.ts) and the plumbing the doors share
 * (http-server.ts); the database's door is ../database-door.ts.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import gatewayResponses from '../../../resources/gateway-responses.js';
import contract from '../../../resources/http-contract.js';
import stages from '../../../resources/stages.js';
import { corsHeaders, originAllowed } from '../../../api/http/cors';
import { authorizerDecision, authorizerEvent, type Decision, identityPresent } from '../gateway-rules';
import { invokeFunction, requestOverSocket, type Offline } from '../offline';
import { functionName, type HttpRoute, serviceDefinition } from '../service-definition';
import { countingGate } from './gate';
import { compressed } from './gzip';
import { type Answer, firstHeader, type Headers, isAllowedHost, keptHeaders, listen, localProblem, misdirected, send } from './http-server';
import { startLambdaDoor } from './lambda-door';
import { API_GATEWAY_HEADER_LIMIT, refuseMalformed } from './refusals';
import { matchRoute, percentDecoded, routePath } from './routes';

export interface LocalGatewayOptions {
  stage: string;
  /** API port on 127.0.0.1 (0: any free port). */
  port: number;
  /** Lambda Invoke API port on 127.0.0.1 (0: any free port). */
  lambdaPort: number;
  offline: Pick<Offline, 'httpSocket' | 'lambdaSocket'>;
  /** Run the API-key authorizer in front of the routes that declare it, as deployed stages do. */
  auth: boolean;
  /** Where the API port listens (LISTEN): 127.0.0.1 unless the operator opts in (docs/operations.md). */
  listenAddress?: string;
  /** Host names answered beside the loopback ones (ALLOWED_HOSTS): those a TLS reverse proxy forwards. */
  allowedHosts?: string[];
}

/** Requests in flight to the functions at once, and waiting beyond those; more are answered 429. */
const MAX_IN_FLIGHT = 8;
const MAX_QUEUED = 1000;

/** serverless offline's own channel for a faked authorizer context: only this gateway may set it. */
const AUTHORIZER_OVERRIDE = 'sls-offline-authorizer-override';

/**
 * Headers of serverless offline's answers that are not the function's: its CORS (credentials, any origin; the
 * gateway decides CORS), hapi's `accept-ranges`, and hop-by-hop and length headers, which this gateway sets itself.
 */
const NOT_FROM_FUNCTION = /^(access-control-.*|vary|accept-ranges|connection|keep-alive|transfer-encoding|content-length|date)$/i;

/** A request-target as written (origin-form): its path, undecoded and unnormalised, and its query with the `?`. */
function requestTarget(url: string | undefined) {
  // The absolute form (`GET http://localhost:3000/api/health`) names the same target after its authority.
  const text = (url ?? '/').replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '') || '/';
  const query = text.indexOf('?');
  return query < 0 ? { path: text, search: '' } : { path: text.slice(0, query), search: text.slice(query) };
}

/** Starts the gateway on PORT and the Lambda Invoke API on LAMBDA_PORT, both on 127.0.0.1. */
export async function startLocalGateway(options: LocalGatewayOptions) {
  const definition = serviceDefinition();
  // The stage's settings, CORS_ALLOWED_ORIGINS among them, as the functions behind it run with (../local-api.ts).
  const settings = stages.stageSettings(options.stage);
  const allowList = settings.corsOrigins;
  const enterGate = countingGate(MAX_IN_FLIGHT, MAX_QUEUED);
  // Functions a route serves or guards are reached only through this gateway.
  const httpFunctions = new Set(definition.routes.flatMap((route) => [route.functionKey, ...(route.authorizer ? [route.authorizer] : [])]));
  const invokable = new Set(definition.functions.filter((key) => !httpFunctions.has(key)).map((key) => functionName(options.stage, key)));

  // Exactly the stage's gateway response, static headers included (it cannot echo an origin when deployed either).
  const gatewayAnswer = (type: string, requestId: string, resourcePath: string): Answer =>
    gatewayResponses.render(type, { requestId, resourcePath }, settings);
  // This gateway's own refusals (a foreign Host, a malformed request) carry the CORS headers of the stage's.
  const refusalHeaders: Headers = gatewayResponses.staticCorsHeaders(settings);
  const refusal = (answer: Answer): Answer => ({ ...answer, headers: { ...answer.headers, ...refusalHeaders } });

  const preflight = (origin: string | undefined, methods: string[]): Answer => {
    // As the deployed preflight (resources/stage-options.js): the request's origin when the allow-list has it (`*`
    // when it allows every origin), otherwise none; the security headers of every answer.
    const every = allowList.includes('*');
    const allowOrigin = every ? '*' : origin !== undefined && originAllowed(origin, allowList) ? origin : undefined;
    const headers: Headers = {
      'Content-Type': 'application/json',
      ...contract.API_HEADERS,
      ...(allowOrigin ? { 'Access-Control-Allow-Origin': allowOrigin } : {}),
      ...(every ? {} : { Vary: 'Origin' }),
      'Access-Control-Allow-Headers': definition.cors.headers.join(','),
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(','),
    };
    if (definition.cors.maxAge) headers['Access-Control-Max-Age'] = String(definition.cors.maxAge);
    return { statusCode: 200, headers, body: '' };
  };

  async function authorize(
    req: IncomingMessage,
    route: HttpRoute,
    params: Record<string, string>,
    requestId: string,
    target: ReturnType<typeof requestTarget>,
  ): Promise<Decision> {
    if (!identityPresent(req.headers, route.identityHeaders)) return { refusal: 'UNAUTHORIZED' };
    const event = authorizerEvent({
      stage: options.stage,
      method: route.method,
      resourcePath: route.path,
      path: target.path,
      headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, firstHeader(value) ?? ''])),
      multiValueHeaders: Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value : [value ?? '']]),
      ),
      queryStringParameters: Object.fromEntries(new URLSearchParams(target.search)),
      pathParameters: params,
      requestId,
    });
    const outcome = await invokeFunction(options.offline, options.stage, route.authorizer!, event).then(
      ({ failed, result }) => (failed ? { failed, error: result } : { failed, result }),
      (error: unknown) => ({ failed: true as const, error }),
    );
    return authorizerDecision(outcome, event.methodArn);
  }

  async function handleApi(req: IncomingMessage): Promise<Answer> {
    const requestId = randomUUID();
    const origin = firstHeader(req.headers.origin);
    if (!isAllowedHost(req.headers.host, options.allowedHosts)) return refusal(misdirected(requestId));
    const target = requestTarget(req.url);
    if (percentDecoded(target.path) === undefined) {
      return refusal(
        localProblem({
          code: 'INVALID_PARAMETER',
          title: 'Bad request',
          detail: 'The path has a "%" that does not start a valid UTF-8 percent-encoding (write a "%" itself as %25).',
          requestId,
        }),
      );
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const { route, pathExists, params } = matchRoute(definition.routes, method === 'OPTIONS' ? 'GET' : method, target.path);
    if (method === 'OPTIONS' && pathExists) {
      return preflight(origin, [
        ...new Set(definition.routes.filter((r) => matchRoute([r], r.method, target.path).route).map((r) => r.method)),
      ]);
    }
    if (!route) return gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', requestId, '');
    const release = await enterGate();
    if (!release) return gatewayAnswer('THROTTLED', requestId, route.path);
    try {
      const headers: Record<string, string | string[] | undefined> = { ...req.headers };
      delete headers[AUTHORIZER_OVERRIDE];
      if (options.auth && route.authorizer) {
        const decision = await authorize(req, route, params, requestId, target);
        if ('refusal' in decision) return gatewayAnswer(decision.refusal, requestId, route.path);
        headers[AUTHORIZER_OVERRIDE] = JSON.stringify(decision.context);
      }
      // The route's own path: serverless offline routes it as API Gateway routed the request's (a trailing slash, an
      // encoded letter).
      const path = `${routePath(route, params)}${target.search}`;
      const answer = await requestOverSocket(options.offline.httpSocket, { method: req.method ?? 'GET', path, headers }).catch(
        () => undefined,
      );
      if (!answer) return gatewayAnswer('INTEGRATION_FAILURE', requestId, route.path);
      if (answer.status >= 500 && answer.headers['x-request-id'] === undefined) {
        // serverless offline's own failure (a crash, a timeout): API Gateway answers these with its 5xx responses.
        return gatewayAnswer(answer.status === 504 ? 'INTEGRATION_TIMEOUT' : 'DEFAULT_5XX', requestId, route.path);
      }
      return {
        statusCode: answer.status,
        headers: { ...keptHeaders(answer.headers, NOT_FROM_FUNCTION), ...corsHeaders(origin, allowList) },
        body: answer.body,
      };
    } finally {
      release();
    }
  }

  const onMalformed = (error: NodeJS.ErrnoException, socket: Duplex) => refuseMalformed(error, socket, refusalHeaders);
  const api = await listen(
    options.port,
    { maxHeaderSize: API_GATEWAY_HEADER_LIMIT, onMalformed, address: options.listenAddress },
    async (req, res) => {
      // The request body is not read: every route is a GET, and API Gateway does not pass a GET's body on either.
      req.resume();
      send(res, compressed(req, await handleApi(req), definition.minimumCompressionSize));
    },
  );
  const lambda = await startLambdaDoor({
    port: options.lambdaPort,
    lambdaSocket: options.offline.lambdaSocket,
    invokable,
    apiPort: () => api.port,
  });
  return {
    url: `http://127.0.0.1:${api.port}`,
    lambdaUrl: `http://127.0.0.1:${lambda.port}`,
    close: async () => {
      await Promise.all([api.close(), lambda.close()]);
    },
  };
}
