/**
 * The contract check of the tests (test/kit/contract.ts) holds response headers to openapi.yaml as well as
 * bodies: the entity tags the API makes, strong and weak, pass; a malformed tag, a wrong fixed header or a missing
 * required one is reported. Before, only the presence of required headers was checked, and the document's ETag
 * pattern refused the fleet's weak tags without any test noticing.
 */
import { entityTag } from '../../api/http/etag';
import { tagOf } from '../../api/operations/fleet-tags';
import { contractViolations } from '../kit/contract';

/** The headers every function's 304 carries, with `ETag` as given. */
function notModified(etag: string, extra: Record<string, string> = {}) {
  return {
    statusCode: 304,
    headers: {
      ETag: etag,
      'X-Request-Id': 'test-request-1',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
      ...extra,
    },
    body: '',
  };
}

const STRONG = entityTag('{"status":"ok"}');

describe('ETag', () => {
  it('accepts the strong tag of a body, as every answer but the fleet carries it', () => {
    expect(STRONG).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(contractViolations('/api/{account}/balance', notModified(STRONG))).toEqual([]);
    expect(contractViolations('/api/all/balance', notModified(STRONG))).toEqual([]);
  });

  it.each([
    ['/api/all/status', 'status'],
    ['/api/accounts', 'profile'],
    ['/api/all/balance', 'balance'],
  ] as const)('accepts the weak tag of %s (W/"%s-…"), as the fleet answers carry it', (route, aspect) => {
    const tag = tagOf(aspect, ['acc-alpha 1', 'acc-bravo 2']);
    expect(tag).toMatch(new RegExp(`^W/"${aspect}-[A-Za-z0-9_-]{32}"$`));
    expect(contractViolations(route, notModified(tag))).toEqual([]);
  });

  it.each([
    ['no quotes', STRONG.slice(1, -1)],
    ['too short', '"abc"'],
    ['a character outside base64url', `"${'+'.repeat(43)}"`],
    ['a weak tag of no aspect', `W/"${'a'.repeat(32)}"`],
    ['a weak tag of an unknown aspect', `W/"trades-${'a'.repeat(32)}"`],
    ['a weak tag of a strong length', `W/"status-${'a'.repeat(43)}"`],
    ['a lower-case weak prefix', `w/"status-${'a'.repeat(32)}"`],
    ['a strong tag with a weak one after it', `${STRONG}, W/"status-${'a'.repeat(32)}"`],
  ])('refuses a malformed tag: %s', (_, tag) => {
    expect(contractViolations('/api/all/status', notModified(tag))).toEqual([expect.stringMatching(/^header ETag /)]);
  });

  it('reports a required ETag missing', () => {
    const { ETag: _, ...headers } = notModified(STRONG).headers;
    expect(contractViolations('/api/all/status', { statusCode: 304, headers, body: '' })).toEqual(['header ETag is missing']);
  });
});

describe('the other headers', () => {
  it('names are compared regardless of case, as HTTP clients hand them over lower-cased', () => {
    const { headers } = notModified(STRONG);
    const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    expect(contractViolations('/api/all/status', { statusCode: 304, headers: lower, body: '' })).toEqual([]);
    lower['cache-control'] = 'max-age=60';
    expect(contractViolations('/api/all/status', { statusCode: 304, headers: lower, body: '' })).toEqual([
      expect.stringMatching(/^header Cache-Control "max-age=60" must be equal to constant/),
    ]);
  });

  it.each([
    ['Cache-Control', 'no-cache'],
    ['X-Content-Type-Options', 'sniff'],
    ['Strict-Transport-Security', 'max-age=60'],
    ['Vary', 'Accept-Encoding'],
    ['X-Request-Id', ''],
    ['Access-Control-Allow-Origin', ''],
  ])('refuses a wrong %s', (name, value) => {
    expect(contractViolations('/api/all/status', notModified(STRONG, { [name]: value }))).toEqual([
      expect.stringMatching(new RegExp(`^header ${name} `)),
    ]);
  });

  it('accepts the optional CORS headers when they are right', () => {
    const cors = { 'Access-Control-Allow-Origin': 'http://localhost:5173', Vary: 'Origin' };
    expect(contractViolations('/api/all/status', notModified(STRONG, cors))).toEqual([]);
  });

  it('reports every wrong header at once, and a missing one', () => {
    const { 'X-Request-Id': _, ...headers } = notModified('"short"', { 'Cache-Control': 'public' }).headers;
    const problems = contractViolations('/api/accounts', { statusCode: 304, headers, body: '' });
    expect(problems).toHaveLength(3);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^header ETag /),
        'header X-Request-Id is missing',
        expect.stringMatching(/^header Cache-Control /),
      ]),
    );
  });

  it('checks Retry-After on a 503, and headers and body together', () => {
    const body = {
      status: 'unavailable',
      service: 'Trading Bot API',
      version: '1.0',
      time: '2026-11-01T12:00:00.123Z',
      checks: { database: { status: 'error', latencyMs: 2004 } },
    };
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Retry-After': '5',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
    };
    expect(contractViolations('/api/health', { statusCode: 503, headers, body })).toEqual([]);
    expect(contractViolations('/api/health', { statusCode: 503, headers: { ...headers, 'Retry-After': 'soon' }, body })).toEqual([
      expect.stringMatching(/^header Retry-After "soon" must match pattern/),
    ]);
  });
});
