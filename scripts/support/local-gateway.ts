/**
 * The local stand-in for what API Gateway does in front of the functions in a deployed stage, and the one door to
 * serverless offline (which listens only on private Unix sockets, see offline.ts). serverless offline runs the real
 * handlers, but its own gateway emulation differs from API Gateway where it matters: it reflects any Origin with
 * credentials, serves any Host, lists its routes on a 404, answers 401/403 in its own shape, turns a failing key
 * lookup into a 401, accepts a forged `sls-offline-authorizer-override` header, and answers some failures with an
 * empty 5xx. Here, each of those is decided as the deployed stage decides it, from the same definitions:
 *
 * - Host: only loopback names (DNS rebinding would otherwise let any web page read the API).
 * - Routes and methods: serverless.yml's; anything else is API Gateway's MISSING_AUTHENTICATION_TOKEN response,
 *   which the stage renders as a 404 problem (resources/gateway-responses.js).
 * - CORS: the preflight as serverless.yml's `cors` block compiles it; every response's CORS headers by the stage's
 *   allow-list (lib/http/cors.ts, the functions' own rules). Never credentials.
 * - API keys (AUTH=on): the real authorizer function, invoked through serverless offline's Lambda API, and its
 *   outcome read by the rules the in-process tests use too (gateway-rules.ts).
 * - Failures: a 5xx that no function produced becomes the stage's problem+json gateway response.
 * - Load: a bounded number of requests in flight, a bounded queue, and the stage's 429 beyond it.
 *
 * LAMBDA_PORT is the Lambda Invoke API for the functions that no route serves (such as the scheduled probe). HTTP
 * functions cannot be invoked there: their caller's identity is only ever established here, on PORT.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  Agent as HttpAgent,
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Duplex } from 'node:stream';
import gatewayResponses from '../../resources/gateway-responses.js';
import contract from '../../resources/http-contract.js';
import stages from '../../resources/stages.js';
import { corsHeaders, originAllowed } from '../../lib/http/cors';
import { authorizerDecision, authorizerEvent, type Decision, identitySource } from './gateway-rules';
import { requestOverSocket, type Offline, type SocketResponse } from './offline';
import { functionName, type HttpRoute, serviceDefinition } from './service-definition';

export interface LocalGatewayOptions {
  stage: string;
  /** API port on 127.0.0.1 (0: any free port). */
  port: number;
  /** Lambda Invoke API port on 127.0.0.1 (0: any free port). */
  lambdaPort: number;
  offline: Pick<Offline, 'httpSocket' | 'lambdaSocket'>;
  /** Run the API-key authorizer in front of the routes that declare it, as deployed stages do. */
  auth: boolean;
  /** The stage's CORS allow-list (CORS_ALLOWED_ORIGINS). */
  corsAllowedOrigins: string[];
  /** Requests in flight to the functions at once, and waiting beyond those; more are answered 429. */
  maxInFlight?: number;
  maxQueued?: number;
}

export interface LocalGateway {
  url: string;
  lambdaUrl: string;
  port: number;
  lambdaPort: number;
  close(): Promise<void>;
}

/** Host names a local request may carry: loopback only, any port. */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

/** serverless offline's own channel for a faked authorizer context: only this gateway may set it. */
const AUTHORIZER_OVERRIDE = 'sls-offline-authorizer-override';

/**
 * Headers of serverless offline's answers that are not the function's: its CORS (credentials, any origin; the
 * gateway decides CORS), hapi's `accept-ranges`, and hop-by-hop and length headers, which this gateway sets itself.
 */
const NOT_FROM_FUNCTION = /^(access-control-.*|vary|accept-ranges|connection|keep-alive|transfer-encoding|content-length|date)$/i;

type Headers = Record<string, string>;

interface Answer {
  status: number;
  headers: Headers;
  body: string | Buffer;
}

/** Loopback only, any port: the Host header check against DNS rebinding. */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && LOOPBACK_HOST.test(host);
}

/** A route's literal segments as a bit string, leftmost first: API Gateway prefers `/api/all/status` to `/api/{account}/status`. */
function specificity(route: HttpRoute): string {
  return route.path
    .split('/')
    .map((part) => (/^\{\w+\}$/.test(part) ? '0' : '1'))
    .join('');
}

