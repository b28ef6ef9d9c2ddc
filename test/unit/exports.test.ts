/**
 * Issue 28's pure logic: RFC 4180 quoting, the CSV and CoinTracking layouts, content negotiation, Prometheus's text
 * format (rendered, then read back by the tests' strict parser), the key's Bearer form, an exact product.
 */
import type { Trade } from '@trading-bot-api/core/types';
import { multiplyDecimals } from '@trading-bot-api/core/decimal';
import { apiKeyOf } from '@trading-bot-api/core/store/api-keys-table';
import { csvField, csvRecord, inertText } from '../../api/http/csv';
import { negotiate, parseAccept } from '../../api/http/negotiation';
import { escapeLabelValue, renderExposition } from '../../api/http/prometheus';
import { cointrackingCsv, cointrackingRecords, tradesCsv } from '../../api/http/trade-csv';
import { fleetExposition } from '../../api/http/fleet-exposition';
import { nextLink } from '../../api/http/links';
import { recordsIn } from '../../scripts/export';
import { parsePrometheusText, sampleOf } from '../kit/prometheus-text';

const closed: Trade = {
  id: 'ft-3-1700000000000',
  accountId: 'ft-main',
  instrument: 'BTC_USDT',
  side: 'buy',
  units: '0.015',
  status: 'closed',
  openPrice: '61250.50',
  openTime: '2026-11-01T09:00:00.123Z',
  closePrice: '61500.5',
  closeTime: '2026-11-01T15:30:00.000Z',
  realizedPL: '3.75',
  unrealizedPL: '0',
  stopLoss: null,
  takeProfit: '62000',
  closeReason: null,
};

