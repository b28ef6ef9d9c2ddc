// What every HTTP answer of the API shares, whoever gives it (a function, API Gateway's own responses, the dashboard's
// files, the local gateway of `npm start`): the problem types and their shape, the security headers, the headers
// browser code may read, and Retry-After. CommonJS, as serverless.yml reads it through gateway-responses.js and
// stage-options.js; the functions import it through api/http.
'use strict';

/** The problems the API answers with: a stable code, its HTTP status and title. `type` is derived from the code. */
const PROBLEMS = {
  INVALID_PARAMETER: { status: 400, title: 'Invalid parameter' },
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  ACCOUNT_NOT_FOUND: { status: 404, title: 'Account not found' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  NOT_ACCEPTABLE: { status: 406, title: 'Not acceptable' },
  MISDIRECTED_REQUEST: { status: 421, title: 'Misdirected request' },
  TOO_MANY_REQUESTS: { status: 429, title: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
};

const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';
/** The same, as API Gateway's own responses have sent it since 1.0 (a static header value, without the charset). */
const GATEWAY_PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** `/problems/` and the code in kebab case: `ACCOUNT_NOT_FOUND` is `/problems/account-not-found`. */
function problemType(code) {
  return `/problems/${code.toLowerCase().replace(/_/g, '-')}`;
}

/**
 * An RFC 9457 body, members in the documented order. `instance` (the route or path asked for) is left out when no
 * route matched; `errors` (one per bad parameter) only when there are some.
 * @param {{ code: string, status: number, title: string, detail: string, instance?: string, requestId: string, errors?: { parameter: string, message: string }[] }} problem
 */
function problemBody({ code, status, title, detail, instance, requestId, errors }) {
  return {
    type: problemType(code),
    title,
    status,
    detail,
    ...(instance !== undefined ? { instance } : {}),
    code,
    requestId,
    ...(errors ? { errors } : {}),
  };
}

/** What every answer carries, the dashboard's files included. */
const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
};

/** What every answer of the API carries, errors and CORS preflights included: nothing of it may be cached. */
const API_HEADERS = { 'Cache-Control': 'no-store', ...SECURITY_HEADERS };

/** Response headers browser code may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = ['X-Request-Id', 'Retry-After', 'ETag', 'Link', 'X-Trades-Left-Out'];

/**
 * Statuses after which a client is told how long to wait (the stage's `retryAfterSeconds`).
 * @param {number} status
 * @param {number | undefined} retryAfterSeconds
 * @returns {Record<string, string>}
 */
function retryAfterHeaders(status, retryAfterSeconds) {
  if (status !== 503 && status !== 429) return {};
  if (retryAfterSeconds === undefined) throw new Error(`a ${status} must say when to retry: retryAfterSeconds is missing`);
  return { 'Retry-After': String(retryAfterSeconds) };
}

/**
 * A whole problem answer with the shared headers (for answers given outside the functions' middleware).
 * @param {{ code: keyof typeof PROBLEMS, detail: string, title?: string, status?: number, requestId: string, instance?: string, retryAfterSeconds?: number, contentType?: string }} problem
 * @returns {{ statusCode: number, headers: Record<string, string>, body: string }}
 */
function problemAnswer({
  code,
  detail,
  title = PROBLEMS[code].title,
  status = PROBLEMS[code].status,
  requestId,
  instance,
  retryAfterSeconds,
  contentType = PROBLEM_CONTENT_TYPE,
}) {
  return {
    statusCode: status,
    headers: { 'Content-Type': contentType, ...API_HEADERS, ...retryAfterHeaders(status, retryAfterSeconds) },
    body: JSON.stringify(problemBody({ code, status, title, detail, instance, requestId })),
  };
}

module.exports = {
  PROBLEMS,
  PROBLEM_CONTENT_TYPE,
  GATEWAY_PROBLEM_CONTENT_TYPE,
  problemType,
  problemBody,
  problemAnswer,
  SECURITY_HEADERS,
  API_HEADERS,
  EXPOSED_HEADERS,
  retryAfterHeaders,
};
