/**
 * Requests generated from openapi.yaml, and what the document promises of every answer to them: a fuzzer that knows
 * the API only through its document. Each request is an operation of the document (or a path it has none for), its
 * path and query parameters valid by their schemas or hostile, with or without a key, with odd headers (an Origin
 * allowed or not, an Accept, If-None-Match, a foreign Host, a header block over the gateway's limit), by GET or
 * another method (HEAD, a CORS preflight). Sent as raw bytes, so nothing a client library would tidy is tidied.
 *
 * `answerViolations` judges an answer by the document alone: the status is one the operation declares, the body and
 * headers match its schemas (test/kit/contract.ts), refusals are well-formed problems, every answer carries the
 * headers the document promises every answer (no-store, nosniff, HSTS, `Vary: Origin`, CORS only for an allowed
 * Origin and never with credentials), and a query that breaks a parameter's schema is never answered 200 and has
 * each such parameter named in `errors`. How the document routes a path (one trailing slash ignored, an encoded
 * character the same as itself, a dot segment naming nothing) is modelled here from its words, not taken from the
 * gateway's code.
 */
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { contractViolations, openapi, schemaViolations } from './contract';

/** What the generator draws from: the stage's accounts, keys and allow-list. */
export interface FuzzEnvironment {
  /** Account ids that exist. */
  accounts: string[];
  /** Keys by name (`none` and a garbage key are drawn beside them). */
  keys: Record<string, string>;
  /** Origins the stage allows (sent as Origin), and the stage's allow-list (entries with `*`) that judges them. */
  allowedOrigins: string[];
  allowList: string[];
  /** The port the requests go to (in the Host header). */
  port: number;
}

/** One request as sent: a method, a request-target and header lines in order. */
export interface FuzzRequest {
  method: string;
  target: string;
  headers: [string, string][];
}

/** An answer as received. */
export interface FuzzAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
}

/** API Gateway's limit on a request line and headers together; the local gateway answers 431 beyond it. */
const HEAD_LIMIT = 10_240;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Record<string, any>;
}

interface Operation {
  template: string;
  parameters: Parameter[];
}

const deref = (value: any): any => {
  if (!value?.$ref) return value;
  let target: any = openapi;
  for (const part of value.$ref.slice(2).split('/')) target = target[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return deref(target);
};

/** Every GET operation of the document with its parameters resolved. */
const OPERATIONS: Operation[] = Object.entries<any>(openapi.paths).map(([template, item]) => ({
  template,
  parameters: (item.get.parameters ?? []).map(deref),
}));

const ajv = new Ajv2020({ strict: false });
addFormats(ajv);
const schemaCheck = new Map<Parameter, (value: unknown) => boolean>();
/** Whether `value` is allowed by the parameter's schema (pattern, enum, length, date-time format). */
function withinSchema(parameter: Parameter, value: string): boolean {
  if (!schemaCheck.has(parameter)) schemaCheck.set(parameter, ajv.compile(parameter.schema));
  return schemaCheck.get(parameter)!(value) as boolean;
}

/** Percent-encodes every byte of `text` (as UTF-8) that is not unreserved (RFC 3986). */
function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** RFC 3339 times in the forms the document accepts (a date alone among them, 1.7), and the edges of its range. */
const times = fc.oneof(
  fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => new Date(ms).toISOString().slice(0, 10)),
  fc
    .record({
      ms: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }),
      offsetMinutes: fc.constantFrom(0, 0, 60, -300, 330, 540, -720, 840),
      zone: fc.constantFrom('Z', 'z', 'offset', '-00:00'),
      digits: fc.integer({ min: 0, max: 9 }),
      t: fc.constantFrom('T', 't'),
    })
    .map(({ ms, offsetMinutes, zone, digits, t }) => {
      const shift = zone === 'offset' ? offsetMinutes : 0;
      const local = new Date(ms + shift * 60_000).toISOString();
      const fraction = digits ? `.${local.slice(20, 23)}${'0'.repeat(Math.max(0, digits - 3))}`.slice(0, digits + 1) : '';
      const sign = shift < 0 ? '-' : '+';
      const hhmm = `${String(Math.floor(Math.abs(shift) / 60)).padStart(2, '0')}:${String(Math.abs(shift) % 60).padStart(2, '0')}`;
      return `${local.slice(0, 10)}${t}${local.slice(11, 19)}${fraction}${zone === 'offset' ? `${sign}${hhmm}` : zone}`;
    }),
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '0000-01-01T00:00:00.000Z',
    '0000-01-08T00:00:00Z',
    '0000-03-01T00:00:00+01:00',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:59:59.999999999Z',
    '9999-12-01T00:00:00Z',
    '9999-06-01T00:00:00-14:00',
    '2016-12-31T23:59:60Z',
    '2026-11-01 09:00:00Z',
    '2026-11-01T09:00:00+0900',
    '2026-11-01T09:00:00 09:00',
    '2026-11-01T09:00:00.1234567890Z',
    '2026-11-01',
    '0000-01-01',
    '9999-12-31',
    '2026-02-30',
    '2026-02-30T00:00:00Z',
    '+002026-11-01T00:00:00Z',
    'now',
  ),
);

