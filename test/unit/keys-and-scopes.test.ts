/**
 * Rules of the store and the API that were reached only through DynamoDB: API keys (their shape, the id inside, the
 * hash stored, the headers they come in), a key's scope as the authorizer hands it on, instruments' one form, and the
 * ledger's entry keys (a range of one kind and unit is a range of starts).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { decodeScope, encodeScope } from '../../api/access';
import { ACCOUNT_ID, compareIds } from '@trading-bot-api/core/ids';
import { canonicalInstrument } from '@trading-bot-api/core/instruments';
import { apiKeyOf, keyIdOf, newApiKey } from '@trading-bot-api/core/store/api-keys-table';
import { entryKeyOf, entryPrefix, isEntryOf } from '@trading-bot-api/core/store/ledger-table';
import { propertyRuns } from '../kit/property-runs';

const accountId = fc.stringMatching(ACCOUNT_ID).filter((id) => id !== 'all');

describe('API keys', () => {
  it('a new key carries its id, its record holds only the hash of the whole key, and its scope once each, sorted', () => {
    const { key, record } = newApiKey(['b-2', 'a-1', 'b-2'], 'ops', new Date('2026-11-01T00:00:00Z'));
    expect(keyIdOf(key)).toBe(record.keyId);
    expect(record).toEqual({
      keyId: expect.stringMatching(/^[a-f0-9]{16}$/),
      keyHash: createHash('sha256').update(key).digest('hex'),
      accounts: ['a-1', 'b-2'],
      label: 'ops',
      createdAt: '2026-11-01T00:00:00.000Z',
      disabled: false,
    });
    expect(JSON.stringify(record)).not.toContain(key.slice(-43));
    expect(newApiKey('*', 'all').record.accounts).toBe('*');
    expect(newApiKey('*', 'x').key).not.toBe(newApiKey('*', 'x').key);
  });

  it('a text not shaped like a key has no key id', () => {
    const { key } = newApiKey('*', 'x');
    for (const text of ['', 'tbk_', key.slice(0, -1), `${key}x`, key.replace('tbk_', 'tbx_'), key.toUpperCase(), ` ${key}`])
      expect(keyIdOf(text)).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (text) => keyIdOf(text) === undefined || /^tbk_[a-f0-9]{16}_[\w-]{43}$/.test(text)),
      { numRuns: propertyRuns(500) },
    );
  });

  it('comes in x-api-key (any case of its name) or as a Bearer token, x-api-key first; an empty header is none', () => {
    expect(apiKeyOf({ 'X-Api-Key': ' k1 ' })).toBe('k1');
    expect(apiKeyOf({ authorization: 'bearer k2' })).toBe('k2');
    expect(apiKeyOf({ 'x-api-key': 'k1', Authorization: 'Bearer k2' })).toBe('k1');
    expect(apiKeyOf({ 'x-api-key': '', Authorization: 'Bearer k2' })).toBe('k2');
    for (const headers of [null, undefined, {}, { Authorization: 'Basic k3' }, { Authorization: 'Bearer a b' }, { 'x-api-key': undefined }])
      expect(apiKeyOf(headers)).toBeUndefined();
  });
});

describe("a key's scope, as the authorizer hands it to the functions", () => {
  it('reads back as the set of accounts it names, sorted, each once; `*` stays every account', () => {
    fc.assert(
      fc.property(fc.array(accountId, { maxLength: 12 }), (ids) => {
        const decoded = decodeScope(encodeScope(ids));
        expect(decoded).toEqual([...new Set(ids)].sort(compareIds));
        expect(decodeScope(encodeScope(decoded as string[]))).toEqual(decoded);
      }),
      { numRuns: propertyRuns(300) },
    );
    expect(decodeScope(encodeScope('*'))).toBe('*');
    expect(decodeScope('b,a,,b')).toEqual(['a', 'b']);
  });
});

describe('instruments', () => {
  it('have one form, whatever separator and case they are written in, and it is its own form', () => {
    const part = fc.stringMatching(/^[A-Za-z0-9]{2,12}$/);
    fc.assert(
      fc.property(
        part,
        part,
        fc.constantFrom('_', '/', '-'),
        fc.constantFrom('', '_perp', '-PERP', '_20261225'),
        (base, quote, sep, contract) => {
          const canonical = canonicalInstrument(`${base}${sep}${quote}${contract}`);
          expect(canonical).toBe(`${base}_${quote}${contract.replace('-', '_')}`.toUpperCase());
          expect(canonicalInstrument(canonical!)).toBe(canonical);
        },
      ),
      { numRuns: propertyRuns(300) },
    );
    for (const text of ['EURUSD', 'E_USD', 'EUR_USD_FUT', 'EUR_USD_2026', 'EUR USD']) expect(canonicalInstrument(text)).toBeUndefined();
  });
});

describe("the ledger's entry keys", () => {
  it('of one kind and unit sort as their starts, stay inside their prefix, and tell their kind', () => {
    const start = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true });
    fc.assert(
      fc.property(start, start, fc.constantFrom('day', 'week', 'month') as fc.Arbitrary<'day' | 'week' | 'month'>, (a, b, unit) => {
        const [ka, kb] = [a, b].map((d) => entryKeyOf('pnl', unit, d.toISOString()));
        expect(ka < kb ? -1 : ka > kb ? 1 : 0).toBe(Math.sign(a.getTime() - b.getTime()) || 0);
        expect(ka.startsWith(entryPrefix('pnl', unit)) && ka.startsWith(entryPrefix('pnl'))).toBe(true);
        expect([isEntryOf({ entryKey: ka }, 'pnl'), isEntryOf({ entryKey: ka }, 'perf'), isEntryOf({ entryKey: ka }, 'equity')]).toEqual([
          true,
          false,
          false,
        ]);
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