/**
 * The route a path and method reach, by API Gateway's rules: exact segments, `{name}` matching one segment, and a
 * literal segment winning over a `{name}` in the same place.
 */
export function matchRoute(
  routes: readonly HttpRoute[],
  method: string,
  path: string,
): { route?: HttpRoute; pathExists: boolean; params: Record<string, string> } {
  const segments = path.split('/');
  let pathExists = false;
  const bySpecificity = [...routes].sort((a, b) => (specificity(a) < specificity(b) ? 1 : specificity(a) > specificity(b) ? -1 : 0));
  for (const route of bySpecificity) {
    const template = route.path.split('/');
    if (template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = template.every((part, i) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!name) return part === segments[i];
      if (segments[i] === '') return false;
      params[name] = safeDecode(segments[i]);
      return true;
    });
    if (!matches) continue;
    pathExists = true;
    if (route.method === method) return { route, pathExists, params };
  }
  return { pathExists, params: {} };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A counting gate: at most `limit` holders; waiters beyond `maxQueued` are refused. */
class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly maxQueued: number,
  ) {}

  /** Resolves with a release function, or with undefined when the queue is full. */
  async enter(): Promise<(() => void) | undefined> {
    if (this.active >= this.limit) {
      if (this.waiting.length >= this.maxQueued) return undefined;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active += 1;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter; otherwise it is freed.
      if (next) next();
      else this.active -= 1;
    };
  }
}