it('quotes a field only when RFC 4180 asks, doubling its quotes; records end with CRLF', () => {
  expect(csvField('plain')).toBe('plain');
  expect(csvField(null)).toBe('');
  expect(csvField('a,b')).toBe('"a,b"');
  expect(csvField('say "hi"')).toBe('"say ""hi"""');
  expect(csvField('two\nlines')).toBe('"two\nlines"');
  expect(csvField('cr\r')).toBe('"cr\r"');
  expect(csvRecord(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
});

it('neutralises free text a spreadsheet would run as a formula, never an amount', () => {
  for (const text of ['=HYPERLINK("x")', '+1', '-cmd', '@SUM(A1)', '\t=1']) expect(inertText(text)).toBe(`'${text}`);
  expect(inertText('gone from the bot')).toBe('gone from the bot');
  expect(inertText(null)).toBeNull();
  const gone = { ...closed, status: 'gone', closePrice: null, realizedPL: '-0.50', closeReason: '=cmd|calc' } as Trade;
  const [, row] = tradesCsv([gone]).split('\r\n');
  expect(row).toBe(
    "ft-3-1700000000000,ft-main,BTC_USDT,buy,0.015,gone,61250.50,2026-11-01T09:00:00.123Z,,2026-11-01T15:30:00.000Z,-0.50,0,,62000,'=cmd|calc",
  );
});

it('writes the trades layout: a header, then each trade’s exact strings in the contract’s order', () => {
  expect(tradesCsv([closed])).toBe(
    'id,accountId,instrument,side,units,status,openPrice,openTime,closePrice,closeTime,realizedPL,unrealizedPL,stopLoss,takeProfit,closeReason\r\n' +
      'ft-3-1700000000000,ft-main,BTC_USDT,buy,0.015,closed,61250.50,2026-11-01T09:00:00.123Z,61500.5,2026-11-01T15:30:00.000Z,3.75,0,,62000,\r\n',
  );
  expect(tradesCsv([])).toBe(
    'id,accountId,instrument,side,units,status,openPrice,openTime,closePrice,closeTime,realizedPL,unrealizedPL,stopLoss,takeProfit,closeReason\r\n',
  );
});

it('maps a closed trade to its two exchanges for CoinTracking, long and short; nothing for open or gone trades', () => {
  const facts = { broker: 'Binance', currency: 'USDT' };
  expect(cointrackingRecords(closed, facts)).toEqual([
    ['Trade', '0.015', 'BTC', '918.75750', 'USDT', null, null, 'Binance', 'ft-main', 'ft-3-1700000000000 open', '2026-11-01 09:00:00'],
    [
      'Trade',
      '922.5075',
      'USDT',
      '0.015',
      'BTC',
      null,
      null,
      'Binance',
      'ft-main',
      'ft-3-1700000000000 close; realized P&L 3.75 USDT',
      '2026-11-01 15:30:00',
    ],
  ]);
  const short = cointrackingRecords({ ...closed, side: 'sell' }, facts);
  expect(short.map((row) => row.slice(1, 5))).toEqual([
    ['918.75750', 'USDT', '0.015', 'BTC'],
    ['0.015', 'BTC', '922.5075', 'USDT'],
  ]);
  expect(cointrackingRecords({ ...closed, status: 'open', closePrice: null, closeTime: null }, facts)).toEqual([]);
  expect(cointrackingRecords({ ...closed, status: 'gone', closePrice: null, closeReason: 'gone' }, facts)).toEqual([]);
  // Without the account (not found): no exchange, no currency; the records still stand.
  expect(cointrackingRecords(closed, undefined)[1][7]).toBeNull();
  expect(cointrackingCsv([closed], new Map()).split('\r\n')[0]).toBe(
    'Type,Buy Amount,Buy Currency,Sell Amount,Sell Currency,Fee,Fee Currency,Exchange,Trade-Group,Comment,Date',
  );
});

it('multiplies decimals exactly, scales added', () => {
  expect(multiplyDecimals('0.015', '61250.50')).toBe('918.75750');
  expect(multiplyDecimals('-2', '1.5')).toBe('-3.0');
  expect(multiplyDecimals('123456789012345678901234', '10')).toBe('1234567890123456789012340');
});

it('negotiates by Accept: weights, specificity, the server’s order on ties, 406 when nothing is acceptable', () => {
  const offered = ['application/json; charset=utf-8', 'text/csv; charset=utf-8'];
  expect(negotiate(undefined, offered)).toBe(0);
  expect(negotiate('text/csv', offered)).toBe(1);
  expect(negotiate('text/*', offered)).toBe(1);
  expect(negotiate('*/*', offered)).toBe(0);
  expect(negotiate('text/csv;q=0.5, application/json;q=0.4', offered)).toBe(1);
  expect(negotiate('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', offered)).toBe(0);
  expect(negotiate('*/*, application/json;q=0', offered)).toBe(1);
  expect(negotiate('application/xml', offered)).toBeUndefined();
  expect(negotiate('text/csv;q=0', offered)).toBeUndefined();
  // What cannot be read is ignored, never a refusal.
  expect(negotiate('garbage', offered)).toBe(0);
  expect(parseAccept('text/csv;q=2, a/b;q=0.5, */x')).toEqual([{ type: 'a', subtype: 'b', q: 0.5 }]);
});

it('links the next page relative to the request, its query kept but the cursor', () => {
  expect(nextLink(null, { query: { limit: ['5'] } })).toEqual({});
  expect(nextLink('abc', { query: { status: ['closed'], cursor: ['old'], format: ['csv'] } })).toEqual({
    Link: '<?status=closed&format=csv&cursor=abc>; rel="next"',
  });
});

it('renders Prometheus text the strict parser reads back, labels escaped', () => {
  expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
  const text = renderExposition([
    { name: 'x_total', help: 'help\nline', type: 'gauge', samples: [{ labels: { a: 'q"\\\n' }, value: '-12.50' }] },
    { name: 'empty', help: 'none', type: 'gauge', samples: [] },
  ]);
  const families = parsePrometheusText(text);
  expect(sampleOf(families, 'x_total', { a: 'q"\\\n' })).toMatchObject({ text: '-12.50', value: -12.5 });
  expect(families.get('x_total')!.help).toBe('help\nline');
  expect(() => parsePrometheusText('x 1\n')).toThrow(/before its HELP or TYPE/);
  expect(() => parsePrometheusText('# TYPE x gauge\nx{a="1"} 1e\n')).toThrow(/bad value/);
});

it('exposes a bot with every series, and none of a heartbeat never sent', () => {
  const status = { accountId: 'a1', state: 'error', stale: false, lastHeartbeatAt: null, heartbeatAgeSeconds: null, openTradeCount: 2 };
  const text = fleetExposition({
    bots: [
      {
        status: status as never,
        account: { id: 'a1', name: 'A', currency: 'EUR', broker: 'IB "pro"', environment: 'paper', createdAt: '' },
        balance: { balance: '10.00', nav: '11.50', unrealizedPL: '1.50', realizedPL: '-3.25' } as never,
        today: { realizedPL: '0.75', tradesClosed: 1 },
      },
    ],
    summary: { total: 1, running: 0, paused: 0, stopped: 0, error: 1, stale: 0 },
  });
  const families = parsePrometheusText(text);
  const labels = { account: 'a1', currency: 'EUR', broker: 'IB "pro"', environment: 'paper' };
  expect(sampleOf(families, 'tba_bot_state', { ...labels, state: 'error' }).value).toBe(1);
  expect(sampleOf(families, 'tba_bot_state', { ...labels, state: 'running' }).value).toBe(0);
  expect(families.get('tba_bot_heartbeat_age_seconds')!.samples).toEqual([]);
  expect(sampleOf(families, 'tba_realized_pnl_total', labels).text).toBe('-3.25');
  expect(sampleOf(families, 'tba_realized_pnl_today', labels).text).toBe('0.75');
  expect(sampleOf(families, 'tba_fleet_bots', { state: 'error' }).value).toBe(1);
  expect([...families.values()].every((family) => family.type === 'gauge')).toBe(true);
});

it('reads the key from x-api-key first, else a Bearer token', () => {
  expect(apiKeyOf({ 'X-Api-Key': ' k1 ', authorization: 'Bearer k2' })).toBe('k1');
  expect(apiKeyOf({ Authorization: 'Bearer k2' })).toBe('k2');
  expect(apiKeyOf({ authorization: 'bearer  k3 ' })).toBe('k3');
  expect(apiKeyOf({ authorization: 'Basic abc' })).toBeUndefined();
  expect(apiKeyOf({ authorization: 'Bearer a b' })).toBeUndefined();
  expect(apiKeyOf(null)).toBeUndefined();
});

it('counts a CSV page’s records, line breaks inside quotes not counted', () => {
  expect(recordsIn('h\r\na,"x\r\ny"\r\nb\r\n')).toBe(3);
});
