/**
 * Property-based: 10,000 generated requests (arbitrary Unicode paths, percent-encodings, `..`, NUL, up to 4 KB;
 * any query parameters, repeated, empty, huge or numeric-looking; any headers) through API Gateway's checks, the
 * real authorizer and the real handlers. Every answer is 200/304/400/401/403/404, matches openapi.yaml, and holds
 * nothing outside the key's accounts; amounts beyond a double's precision come back exactly as stored.
 */
import fc from 'fast-check';
import { generateDataset } from '../../scripts/demo/dataset';
import { eventFor, type FunctionName, type Harness, ROUTES, startHarness } from '../kit/api-harness';
import { contractViolations } from '../kit/contract';
import { throughGateway } from '../kit/gateway';
import { propertyRuns } from '../kit/property-runs';

jest.setTimeout(300_000);

const IDS = ['h-one', 'h-two', 'h-three', 'h-four'];
const SCOPE = ['h-two', 'h-four'];
const dataset = generateDataset({ tradeCounts: [30, 25, 20, 15], accountId: (i) => IDS[i], seed: 99 });
// Values a double cannot hold: 25 significant digits, and integers above 2^53.
const HUGE = {
  balance: '1234567890123456789012.345',
  nav: '-9007199254740993.000000001',
  units: '900719925474099312345',
  price: '0.0000000000000000000000001',
};
Object.assign(dataset.accounts[1].balance, { balance: HUGE.balance, nav: HUGE.nav });
const hugeTrade = dataset.trades.find((t) => t.accountId === 'h-two')!;
Object.assign(hugeTrade, { units: HUGE.units, openPrice: HUGE.price });

let harness: Harness;
let scopedKey = '';
let disabledKey = '';

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  scopedKey = await harness.createKey(SCOPE);
  disabledKey = await harness.createKey(SCOPE, { disabled: true });
});
afterAll(() => harness.close());

const numericLooking = fc.constantFrom(
  '1e3',
  '0x10',
  ' 5',
  '5 ',
  '99999999999999999999',
  '-1',
  '0',
  '1.5',
  '500',
  '501',
  '+7',
  '1_000',
  'NaN',
  'Infinity',
  '０',
);
const known = fc.constantFrom(
  'open',
  'closed',
  'all',
  'OPEN',
  'eur_usd',
  'EUR/USD',
  'xau-usd',
  'EUR_USD',
  '50',
  '1',
  'day',
  'WEEK',
  'month',
  'hour',
  'year',
);
const times = fc.constantFrom(
  '2026-10-25T00:00:00Z',
  '2026-10-25T00:00:00+14:00',
  '2026-10-25',
  '2026-02-30T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '1970-01-01T00:00:00-00:00',
  'now',
);
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 64 }), fc.string({ unit: 'grapheme', maxLength: 4096 }));
const value = fc.oneof(numericLooking, known, times, anyText, fc.constant(''));
const parameterName = fc.oneof(
  fc.constantFrom(
    'status',
    'instrument',
    'limit',
    'cursor',
    'from',
    'to',
    'period',
    'interval',
    'Limit',
    'sort',
    'status[]',
    '__proto__',
    'constructor',
  ),
  fc.string({ unit: 'binary', maxLength: 16 }),
);
const query = fc.dictionary(parameterName, fc.array(value, { minLength: 1, maxLength: 3 }), { maxKeys: 5 });
const account = fc.oneof(
  fc.constantFrom(...IDS, 'all', 'ALL', '..', '../h-one', '%2e%2e', 'h-one%00', 'h-two\u0000', '%00', 'h%2Dtwo', ' h-two', 'h-two '),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 4096 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }).map((s) => encodeURIComponent(s)),
);
const keyHeader = fc.oneof(fc.constant<'scoped'>('scoped'), fc.constant<'disabled'>('disabled'), fc.constant<'none'>('none'), anyText);
const extraHeaders = fc.dictionary(
  fc.oneof(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 20 }), fc.constant('If-None-Match')),
  fc.oneof(anyText, fc.constant('*')),
  { maxKeys: 4 },
);