/** Starts the gateway on PORT and the Lambda Invoke API on LAMBDA_PORT, both on 127.0.0.1. */
export async function startLocalGateway(options: LocalGatewayOptions): Promise<LocalGateway> {
  const definition = serviceDefinition();
  const settings = stages.stageSettings(options.stage, { ...process.env, CORS_ALLOWED_ORIGINS: options.corsAllowedOrigins.join(',') });
  const gate = new Gate(options.maxInFlight ?? 8, options.maxQueued ?? 1000);
  // Functions a route serves or guards are reached only through this gateway.
  const httpFunctions = new Set(definition.routes.flatMap((route) => [route.functionKey, ...(route.authorizer ? [route.authorizer] : [])]));
  const invokable = new Map(
    definition.functions.filter((key) => !httpFunctions.has(key)).map((key) => [functionName(options.stage, key), key]),
  );

  // Exactly the stage's gateway response, static headers included (it cannot echo an origin when deployed either).
  const gatewayAnswer = (type: string, requestId: string, resourcePath: string): Answer => {
    const rendered = gatewayResponses.render(type, { requestId, resourcePath }, settings);
    return { status: rendered.statusCode, headers: rendered.headers, body: rendered.body };
  };

  const preflight = (origin: string | undefined, methods: string[]): Answer => {
    // As serverless.yml's `cors` compiles: the first entry unless the request's origin matches one.
    const allowList = options.corsAllowedOrigins;
    const allowOrigin = origin !== undefined && originAllowed(origin, allowList) ? origin : allowList[0];
    const headers: Headers = {
      'Content-Type': 'application/json',
      // As the deployed preflight (resources/stage-options.js adds them to its mock integration).
      ...contract.API_HEADERS,
      'Access-Control-Allow-Origin': allowOrigin,
      'Access-Control-Allow-Headers': definition.cors.headers.join(','),
      'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(','),
    };
    if (definition.cors.maxAge) headers['Access-Control-Max-Age'] = String(definition.cors.maxAge);
    return { status: 200, headers, body: '' };
  };

  async function authorize(
    req: IncomingMessage,
    route: HttpRoute,
    params: Record<string, string>,
    requestId: string,
    url: URL,
  ): Promise<Decision> {
    if (!identitySource(req.headers)) return { refusal: 'UNAUTHORIZED' };
    const event = authorizerEvent({
      stage: options.stage,
      method: route.method,
      resourcePath: route.path,
      path: url.pathname,
      headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, firstHeader(value) ?? ''])),
      multiValueHeaders: Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value : [value ?? '']]),
      ),
      queryStringParameters: Object.fromEntries(url.searchParams),
      pathParameters: params,
      requestId,
    });
    let answer: SocketResponse;
    try {
      answer = await requestOverSocket(options.offline.lambdaSocket, {
        method: 'POST',
        path: `/2015-03-31/functions/${functionName(options.stage, route.authorizer!)}/invocations`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(event),
      });
    } catch (error) {
      return authorizerDecision({ failed: true, error }, event.methodArn);
    }
    const result: unknown = JSON.parse(answer.body.toString() || 'null');
    // Lambda answers a failed invocation with 200 and this header, its error in the body; "Unauthorized" passed to the
    // callback arrives as the bare string.
    const failed = answer.headers['x-amz-function-error'] !== undefined || answer.status !== 200;
    return authorizerDecision(failed ? { failed, error: result } : { failed, result }, event.methodArn);
  }

  async function forward(
    req: IncomingMessage,
    url: URL,
    authorizer: Record<string, unknown> | undefined,
    requestId: string,
    route: HttpRoute,
  ): Promise<Answer> {
    const headers: Record<string, string | string[] | undefined> = { ...req.headers };
    delete headers[AUTHORIZER_OVERRIDE];
    if (authorizer) headers[AUTHORIZER_OVERRIDE] = JSON.stringify(authorizer);
    let answer: SocketResponse;
    try {
      answer = await requestOverSocket(options.offline.httpSocket, {
        method: req.method ?? 'GET',
        path: `${url.pathname}${url.search}`,
        headers,
      });
    } catch {
      return gatewayAnswer('INTEGRATION_FAILURE', requestId, route.path);
    }
    const fromFunction = answer.headers['x-request-id'] !== undefined;
    if (answer.status >= 500 && !fromFunction) {
      // serverless offline's own failure (a crash, a timeout): API Gateway answers these with its 5xx responses.
      return gatewayAnswer(answer.status === 504 ? 'INTEGRATION_TIMEOUT' : 'DEFAULT_5XX', requestId, route.path);
    }
    const kept: Headers = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || NOT_FROM_FUNCTION.test(name)) continue;
      kept[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return {
      status: answer.status,
      headers: { ...kept, ...corsHeaders(firstHeader(req.headers.origin), options.corsAllowedOrigins) },
      body: answer.body,
    };
  }

  async function handleApi(req: IncomingMessage): Promise<Answer> {
    const requestId = randomUUID();
    const origin = firstHeader(req.headers.origin);
    if (!isLoopbackHost(req.headers.host)) return misdirected(requestId);
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!validPercentEncoding(url.pathname)) {
      return fromProblem(
        localProblem({
          code: 'INVALID_PARAMETER',
          title: 'Bad request',
          detail: 'The path has a "%" that does not start a valid UTF-8 percent-encoding (write a "%" itself as %25).',
          requestId,
        }),
      );
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const { route, pathExists, params } = matchRoute(definition.routes, method === 'OPTIONS' ? 'GET' : method, url.pathname);
    if (method === 'OPTIONS' && pathExists) {
      return preflight(origin, [
        ...new Set(definition.routes.filter((r) => matchRoute([r], r.method, url.pathname).route).map((r) => r.method)),
      ]);
    }
    if (!route) return gatewayAnswer('MISSING_AUTHENTICATION_TOKEN', requestId, '');
    const release = await gate.enter();
    if (!release) return gatewayAnswer('THROTTLED', requestId, route.path);
    try {
      let context: Record<string, unknown> | undefined;
      if (options.auth && route.authorizer) {
        const decision = await authorize(req, route, params, requestId, url);
        if ('refusal' in decision) return gatewayAnswer(decision.refusal, requestId, route.path);
        context = decision.context;
      }
      return await forward(req, url, context, requestId, route);
    } finally {
      release();
    }
  }

  async function handleLambda(req: IncomingMessage, body: Buffer): Promise<Answer> {
    const requestId = randomUUID();
    if (!isLoopbackHost(req.headers.host)) return misdirected(requestId);
    // A browser always says where a cross-site or same-site request comes from; the AWS CLI and SDKs never do.
    if (req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined || req.headers['sec-fetch-mode'] !== undefined) {
      return lambdaError(403, 'AccessDeniedException', 'Requests from web pages are refused.');
    }
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(new URL(req.url ?? '/', 'http://localhost').pathname);
    if (!match || req.method !== 'POST')
      return lambdaError(404, 'ResourceNotFoundException', 'Only Invoke (POST /2015-03-31/functions/{name}/invocations) is served.');
    const name = safeDecode(match[1]);
    if (!invokable.has(name)) {
      return lambdaError(
        403,
        'AccessDeniedException',
        `${name} cannot be invoked here: functions behind the API are reached through the API on port ${servers.api.port} (their caller's identity is established there); invokable: ${[...invokable.keys()].join(', ') || 'none'}.`,
      );
    }
    const answer = await requestOverSocket(options.offline.lambdaSocket, {
      method: 'POST',
      path: `/2015-03-31/functions/${encodeURIComponent(name)}/invocations`,
      headers: {
        'content-type': 'application/json',
        'x-amz-invocation-type': firstHeader(req.headers['x-amz-invocation-type']) ?? 'RequestResponse',
      },
      body,
    });
    const headers: Headers = { 'Content-Type': 'application/json' };
    for (const name of ['x-amz-function-error', 'x-amzn-errortype']) {
      const value = firstHeader(answer.headers[name]);
      if (value) headers[name] = value;
    }
    return { status: answer.status, headers, body: answer.body };
  }

  function misdirected(requestId: string): Answer {
    return fromProblem(
      localProblem({
        code: 'MISDIRECTED_REQUEST',
        detail: 'This local server answers only requests addressed to localhost, 127.0.0.1 or [::1].',
        requestId,
      }),
    );
  }

  const servers = {
    api: await listen(options.port, { maxHeaderSize: API_GATEWAY_HEADER_LIMIT, onMalformed: refuseMalformed }, async (req, res) => {
      // The request body is not read: every route is a GET, and API Gateway does not pass a GET's body on either.
      req.resume();
      send(res, compressed(req, await handleApi(req), definition.minimumCompressionSize));
    }),
    lambda: await listen(options.lambdaPort, {}, async (req, res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req) {
        size += (chunk as Buffer).length;
        // Lambda's own limit for a synchronous invocation's payload.
        if (size > 6 * 2 ** 20) return send(res, lambdaError(413, 'RequestTooLargeException', 'The payload exceeds 6 MB.'));
        chunks.push(chunk as Buffer);
      }
      send(res, await handleLambda(req, Buffer.concat(chunks)));
    }),
  };
  return {
    url: `http://127.0.0.1:${servers.api.port}`,
    lambdaUrl: `http://127.0.0.1:${servers.lambda.port}`,
    port: servers.api.port,
    lambdaPort: servers.lambda.port,
    close: async () => {
      await Promise.all([servers.api.close(), servers.lambda.close()]);
    },
  };
}