const hostile = fc.oneof(
  fc.constantFrom('', ' ', '0', '-1', '1e3', '0x10', '+5', '05', '501', '1.5', 'NaN', 'null', '[]', '{}', '%', '../..', '０'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 500, maxLength: 700 }),
);

/** A value for `parameter`: one its schema allows, or a hostile one. */
function valueFor(parameter: Parameter): fc.Arbitrary<string> {
  const schema = parameter.schema;
  const valid: fc.Arbitrary<string> =
    schema.format === 'date-time' || schema.anyOf?.some((form: { format?: string }) => form.format === 'date-time')
      ? times
      : schema.enum
        ? fc
            .constantFrom(...(schema.enum as string[]))
            .chain((value) => fc.constantFrom(value, value.toUpperCase(), value[0].toUpperCase() + value.slice(1)))
        : schema.pattern
          ? fc.stringMatching(new RegExp(schema.pattern))
          : fc.oneof(
              fc.stringMatching(/^[A-Za-z0-9_-]{1,80}\.[A-Za-z0-9_-]{43}$/),
              fc.string({ unit: fc.constantFrom(...'ABCDEFabcdef0123456789-_.'), minLength: 500, maxLength: 560 }),
            );
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile });
}

/** The query of a request to `operation`: some of its parameters (valid, hostile, repeated), and unknown ones. */
function queryFor(operation: Operation): fc.Arbitrary<[string, string][]> {
  const own = operation.parameters.filter((parameter) => parameter.in === 'query');
  const pairs = own.map((parameter) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant<[string, string][]>([]) },
      { weight: 4, arbitrary: valueFor(parameter).map((value): [string, string][] => [[parameter.name, value]]) },
      {
        weight: 1,
        arbitrary: fc.tuple(valueFor(parameter), valueFor(parameter)).map(([a, b]): [string, string][] => [
          [parameter.name, a],
          [parameter.name, b],
        ]),
      },
    ),
  );
  const unknown = fc.oneof(
    { weight: 6, arbitrary: fc.constant<[string, string][]>([]) },
    {
      weight: 1,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom('sort', 'Limit', 'status[]', '__proto__', 'constructor', 'x'.repeat(100)),
              fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }),
            ),
            fc.oneof(hostile, fc.constant('1')),
          ),
          { minLength: 1, maxLength: 12 },
        )
        .map((list) => list as [string, string][]),
    },
  );
  return fc.tuple(fc.tuple(...pairs), unknown).map(([chosen, extra]) => [...chosen.flat(), ...extra]);
}

const encodedLiteral = (path: string, at: number): string => {
  // The `at`-th letter of a literal segment, percent-encoded (upper- or lower-case hex).
  const letters = [...path.matchAll(/(?<=\/)[a-z]+(?=\/|$)/g)].flatMap((match) => [...match[0]].map((_, i) => match.index + i));
  if (!letters.length) return path;
  const index = letters[at % letters.length];
  const hex = path.charCodeAt(index).toString(16);
  return `${path.slice(0, index)}%${at % 2 ? hex.toUpperCase() : hex}${path.slice(index + 1)}`;
};