/** Every account id a body mentions, wherever it is. */
function accountIdsIn(body: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(body)) for (const item of body) accountIdsIn(item, found);
  else if (body && typeof body === 'object') {
    for (const [field, inner] of Object.entries(body)) {
      if (
        (field === 'accountId' || field === 'id') &&
        typeof inner === 'string' &&
        IDS.some((id) => inner === id || inner.startsWith(`${id}-`))
      ) {
        found.add(IDS.find((id) => inner === id || inner.startsWith(`${id}-`))!);
      } else accountIdsIn(inner, found);
    }
  }
  return found;
}

it('10,000 hostile requests: only 200/304/400/401/403/404, each as documented, none beyond the key', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...(Object.keys(ROUTES) as FunctionName[])),
      account,
      query,
      keyHeader,
      extraHeaders,
      async (name, accountId, params, key, headers) => {
        const perAccount = ROUTES[name].includes('{account}');
        const keyValue = key === 'scoped' ? scopedKey : key === 'disabled' ? disabledKey : key === 'none' ? undefined : key;
        const allHeaders: Record<string, string> = { ...headers };
        for (const header of Object.keys(allHeaders)) if (header.toLowerCase() === 'x-api-key') delete allHeaders[header];
        if (keyValue !== undefined) allHeaders['x-api-key'] = keyValue;
        const event = eventFor(name, { account: perAccount ? accountId : undefined, query: params, headers: allHeaders });
        const response = await throughGateway(name, event);

        expect([200, 304, 400, 401, 403, 404]).toContain(response.statusCode);
        expect(contractViolations(ROUTES[name], response)).toEqual([]);
        // A CSV page or a scrape (1.4) is text: every account it names is in it as a word of its own.
        const named =
          typeof response.body === 'string' && response.statusCode === 200
            ? new Set(IDS.filter((id) => new RegExp(`(^|[,"\\s])${id}([,"\\s]|$)`, 'm').test(response.body as string)))
            : accountIdsIn(response.body);
        const leaked = [...named].filter((id) => !SCOPE.includes(id));
        expect(leaked).toEqual([]);
        if (name !== 'health' && key !== 'scoped') expect([401, 403]).toContain(response.statusCode);
        if (response.statusCode === 200) {
          const text = JSON.stringify(response.body);
          if (text.includes(hugeTrade.id))
            expect(text).toContain(`"units":"${HUGE.units}","status":"${hugeTrade.status}","openPrice":"${HUGE.price}"`);
          if (name.endsWith('balance') && text.includes('"accountId":"h-two","currency"'))
            expect(text).toContain(`"balance":"${HUGE.balance}"`);
          // The balance snapshot is also h-two's last equity point of its day.
          if (
            name === 'account-equity' &&
            text.includes('"accountId":"h-two"') &&
            text.includes(`"time":"${dataset.accounts[1].balance.updatedAt}"`)
          ) {
            expect(text).toContain(`"balance":"${HUGE.balance}","nav":"${HUGE.nav}"`);
          }
        }
      },
    ),
    { numRuns: propertyRuns(1_000) },
  );
});

it('amounts beyond a double come back exactly as stored', async () => {
  const headers = { 'x-api-key': scopedKey };
  const balance = await throughGateway('account-balance', eventFor('account-balance', { account: 'h-two', query: {}, headers }));
  expect(balance.body).toMatchObject({ balance: HUGE.balance, nav: HUGE.nav });
  const trades = await throughGateway('account-trades', eventFor('account-trades', { account: 'h-two', query: { limit: '500' }, headers }));
  expect(trades.body.trades.find((t: { id: string }) => t.id === hugeTrade.id)).toMatchObject({ units: HUGE.units, openPrice: HUGE.price });
  const all = await throughGateway('all-balance', eventFor('all-balance', { query: {}, headers }));
  const total = all.body.totals.find((t: { currency: string }) => t.currency === dataset.accounts[1].balance.currency);
  expect(total).toMatchObject({ accountCount: 1, balance: HUGE.balance, nav: HUGE.nav });
  const equity = await throughGateway(
    'account-equity',
    eventFor('account-equity', {
      account: 'h-two',
      query: { interval: 'day', from: '2026-10-01T00:00:00Z', to: '2026-11-02T00:00:00Z' },
      headers,
    }),
  );
  expect(equity.body.points.at(-1)).toMatchObject({ balance: HUGE.balance, nav: HUGE.nav });
});