function lambdaError(status: number, type: string, message: string): Answer {
  return {
    status,
    headers: { 'Content-Type': 'application/json', 'x-amzn-ErrorType': type },
    body: JSON.stringify({ Type: 'User', message }),
  };
}

/**
 * As API Gateway with `minimumCompressionSize`: a body of that many bytes or more is gzipped for a client whose
 * Accept-Encoding allows it (a 304, having no body, never is).
 */
function compressed(req: IncomingMessage, answer: Answer, minimumSize: number | undefined): Answer {
  const accepts = /\bgzip\b/i.test(firstHeader(req.headers['accept-encoding']) ?? '');
  if (minimumSize === undefined || !accepts || Buffer.byteLength(answer.body) < minimumSize || answer.headers['content-encoding'])
    return answer;
  return { ...answer, headers: { ...answer.headers, 'Content-Encoding': 'gzip' }, body: gzipSync(answer.body) };
}

function send(res: ServerResponse, answer: Answer): void {
  if (res.headersSent) return;
  res.writeHead(answer.status, { ...answer.headers, 'Content-Length': String(Buffer.byteLength(answer.body)) });
  res.end(answer.body);
}

/** API Gateway's limit on a request's line and headers together, in bytes: beyond it, 431. */
const API_GATEWAY_HEADER_LIMIT = 10_240;

/** A refusal of this gateway's own, in the shape and with the headers of the stage's gateway responses. */
function localProblem(problem: Parameters<typeof contract.problemAnswer>[0]) {
  return contract.problemAnswer({ ...problem, contentType: contract.GATEWAY_PROBLEM_CONTENT_TYPE });
}