/** A path for `operation`: its template filled in, sometimes in a form the document says how it routes. */
function pathFor(operation: Operation, env: FuzzEnvironment): fc.Arbitrary<string> {
  const account = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...env.accounts) },
    { weight: 1, arbitrary: fc.constant('all') },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/) },
    { weight: 1, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2E', 'ek-one%2Fx', '%00', 'a%20b', '%C3%A9t%C3%A9', 'x'.repeat(70)) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).map(percentEncode) },
  );
  const filled = operation.template.includes('{account}')
    ? account.map((id) => operation.template.replace('{account}', id))
    : fc.constant(operation.template);
  return fc
    .tuple(filled, fc.nat(), fc.constantFrom('as-is', 'as-is', 'as-is', 'as-is', 'trailing', 'double', 'dot', 'dotdot', 'encoded', 'upper'))
    .map(([path, at, form]) => {
      if (form === 'trailing') return `${path}/`;
      if (form === 'double') return path.replace(/\/(?=[^/]*$)/, '//');
      if (form === 'dot') return path.replace(/\/(?=[^/]*$)/, '/./');
      if (form === 'dotdot') return `${path}/../${path.split('/').at(-1)}`;
      if (form === 'encoded') return encodedLiteral(path, at);
      if (form === 'upper') return path.toUpperCase();
      return path;
    });
}

const origins = (env: FuzzEnvironment) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.constantFrom(...env.allowedOrigins) },
    { weight: 2, arbitrary: fc.constantFrom('https://evil.example', 'http://localhost.evil.example', 'null', 'http://192.168.1.10:3000') },
  );

/** Requests to the document's operations (and to paths it has none for), for the stage of `env`. */
export function fuzzRequests(env: FuzzEnvironment): fc.Arbitrary<FuzzRequest> {
  // One arbitrary per operation, made once (a regular expression's arbitrary is costly to build).
  const operation = fc.oneof(...OPERATIONS.map((op) => fc.tuple(pathFor(op, env), queryFor(op))));
  const target = fc.oneof(
    { weight: 12, arbitrary: operation },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.oneof(
          fc.constantFrom(
            '/api',
            '/api/',
            '/api/nothing',
            '/api/accounts/extra',
            '/api/health/x',
            '/API/health',
            '/api/%zz/balance',
            '/api/%C3/balance',
          ),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((text) => `/api/${percentEncode(text)}`),
        ),
        fc.constant<[string, string][]>([]),
      ),
    },
  );
  // Mostly keys that may read (answers with bodies to check), and the refusals besides.
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...Object.keys(env.keys)) },
    { weight: 1, arbitrary: fc.constantFrom('none', 'garbage') },
  );
  const extraHeaders = fc.array(
    fc.oneof(
      fc.constantFrom<[string, string]>(
        ['Accept', 'application/json'],
        ['Accept', 'text/csv'],
        ['Accept', 'text/*'],
        ['Accept', '*/*'],
        ['Accept', 'application/xml'],
        ['Accept', 'text/html, application/xhtml+xml'],
        ['Accept', 'application/json;q=0, text/csv;q=0'],
        ['Accept', 'text/plain'],
        ['Accept', 'nonsense'],
        ['Accept', 'application/*;q=0.5'],
        ['If-None-Match', '*'],
        ['If-None-Match', 'W/"status-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"'],
        ['If-None-Match', '"nope"'],
        ['Accept-Encoding', 'gzip'],
        ['X-Forwarded-For', '203.0.113.9'],
        ['sls-offline-authorizer-override', '{"accounts":"*"}'],
        ['X-Big', 'a'.repeat(11_000)],
      ),
      fc.tuple(fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,30}$/), fc.string({ unit: 'grapheme-ascii', maxLength: 200 })),
    ),
    { maxLength: 3 },
  );
  const method = fc.constantFrom('GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'GET', 'HEAD', 'OPTIONS', 'OPTIONS', 'POST');
  const host = fc.constantFrom(`127.0.0.1:${env.port}`, `127.0.0.1:${env.port}`, `localhost:${env.port}`, 'attacker.example');
  return fc.record({ method, target, key, bearer: fc.boolean(), origin: origins(env), extraHeaders, host }).map((drawn) => {
    const [path, query] = drawn.target;
    const search = query.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&');
    const headers: [string, string][] = [['Host', drawn.host]];
    const keyValue = drawn.key === 'none' ? undefined : drawn.key === 'garbage' ? 'tbk_nope_nope' : env.keys[drawn.key];
    if (keyValue !== undefined)
      headers.push(drawn.bearer && path === '/api/metrics' ? ['Authorization', `Bearer ${keyValue}`] : ['x-api-key', keyValue]);
    if (drawn.origin !== undefined) headers.push(['Origin', drawn.origin]);
    if (drawn.method === 'OPTIONS') headers.push(['Access-Control-Request-Method', 'GET'], ['Access-Control-Request-Headers', 'x-api-key']);
    headers.push(
      ...drawn.extraHeaders.filter(
        ([name]) => !/^(host|origin|x-api-key|authorization|content-length|transfer-encoding|connection)$/i.test(name),
      ),
    );
    return { method: drawn.method, target: search ? `${path}?${search}` : path, headers };
  });
}

