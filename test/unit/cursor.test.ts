import { decodeCursor, encodeCursor, type CursorBinding } from '../../lib/http/cursor';
import { HttpProblem } from '../../lib/errors';

const SECRET = 'unit-test-secret-0123456789abcdef0123456789';
const POSITION = '2026-11-01T11:18:30.974Z#primary-usd-0001200#primary-usd';
const BINDING: CursorBinding = { scope: 'primary-usd', status: 'open', principal: { accounts: '*' } };

function rejects(run: () => unknown) {
  expect(run).toThrow(HttpProblem);
  try {
    run();
  } catch (error) {
    expect((error as HttpProblem).errors).toEqual([{ parameter: 'cursor', message: expect.any(String) }]);
  }
}

describe('cursors', () => {
  it('round-trips the position for the listing it was issued for', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(decodeCursor(cursor, { ...BINDING }, SECRET)).toBe(POSITION);
  });

  it('refuses a cursor replayed on another scope, filter or key', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET);
    rejects(() => decodeCursor(cursor, { ...BINDING, scope: 'euro-swing' }, SECRET));
    rejects(() => decodeCursor(cursor, { ...BINDING, scope: 'all' }, SECRET));
    rejects(() => decodeCursor(cursor, { ...BINDING, status: undefined }, SECRET));
    rejects(() => decodeCursor(cursor, { ...BINDING, instrument: 'EUR_USD' }, SECRET));
    rejects(() => decodeCursor(cursor, { ...BINDING, principal: { accounts: ['primary-usd'] } }, SECRET));
    rejects(() => decodeCursor(cursor, BINDING, `${SECRET}-rotated`));
  });

  it('refuses an altered cursor', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET);
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(POSITION.replace('primary-usd', 'euro-swing')).toString('base64url');
    rejects(() => decodeCursor(`${forged}.${signature}`, BINDING, SECRET));
    rejects(() => decodeCursor(`${payload}.${signature.slice(0, -1)}A`, BINDING, SECRET));
    rejects(() => decodeCursor(`${payload}x.${signature}`, BINDING, SECRET));
    rejects(() => decodeCursor('not-a-cursor', BINDING, SECRET));
    rejects(() => decodeCursor(`${'A'.repeat(600)}.${signature}`, BINDING, SECRET));
  });
});
