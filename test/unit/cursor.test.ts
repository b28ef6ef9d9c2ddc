import { decodeCursor, encodeCursor, type CursorBinding } from '../../api/http/cursor';
import { HttpProblem } from '../../api/errors';

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
    rejects(() => decodeCursor(cursor, { ...BINDING, principal: { accounts: '*', keyId: 'another-key' } }, SECRET));
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

  it('is bound to the key that received it, not only to its accounts', () => {
    const mine = { ...BINDING, principal: { accounts: ['primary-usd'], keyId: 'aaaaaaaaaaaaaaaa' } };
    const cursor = encodeCursor(POSITION, mine, SECRET);
    expect(decodeCursor(cursor, mine, SECRET)).toBe(POSITION);
    rejects(() => decodeCursor(cursor, { ...mine, principal: { accounts: ['primary-usd'], keyId: 'bbbbbbbbbbbbbbbb' } }, SECRET));
  });

  it('refuses every text but the one issued, even where base64url decodes to the same bytes', () => {
    const cursor = encodeCursor(POSITION, BINDING, SECRET);
    const [payload, signature] = cursor.split('.');
    // The signature's 43rd character carries 2 unused bits: its neighbours in the alphabet decode to the same bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(signature[42]);
    const twins = [1, 2, 3].map((bits) => `${signature.slice(0, 42)}${alphabet[(last & ~3) | ((last + bits) & 3)]}`);
    for (const twin of twins) {
      expect(Buffer.from(twin, 'base64url').equals(Buffer.from(signature, 'base64url'))).toBe(true);
      rejects(() => decodeCursor(`${payload}.${twin}`, BINDING, SECRET));
    }
    if (payload.length % 4 !== 0) {
      const end = alphabet.indexOf(payload[payload.length - 1]);
      const unused = payload.length % 4 === 2 ? 15 : 3;
      const twin = `${payload.slice(0, -1)}${alphabet[(end & ~unused) | ((end + 1) & unused)]}`;
      rejects(() => decodeCursor(`${twin}.${signature}`, BINDING, SECRET));
    }
  });
});
