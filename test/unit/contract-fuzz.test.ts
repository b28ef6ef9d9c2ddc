/**
 * The generated-request check's judge (test/kit/contract-fuzz.ts), on answers of the kinds issue 42 found breaking
 * openapi.yaml: each is caught, and an answer that keeps the document passes. The requests themselves are sent to the
 * local stack by test/e2e/local-api-keys.test.ts.
 */
import { answerViolations, documentedRoute, type FuzzAnswer, type FuzzEnvironment, type FuzzRequest } from '../kit/contract-fuzz';

const env: FuzzEnvironment = {
  accounts: ['primary-usd'],
  keys: { scoped: 'tbk_key' },
  allowedOrigins: ['http://localhost:5173'],
  allowList: ['http://localhost', 'http://localhost:*'],
  port: 3000,
};
const COMMON = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
};
const request = (method: string, target: string, headers: [string, string][] = []): FuzzRequest => ({
  method,
  target,
  headers: [['Host', 'localhost:3000'], ['x-api-key', 'tbk_key'], ...headers],
});
const problem = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: `/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    title: 'x',
    status,
    detail: 'd',
    code,
    requestId: 'r',
    ...extra,
  });
const fromFunction = (status: number, body: string, headers: Record<string, string> = {}): FuzzAnswer => ({
  status,
  headers: { ...COMMON, vary: 'Origin', 'x-request-id': 'r', 'content-type': 'application/problem+json; charset=utf-8', ...headers },
  text: body,
});

it('routes a path as the document says', () => {
  expect(documentedRoute('/api/%61ll/balance')?.operation.template).toBe('/api/all/balance');
  expect(documentedRoute('/api/health/')?.operation.template).toBe('/api/health');
  expect(documentedRoute('/api/all/status')?.account).toBeUndefined();
  expect(documentedRoute('/api/a%2Fb/balance')).toMatchObject({ account: 'a/b' });
  for (const none of ['/api/x/../health', '/api/./accounts', '/api/%2e%2e/balance', '/api//balance', '/API/accounts', '/api/health//'])
    expect([none, documentedRoute(none)]).toEqual([none, undefined]);
});

it('passes an answer that keeps the document', () => {
  const answer = fromFunction(404, problem(404, 'ACCOUNT_NOT_FOUND', { instance: '/api/nobody/balance' }));
  expect(answerViolations(request('GET', '/api/nobody/balance'), answer, env)).toEqual([]);
});

it('catches the answers issue 42 found', () => {
  const cases: [FuzzRequest, FuzzAnswer, string][] = [
    // A preflight naming the allow-list's first origin to a request with none.
    [
      request('OPTIONS', '/api/all/trades'),
      {
        status: 200,
        headers: {
          ...COMMON,
          vary: 'Origin',
          'access-control-allow-origin': 'http://localhost',
          'access-control-allow-methods': 'GET,OPTIONS',
        },
        text: '',
      },
      'Access-Control-Allow-Origin http://localhost for Origin (none)',
    ],
    // The local server's own refusal without Vary.
    [
      { ...request('GET', '/api/accounts'), headers: [['Host', 'attacker.example']] },
      { status: 421, headers: { ...COMMON, 'content-type': 'application/problem+json' }, text: problem(421, 'MISDIRECTED_REQUEST') },
      'Vary undefined does not name Origin',
    ],
    // A window that reached before the year 0.
    [
      request('GET', '/api/primary-usd/performance?to=0000-01-01T00:00:00Z'),
      fromFunction(
        200,
        JSON.stringify({ accountId: 'primary-usd', from: '-000001-10-03T00:00:00.000Z', to: '0000-01-01T00:00:00.000Z', currencies: [] }),
        { 'content-type': 'application/json; charset=utf-8', etag: `"${'a'.repeat(43)}"` },
      ),
      'body/from must match pattern',
    ],
    // A cursor over 512 characters left out of a 400 that named another parameter.
    [
      request('GET', `/api/all/trades?limit=0&cursor=${'A'.repeat(600)}`),
      fromFunction(400, problem(400, 'INVALID_PARAMETER', { instance: '/api/all/trades', errors: [{ parameter: 'limit', message: 'm' }] })),
      'errors leave out "cursor"',
    ],
    // A parameter's name cut short.
    [
      request('GET', `/api/accounts?${'x'.repeat(100)}=1`),
      fromFunction(
        400,
        problem(400, 'INVALID_PARAMETER', { instance: '/api/accounts', errors: [{ parameter: `${'x'.repeat(64)}…`, message: 'm' }] }),
      ),
      'errors leave out',
    ],
    // A value outside the parameter's schema, served.
    [
      request('GET', '/api/all/trades?format=xml'),
      fromFunction(200, JSON.stringify({ trades: [], count: 0, limit: 50, nextCursor: null }), {
        'content-type': 'application/json; charset=utf-8',
        etag: `"${'a'.repeat(43)}"`,
      }),
      '200 for a query outside the document: format',
    ],
    // A dot segment served instead of refused.
    [
      request('GET', '/api/x/../health'),
      fromFunction(200, '{}', { 'content-type': 'application/json; charset=utf-8' }),
      '200 where the document says 404',
    ],
  ];
  for (const [sent, answer, expected] of cases) {
    const found = answerViolations(sent, answer, env);
    expect([sent.target.slice(0, 60), found.some((violation) => violation.startsWith(expected))]).toEqual([sent.target.slice(0, 60), true]);
  }
});