/** The request's bytes (one request per connection). */
export function requestBytes(request: FuzzRequest): Buffer {
  const lines = request.headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return Buffer.from(`${request.method} ${request.target} HTTP/1.1\r\n${lines}Connection: close\r\n\r\n`, 'latin1');
}

/** How the document routes a path: an operation and its parameters, or nothing. */
export function documentedRoute(path: string): { operation: Operation; account?: string } | undefined {
  // One trailing slash names the same resource (API Gateway's REST routing); an empty segment elsewhere names none.
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  let segments: string[];
  try {
    // An encoded `/` stays inside its segment; every other encoding stands for its character. No dot segment is resolved.
    segments = trimmed.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  // A dot segment, encoded or not, names nothing (clients resolve them before sending; the API does not).
  if (segments.some((segment) => segment === '.' || segment === '..')) return undefined;
  const candidates = OPERATIONS.map((operation) => {
    const parts = operation.template.split('/');
    if (parts.length !== segments.length) return undefined;
    let account: string | undefined;
    for (const [i, part] of parts.entries()) {
      if (part === '{account}') {
        if (segments[i] === '') return undefined;
        account = segments[i];
      } else if (part !== segments[i]) return undefined;
    }
    return { operation, account };
  }).filter((match) => match !== undefined);
  // A literal segment wins over {account} (`/api/all/status` is the fleet's).
  return candidates.find((match) => match.account === undefined) ?? candidates[0];
}

/** Whether every `%` of `path` starts a percent-encoding that decodes as UTF-8. */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

const header = (request: FuzzRequest, name: string) => request.headers.find(([key]) => key.toLowerCase() === name)?.[1];

function allowed(origin: string, allowList: string[]): boolean {
  return allowList.some(
    (entry) => entry === '*' || new RegExp(`^${entry.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace('*', '.+')}$`).test(origin),
  );
}

/** The bad parameters of a query that the document alone can tell: unknown, repeated, empty, or outside their schema. */
function schemaBadParameters(operation: Operation, query: URLSearchParams): Set<string> {
  const bad = new Set<string>();
  const own = new Map(operation.parameters.filter((parameter) => parameter.in === 'query').map((parameter) => [parameter.name, parameter]));
  for (const name of new Set(query.keys())) {
    const values = query.getAll(name);
    const parameter = own.get(name);
    if (!parameter || values.length !== 1 || values[0] === '' || !withinSchema(parameter, values[0])) bad.add(name);
  }
  return bad;
}

/** What in `answer` breaks the document, for `request`; empty when nothing does. */
export function answerViolations(request: FuzzRequest, answer: FuzzAnswer, env: FuzzEnvironment): string[] {
  const problems: string[] = [];
  const h = answer.headers;
  const origin = header(request, 'origin');
  // What every answer carries, refusals and preflights included.
  if (h['cache-control'] !== 'no-store') problems.push(`Cache-Control ${h['cache-control']}`);
  if (h['x-content-type-options'] !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
  if (!h['strict-transport-security']) problems.push('no Strict-Transport-Security');
  if (!env.allowList.includes('*') && !(h.vary ?? '').split(/,\s*/).includes('Origin'))
    problems.push(`Vary ${h.vary} does not name Origin`);
  if ('access-control-allow-credentials' in h) problems.push('Access-Control-Allow-Credentials sent');
  // The request's Origin when allowed (`*` for a stage allowing every origin); the gateway's own answers have fixed
  // headers, which name the one origin of a stage that allows exactly one.
  const acao = h['access-control-allow-origin'];
  const single = env.allowList.length === 1 && !env.allowList[0].slice(1).includes('*') ? env.allowList[0] : undefined;
  const gatewayMade = !('x-request-id' in h) && request.method !== 'OPTIONS';
  const acaoAllowed =
    acao === undefined ||
    (env.allowList.includes('*') && acao === '*') ||
    (origin !== undefined && allowed(origin, env.allowList) && acao === origin) ||
    (gatewayMade && acao === single);
  if (!acaoAllowed) problems.push(`Access-Control-Allow-Origin ${acao} for Origin ${origin ?? '(none)'}`);

  const isProblem = /^application\/problem\+json/.test(h['content-type'] ?? '');
  let body: unknown = answer.text;
  if (/json/.test(h['content-type'] ?? '') && answer.text !== '') {
    try {
      body = JSON.parse(answer.text);
    } catch {
      return [...problems, `a body that is not JSON: ${answer.text.slice(0, 200)}`];
    }
  }
  const refusal = (statuses: number[], why: string) => {
    if (!statuses.includes(answer.status)) problems.push(`${answer.status} where the document says ${statuses.join(' or ')} (${why})`);
    if (request.method === 'HEAD') return;
    if (!isProblem) problems.push(`a ${answer.status} that is not problem+json (${why})`);
    else problems.push(...schemaViolations('Problem', body).map((problem) => `problem${problem}`));
  };

  const head = requestBytes(request).length;
  const [rawPath, rawQuery = ''] = request.target.split(/\?(.*)/s);
  const host = header(request, 'host') ?? '';
  const loopback = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i.test(host);
  const route = documentedRoute(rawPath);
  if (head > HEAD_LIMIT) refusal([431], 'request line and headers over 10,240 bytes');
  else if (!loopback) refusal([421], 'a Host that is not a loopback name');
  else if (!decodes(rawPath)) refusal([400], 'a "%" that starts no UTF-8 percent-encoding');
  else if (request.method === 'OPTIONS') {
    if (!route) refusal([404], 'a preflight of a path with no operation');
    else {
      if (answer.status !== 200) problems.push(`preflight answered ${answer.status}`);
      if (origin !== undefined && allowed(origin, env.allowList) && acao !== origin)
        problems.push(`preflight of an allowed Origin without it (${acao})`);
      if (!/\bGET\b/.test(h['access-control-allow-methods'] ?? '')) problems.push('preflight does not allow GET');
    }
  } else if (!route || request.method !== 'GET') {
    refusal([404], `${request.method} ${rawPath} names no operation`);
    if (request.method === 'HEAD' && answer.text !== '') problems.push('a HEAD answer with a body');
    if (isProblem && body && typeof body === 'object' && 'instance' in body) problems.push('a 404 for no route names an instance');
  } else {
    const { operation } = route;
    problems.push(...contractViolations(operation.template, { statusCode: answer.status, headers: h, body }));
    if (isProblem) problems.push(...schemaViolations('Problem', body).map((problem) => `problem${problem}`));
    // Parameters the document alone shows to be bad: never served, always named when the function judges the query.
    const query = new URLSearchParams(rawQuery);
    const bad = schemaBadParameters(operation, query);
    if ((answer.status === 200 || answer.status === 304) && bad.size)
      problems.push(`${answer.status} for a query outside the document: ${[...bad].join(', ')}`);
    const errors = (body as { errors?: { parameter: string }[] })?.errors;
    // At most ten entries are listed, the tenth counting the rest: a full list may leave some out.
    if (answer.status === 400 && errors && errors.length < 10) {
      const named = new Set(errors.map((error) => error.parameter));
      const missing = [...bad].filter((name) => !named.has(name));
      if (missing.length) problems.push(`errors leave out ${missing.map((name) => JSON.stringify(name.slice(0, 80))).join(', ')}`);
    }
  }
  return problems;
}