function fromProblem(problem: { statusCode: number; headers: Record<string, string>; body: string }): Answer {
  return { status: problem.statusCode, headers: problem.headers, body: problem.body };
}

/** Whether every `%` of `path` starts a percent-encoding that decodes (as UTF-8). */
function validPercentEncoding(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A request to the API that Node's parser refuses before any handler sees it (a raw space, NUL or non-ASCII byte in
 * the path, an obs-fold header, a header block over the limit): answered as a problem, like every other refusal,
 * then closed.
 */
function refuseMalformed(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const { statusCode, headers, body } = localProblem({
    status: tooLarge ? 431 : 400,
    code: 'INVALID_PARAMETER',
    title: tooLarge ? 'Request header fields too large' : 'Bad request',
    detail: tooLarge
      ? `The request line and headers are over ${API_GATEWAY_HEADER_LIMIT} bytes, API Gateway's limit: send a shorter query or fewer headers.`
      : 'The request is not valid HTTP/1.1: a path must be percent-encoded (no raw space, control or non-ASCII byte) and a header may not continue on the next line.',
    requestId: randomUUID(),
  });
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  const head = Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  socket.end(`HTTP/1.1 ${statusCode} ${reason}\r\n${head.join('')}\r\n${body}`);
}

async function listen(
  port: number,
  settings: { maxHeaderSize?: number; onMalformed?: (error: NodeJS.ErrnoException, socket: Duplex) => void },
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer({ maxHeaderSize: settings.maxHeaderSize }, (req, res) => {
    handle(req, res).catch((error: Error) => {
      // A fault of this gateway itself: still a problem body, never an empty 5xx.
      console.error(`local gateway: ${error.stack ?? error.message}`);
      const problem = localProblem({
        code: 'SERVICE_UNAVAILABLE',
        detail: 'The local gateway failed to complete the request. Retry later.',
        requestId: randomUUID(),
        retryAfterSeconds: stages.DEFAULTS.retryAfterSeconds,
      });
      send(res, fromProblem(problem));
    });
  });
  // Otherwise Node's own answer: an empty 400 or 431 (the Lambda port and the database door serve SDKs, not the API).
  if (settings.onMalformed) server.on('clientError', settings.onMalformed);
  server.keepAliveTimeout = 5000;
  server.listen(port, '127.0.0.1');
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([error]) => Promise.reject(error))]);
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the local gateway did not get a port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * DB_PORT: the door to DynamoDB Local for the project's tools (keys CLI, importer, demo bot, `serverless invoke
 * local`). DynamoDB Local checks neither the Host header nor who is calling; this refuses what only a web page would
 * send (a non-loopback Host, as after DNS rebinding; an Origin or Sec-Fetch header) and passes the rest through.
 */
export async function startDatabaseDoor(options: {
  port: number;
  target: string;
}): Promise<{ port: number; endpoint: string; close(): Promise<void> }> {
  const target = new URL(options.target);
  const server = await listen(options.port, {}, async (req, res) => {
    if (
      !isLoopbackHost(req.headers.host) ||
      req.headers.origin !== undefined ||
      req.headers['sec-fetch-site'] !== undefined ||
      req.headers['sec-fetch-mode'] !== undefined
    ) {
      req.resume();
      return send(res, {
        status: 403,
        headers: { 'Content-Type': 'application/x-amz-json-1.0' },
        body: JSON.stringify({
          __type: 'com.amazon.coral.service#AccessDeniedException',
          Message: 'Only local programs may use this database; web pages may not.',
        }),
      });
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const answer = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
      (resolve, reject) => {
        const outgoing = httpRequest(
          {
            host: target.hostname,
            port: target.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: target.host },
            agent: databaseAgent,
          },
          async (response) => {
            const parts: Buffer[] = [];
            for await (const part of response) parts.push(part as Buffer);
            resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(parts) });
          },
        );
        outgoing.on('error', reject);
        outgoing.end(Buffer.concat(chunks));
      },
    );
    const headers: Headers = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !/^(connection|transfer-encoding|keep-alive|content-length|date)$/.test(name))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    send(res, { status: answer.status, headers, body: answer.body });
  });
  return { port: server.port, endpoint: `http://127.0.0.1:${server.port}`, close: () => server.close() };
}

const databaseAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
