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
    const cursor = `cG9zaXRpb24.${'A'.repeat(43)}`;
    expect(
      parseQuery(TRADE_QUERY, { status: ['OPEN'], instrument: ['eur/usd'], limit: ['500'], cursor: [cursor], format: ['Csv'] }),
    ).toEqual({
      status: 'open',
      instrument: 'EUR_USD',
      limit: 500,
      cursor,
      format: 'csv',
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

  it('names every bad parameter at once: a cursor over 512 characters or not of a cursor’s form, and from at or after to', () => {
    const problem = problemOf(() =>
      parseQuery(TRADE_QUERY, {
        limit: ['0'],
        cursor: [`${'A'.repeat(500)}.${'A'.repeat(43)}`],
        from: ['2026-11-02T00:00:00Z'],
        to: ['2026-11-01T00:00:00Z'],
      }),
    );
    expect(problem.errors?.map((e) => e.parameter).sort()).toEqual(['cursor', 'from', 'limit']);
    expect(problem.errors?.find((e) => e.parameter === 'from')?.message).toBe('must be earlier than to');
    for (const cursor of ['forged', `abc.${'A'.repeat(42)}`, `abc.${'A'.repeat(43)}=`])
      expect(problemOf(() => parseQuery(TRADE_QUERY, { cursor: [cursor] })).errors).toEqual([
        { parameter: 'cursor', message: 'is not a cursor issued for this listing (same scope, filters and window)' },
      ]);
  });

  it('names a parameter as given, however long', () => {
    const name = `sort-${'x'.repeat(300)}`;
    expect(problemOf(() => parseQuery(TRADE_QUERY, { [name]: ['1'] })).errors?.[0].parameter).toBe(name);
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
  it('1,000 unknown parameters are reported as ten entries, the last counting the rest', () => {
    const raw = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`unknown-${i}-${'x'.repeat(200)}`, ['1']]));
    let problem: HttpProblem | undefined;
    try {
      parseQuery(TRADE_QUERY, raw);
    } catch (error) {
      problem = error as HttpProblem;
    }
    expect(problem?.errors).toHaveLength(MAX_REPORTED_ERRORS);
    expect(problem?.errors?.[MAX_REPORTED_ERRORS - 1]).toEqual({ parameter: '…', message: 'and 991 more bad parameters' });
    // Nine names as given: what a request can hold bounds them (API Gateway takes 10,240 bytes of line and headers).
    for (const error of problem!.errors!.slice(0, -1)) expect(Object.hasOwn(raw, error.parameter)).toBe(true);
    expect(JSON.stringify({ detail: problem!.detail, errors: problem!.errors }).length).toBeLessThan(2 * 9 * 220 + 2048);
  });
});
