import { HttpProblem } from '../../api/errors';
import { MAX_REPORTED_ERRORS, NO_QUERY, parseInstrument, parseLimit, parseQuery, parseStatus, TRADE_QUERY } from '../../api/http/params';

function problemOf(run: () => unknown): HttpProblem {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpProblem) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('parseQuery', () => {
  it('parses every trade parameter to its canonical form', () => {
    expect(parseQuery(TRADE_QUERY, { status: ['OPEN'], instrument: ['eur/usd'], limit: ['500'], cursor: ['abc'] })).toEqual({
      status: 'open',
      instrument: 'EUR_USD',
      limit: 500,
      cursor: 'abc',
    });
    expect(parseQuery(TRADE_QUERY, {})).toEqual({});
  });

  it('names a repeated, empty or unknown parameter, all at once', () => {
    const problem = problemOf(() => parseQuery(TRADE_QUERY, { status: ['open', 'closed'], limit: [''], sort: ['asc'] }));
    expect(problem.status).toBe(400);
    expect(problem.code).toBe('INVALID_PARAMETER');
    expect(problem.errors?.map((e) => e.parameter).sort()).toEqual(['limit', 'sort', 'status']);
    expect(problem.detail).toContain('sort');
  });

  it('refuses any parameter where none is accepted', () => {
    const problem = problemOf(() => parseQuery(NO_QUERY, { limit: ['5'] }));
    expect(problem.errors).toEqual([{ parameter: 'limit', message: 'this operation takes no parameters' }]);
  });
});

describe('parseLimit', () => {
  it.each([
    ['1', 1],
    ['50', 50],
    ['500', 500],
  ])('accepts %s', (raw, value) => expect(parseLimit(raw)).toBe(value));
  it.each(['0', '501', '1.5', '1e3', ' 5', '5 ', '-1', '010', '0x10', '99999999999999999999', 'ten', '+5'])('refuses %j', (raw) => {
    expect(() => parseLimit(raw)).toThrow('must be a whole number from 1 to 500');
  });
});

describe('parseInstrument', () => {
  it.each([
    ['EUR_USD', 'EUR_USD'],
    ['eur_usd', 'EUR_USD'],
    ['Eur/Usd', 'EUR_USD'],
    ['xau-usd', 'XAU_USD'],
    ['spx500_usd', 'SPX500_USD'],
  ])('%s is %s', (raw, canonical) => expect(parseInstrument(raw)).toBe(canonical));
  it.each(['EURUSD', 'EUR_', '_USD', 'EUR__USD', 'EUR USD', 'E_USD', 'EUR_USD_X', 'EUR%5FUSD', 'ÉUR_USD'])('refuses %j', (raw) => {
    expect(() => parseInstrument(raw)).toThrow('must be an instrument');
  });
});

describe('parseStatus', () => {
  it.each([
    ['open', 'open'],
    ['CLOSED', 'closed'],
    ['All', 'all'],
  ])('%s is %s', (raw, status) => expect(parseStatus(raw)).toBe(status));
  it.each(['opened', 'any', '*'])('refuses %j', (raw) => expect(() => parseStatus(raw)).toThrow('must be one of'));
});

describe('an error body stays small', () => {
  it('1,000 unknown parameters with long names are reported as ten entries of bounded size', () => {
    const raw = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`unknown-${i}-${'x'.repeat(200)}`, ['1']]));
    let problem: HttpProblem | undefined;
    try {
      parseQuery(TRADE_QUERY, raw);
    } catch (error) {
      problem = error as HttpProblem;
    }
    expect(problem?.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(problem?.errors?.[MAX_REPORTED_ERRORS - 1]).toEqual({ parameter: '…', message: 'and 991 more bad parameters' });
    for (const error of problem!.errors!.slice(0, -1)) expect(error.parameter.length).toBeLessThanOrEqual(65);
    expect(JSON.stringify({ detail: problem!.detail, errors: problem!.errors }).length).toBeLessThan(4096);
  });
});
