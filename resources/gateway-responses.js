// API Gateway's own answers (no key, bad key, throttled, timed out, unknown route, ...) in the same problem+json
// shape and with the same security headers as the functions' answers. serverless.yml deploys them; the tests
// render them from this same definition.
'use strict';

const { stageSettings } = require('./stages');
const { PROBLEMS, GATEWAY_PROBLEM_CONTENT_TYPE, problemType, API_HEADERS, EXPOSED_HEADERS, retryAfterHeaders } = require('./http-contract');

// Status and title are the problem code's (resources/http-contract.js) unless a response pins its own.
const RESPONSES = [
  { type: 'UNAUTHORIZED', code: 'UNAUTHORIZED', detail: 'A valid API key is required (x-api-key header).' },
  { type: 'ACCESS_DENIED', code: 'FORBIDDEN', detail: 'This API key is disabled.' },
  // No route matched, so there is no route to name: the problem has no `instance` (a template cannot leave out a
  // member conditionally, so these responses never carry one).
  {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    code: 'NOT_FOUND',
    detail: 'No such operation. See /api/health, /api/accounts, /api/all/*, /api/{account}/*.',
    routeless: true,
  },
  { type: 'THROTTLED', code: 'TOO_MANY_REQUESTS', detail: 'The request rate limit was exceeded. Retry later.' },
  { type: 'AUTHORIZER_FAILURE', code: 'SERVICE_UNAVAILABLE', detail: 'The API key could not be checked. Retry later.' },
  { type: 'AUTHORIZER_CONFIGURATION_ERROR', code: 'SERVICE_UNAVAILABLE', detail: 'The API key could not be checked. Retry later.' },
  { type: 'INTEGRATION_TIMEOUT', code: 'SERVICE_UNAVAILABLE', detail: 'The request took too long. Retry later.' },
  { type: 'INTEGRATION_FAILURE', code: 'SERVICE_UNAVAILABLE', detail: 'The request could not be served. Retry later.' },
  {
    type: 'REQUEST_TOO_LARGE',
    status: 413,
    code: 'INVALID_PARAMETER',
    title: 'Request too large',
    detail: 'The request is larger than the API accepts.',
    routeless: true,
  },
  // Any other refusal by the gateway itself: a problem body needs a definite status, so these are pinned.
  {
    type: 'DEFAULT_4XX',
    status: 400,
    code: 'INVALID_PARAMETER',
    title: 'Bad request',
    detail: 'The request was refused by the API gateway.',
    routeless: true,
  },
  { type: 'DEFAULT_5XX', code: 'SERVICE_UNAVAILABLE', detail: 'The API gateway could not complete the request. Retry later.' },
].map((response) => ({ ...PROBLEMS[response.code], ...response }));

/** Headers every gateway response carries, as static values. */
const HEADERS = { 'Content-Type': GATEWAY_PROBLEM_CONTENT_TYPE, ...API_HEADERS };

/**
 * The CORS headers of the gateway's own answers in a stage (and of `npm start`'s gateway's refusals). They are static
 * (API Gateway runs no template over a gateway response's headers), so they can name an allowed origin only when the
 * stage allows exactly one concrete origin (or every origin): then that one, whatever the request's Origin; otherwise
 * none, and a browser page sees such an answer as a network error.
 * @returns {Record<string, string>}
 */
function staticCorsHeaders(settings) {
  /** @type {Record<string, string>} */
  const headers = {};
  const origins = settings.corsOrigins;
  if (origins.length === 1 && !origins[0].slice(1).includes('*')) {
    headers['Access-Control-Allow-Origin'] = origins[0];
    headers['Access-Control-Expose-Headers'] = EXPOSED_HEADERS.join(', ');
  }
  // Where the functions' CORS headers depend on the origin, every answer says so (api/http/cors.ts).
  if (!origins.includes('*')) headers.Vary = 'Origin';
  return headers;
}

/** The headers of gateway responses in a stage. */
function stageHeaders(settings, status) {
  return { ...HEADERS, ...staticCorsHeaders(settings), ...retryAfterHeaders(status, settings.retryAfterSeconds) };
}

/** The velocity template of a response body; API Gateway fills $context.* in. */
function bodyTemplate(response) {
  return [
    '{',
    `"type":"${problemType(response.code)}",`,
    `"title":"${response.title}",`,
    `"status":${response.status},`,
    `"detail":"${response.detail}",`,
    // The route template, not the raw path: a path is client text and would need escaping inside JSON.
    ...(response.routeless ? [] : ['"instance":"$context.resourcePath",']),
    `"code":"${response.code}",`,
    '"requestId":"$context.requestId"',
    '}',
  ].join('');
}

function cloudFormationResources(settings) {
  const resources = {};
  for (const response of RESPONSES) {
    const logicalId = `GatewayResponse${response.type
      .toLowerCase()
      .split('_')
      .map((part) => part[0].toUpperCase() + part.slice(1))
      .join('')}`;
    const parameters = Object.fromEntries(
      Object.entries(stageHeaders(settings, response.status)).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`]),
    );
    resources[logicalId] = {
      Type: 'AWS::ApiGateway::GatewayResponse',
      Properties: {
        RestApiId: { Ref: 'ApiGatewayRestApi' },
        ResponseType: response.type,
        StatusCode: String(response.status),
        ResponseParameters: parameters,
        ResponseTemplates: { 'application/json': bodyTemplate(response) },
      },
    };
  }
  return resources;
}

/**
 * What API Gateway would send for `type` in a stage with `settings` (for tests and the local gateway of `npm start`):
 * the template filled in with the request's id and route.
 */
function render(type, context, settings) {
  const response = RESPONSES.find((candidate) => candidate.type === type);
  if (!response) throw new Error(`no gateway response ${type}`);
  const body = bodyTemplate(response)
    .replace(/\$context\.requestId/g, context.requestId)
    .replace(/\$context\.resourcePath/g, context.resourcePath);
  return { statusCode: response.status, headers: stageHeaders(settings, response.status), body };
}

module.exports = {
  staticCorsHeaders,
  cloudFormationResources,
  render,
  resources: async ({ resolveVariable }) => cloudFormationResources(stageSettings(await resolveVariable('sls:stage'))),
};
