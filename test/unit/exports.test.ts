/**
 * Issues 28 and 43's pure logic: RFC 4180 quoting, the CSV and CoinTracking layouts (fees, futures, gone trades), content negotiation, Prometheus's text
 * format (rendered, then read back by the tests' strict parser), the key's Bearer form, an exact product.
 */
import type { Trade } from '@trading-bot-api/core/types';
import { multiplyDecimals, negateDecimal, sumDecimals, trimDecimal } from '@trading-bot-api/core/decimal';
import { apiKeyOf } from '@trading-bot-api/core/store/api-keys-table';
import { csvField, csvRecord, inertText } from '../../api/http/csv';
import { negotiate, parseAccept } from '../../api/http/negotiation';
import { escapeLabelValue, renderExposition } from '../../api/http/prometheus';
import {
  COINTRACKING_COLUMNS,
  cointrackingCsv,
  cointrackingRecords,
  feesCell,
  feesOfCell,
  leftOutOf,
  tradesCsv,
} from '../../api/http/trade-csv';
import { fleetExposition } from '../../api/http/fleet-exposition';
import { nextLink } from '../../api/http/links';
import { recordsIn } from '../../scripts/export';
import { type ParsedFamily, parsePrometheusText, promlintProblems, sampleOf } from '../kit/prometheus-text';
import { UNKNOWN_DETAILS } from '../kit/trade-details';

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
  ...UNKNOWN_DETAILS,
};

/** A spot trade whose fees are known: the opening's in BTC (the base bought), the closing's in USDT and in BNB. */
const spot: Trade = {
  ...closed,
  closeReason: 'roi',
  currency: 'USDT',
  market: 'spot',
  leverage: '1',
  fees: [
    { amount: '0.000015', currency: 'BTC', leg: 'open' },
    { amount: '0.9225075', currency: 'USDT', leg: 'close' },
    { amount: '0.0021', currency: 'BNB', leg: 'close' },
  ],
  feeTotal: null,
  orderIds: ['8389765504', '8389771920'],
};

/**
 * A leveraged short future, closed with a profit net of its fees and funding (freqtrade's close_profit_abs): 10 SOL
 * sold at 150.25 and bought back at 140.50 make 97.5 before fees (0.75125 + 0.7025) and funding paid (0.8525).
 */
const future: Trade = {
  ...closed,
  id: 'ft-7-1772445600000',
  accountId: 'ft-futures',
  instrument: 'SOL_USDT_PERP',
  side: 'sell',
  units: '10.00',
  openPrice: '150.25',
  closePrice: '140.50',
  openTime: '2026-03-02T10:00:00.000Z',
  closeTime: '2026-03-02T16:00:00.000Z',
  realizedPL: '95.19375',
  takeProfit: null,
  closeReason: 'stop_loss',
  currency: 'USDT',
  market: 'futures',
  leverage: '5',
  fees: [
    { amount: '0.75125', currency: 'USDT', leg: 'open' },
    { amount: '0.7025', currency: 'USDT', leg: 'close' },
  ],
  feeTotal: '1.45375',
  fundingFees: '0.8525',
  liquidationPrice: '178.42',
  orderIds: ['8389765504', '8389771920'],
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

it('neutralises free text a spreadsheet would run as a formula, never an amount; a gone trade’s P&L is empty, not 0', () => {
  for (const text of ['=HYPERLINK("x")', '+1', '-cmd', '@SUM(A1)', '\t=1']) expect(inertText(text)).toBe(`'${text}`);
  expect(inertText('gone from the bot')).toBe('gone from the bot');
  expect(inertText(null)).toBeNull();
  const gone = { ...closed, status: 'gone', closePrice: null, realizedPL: '0', closeReason: '=cmd|calc' } as Trade;
  const [, row] = tradesCsv([gone]).split('\r\n');
  expect(row).toBe(
    "ft-3-1700000000000,ft-main,BTC_USDT,buy,0.015,gone,61250.50,2026-11-01T09:00:00.123Z,,2026-11-01T15:30:00.000Z,,,,62000,'=cmd|calc,,,,,,,,",
  );
});

const HEADER =
  'id,accountId,instrument,side,units,status,openPrice,openTime,closePrice,closeTime,realizedPL,unrealizedPL,stopLoss,takeProfit,closeReason,' +
  'currency,market,leverage,fees,feeTotal,fundingFees,liquidationPrice,orderIds\r\n';

it('writes the trades layout: a header, then each trade’s exact strings in the contract’s order, its currency on every row', () => {
  expect(tradesCsv([closed, spot, future, { ...spot, fees: [] }])).toBe(
    HEADER +
      'ft-3-1700000000000,ft-main,BTC_USDT,buy,0.015,closed,61250.50,2026-11-01T09:00:00.123Z,61500.5,2026-11-01T15:30:00.000Z,3.75,0,,62000,,,,,,,,,\r\n' +
      'ft-3-1700000000000,ft-main,BTC_USDT,buy,0.015,closed,61250.50,2026-11-01T09:00:00.123Z,61500.5,2026-11-01T15:30:00.000Z,3.75,0,,62000,roi,' +
      'USDT,spot,1,0.000015 BTC open; 0.9225075 USDT close; 0.0021 BNB close,,,,8389765504 8389771920\r\n' +
      'ft-7-1772445600000,ft-futures,SOL_USDT_PERP,sell,10.00,closed,150.25,2026-03-02T10:00:00.000Z,140.50,2026-03-02T16:00:00.000Z,95.19375,0,,,stop_loss,' +
      'USDT,futures,5,0.75125 USDT open; 0.7025 USDT close,1.45375,0.8525,178.42,8389765504 8389771920\r\n' +
      'ft-3-1700000000000,ft-main,BTC_USDT,buy,0.015,closed,61250.50,2026-11-01T09:00:00.123Z,61500.5,2026-11-01T15:30:00.000Z,3.75,0,,62000,roi,' +
      'USDT,spot,1,none,,,,8389765504 8389771920\r\n',
  );
  expect(tradesCsv([])).toBe(HEADER);
});

it('reads a fees cell back as it was written: none, unknown, one or several', () => {
  for (const fees of [[], spot.fees, future.fees]) expect(feesOfCell(feesCell(fees)!)).toEqual(fees);
  expect(feesCell(null)).toBeNull();
  expect(feesOfCell('0.1 USDT')).toBeUndefined();
  expect(feesOfCell('0.1 USDT later')).toBeUndefined();
});

const facts = { broker: 'Binance', currency: 'USDT' };
// The columns' names and order are pinned by the header row's assertion (the spot trade's test).
const row = (cells: Record<string, string>) =>
  COINTRACKING_COLUMNS.map((column) => cells[column] ?? (column === 'Exchange' ? 'Binance' : null));

it('maps a closed spot trade to its two exchanges for CoinTracking, each with its fees in their own currency', () => {
  // A trade whose fees are unknown, as 1.4 wrote every trade: the same two records.
  expect(cointrackingRecords(closed, facts)).toEqual([
    [
      'Trade',
      '0.015',
      'BTC',
      '918.75750',
      'USDT',
      null,
      null,
      'Binance',
      'ft-main',
      'ft-3-1700000000000 open; fees unknown',
      '2026-11-01 09:00:00',
    ],
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
  expect(short.map((cells) => cells.slice(1, 5))).toEqual([
    ['918.75750', 'USDT', '0.015', 'BTC'],
    ['0.015', 'BTC', '922.5075', 'USDT'],
  ]);
  // The opening's fee (in the base) in its record's Fee; the closing's, in two currencies, as records of their own.
  expect(cointrackingRecords(spot, facts)).toEqual([
    row({
      Type: 'Trade',
      'Buy Amount': '0.015',
      'Buy Currency': 'BTC',
      'Sell Amount': '918.75750',
      'Sell Currency': 'USDT',
      Fee: '0.000015',
      'Fee Currency': 'BTC',
      'Trade-Group': 'ft-main',
      Comment: 'ft-3-1700000000000 open',
      Date: '2026-11-01 09:00:00',
    }),
    row({
      Type: 'Trade',
      'Buy Amount': '922.5075',
      'Buy Currency': 'USDT',
      'Sell Amount': '0.015',
      'Sell Currency': 'BTC',
      'Trade-Group': 'ft-main',
      Comment: 'ft-3-1700000000000 close (roi); realized P&L 3.75 USDT',
      Date: '2026-11-01 15:30:00',
    }),
    row({
      Type: 'Other Fee',
      'Sell Amount': '0.9225075',
      'Sell Currency': 'USDT',
      'Trade-Group': 'ft-main',
      Comment: 'ft-3-1700000000000 close fee',
      Date: '2026-11-01 15:30:00',
    }),
    row({
      Type: 'Other Fee',
      'Sell Amount': '0.0021',
      'Sell Currency': 'BNB',
      'Trade-Group': 'ft-main',
      Comment: 'ft-3-1700000000000 close fee',
      Date: '2026-11-01 15:30:00',
    }),
  ]);
  // One closing fee alone goes in its record's Fee.
  expect(cointrackingRecords({ ...spot, fees: [spot.fees![1]] }, facts)[1].slice(5, 7)).toEqual(['0.9225075', 'USDT']);
  // Without the account (not found): no exchange; the records still stand.
  expect(cointrackingRecords(closed, undefined)[1][7]).toBeNull();
  expect(cointrackingCsv([closed], new Map()).split('\r\n')[0]).toBe(
    'Type,Buy Amount,Buy Currency,Sell Amount,Sell Currency,Fee,Fee Currency,Exchange,Trade-Group,Comment,Date',
  );
});

it('maps a short future to a derivatives profit in its settlement currency, never a sale; its fees and funding add up to its P&L', () => {
  const records = cointrackingRecords(future, facts);
  expect(records).toEqual([
    row({
      Type: 'Derivatives / Futures Profit',
      'Buy Amount': '97.5',
      'Buy Currency': 'USDT',
      Fee: '1.45375',
      'Fee Currency': 'USDT',
      'Trade-Group': 'ft-futures',
      Comment: 'ft-7-1772445600000 short 10.00 SOL_USDT_PERP leverage 5 (stop_loss); realized P&L 95.19375 USDT',
      Date: '2026-03-02 16:00:00',
    }),
    row({
      Type: 'Derivatives / Futures Loss',
      'Sell Amount': '0.8525',
      'Sell Currency': 'USDT',
      'Trade-Group': 'ft-futures',
      Comment: 'ft-7-1772445600000 funding paid',
      Date: '2026-03-02 16:00:00',
    }),
  ]);
  expect(records.some((cells) => cells[0] === 'Trade' || cells[2] === 'SOL' || cells[4] === 'SOL')).toBe(false);
  // What the records move in USDT: the P&L, less the fees and the funding, is the trade's realized P&L to the digit.
  const moved = (cells: (string | null)[]) =>
    sumDecimals(['0', cells[1] ?? '0', negateDecimal(cells[3] ?? '0'), negateDecimal(cells[5] ?? '0')]);
  expect(trimDecimal(sumDecimals(records.map(moved)))).toBe(future.realizedPL);
  // Funding received is a profit; a loss before fees is a loss; a fee in another currency a Margin Fee of its own.
  const losing = cointrackingRecords(
    {
      ...future,
      market: 'margin',
      instrument: 'SOL_USDT',
      realizedPL: '-12.5',
      fundingFees: null,
      fees: [{ amount: '0.01', currency: 'BNB', leg: 'open' }],
    },
    facts,
  );
  expect(losing.map((cells) => cells.slice(0, 7))).toEqual([
    ['Margin Loss', null, null, '12.5', 'USDT', null, null],
    ['Margin Fee', null, null, '0.01', 'BNB', null, null],
  ]);
  expect(
    cointrackingRecords({ ...future, fundingFees: '-2' }, facts)
      .at(-1)!
      .slice(0, 3),
  ).toEqual(['Derivatives / Futures Profit', '2', 'USDT']);
});

it('exports no open or gone trade to CoinTracking, and counts them', () => {
  const open = { ...closed, status: 'open', closePrice: null, closeTime: null } as Trade;
  const gone = { ...closed, status: 'gone', closePrice: null, closeReason: 'gone from the bot' } as Trade;
  expect(cointrackingRecords(open, facts)).toEqual([]);
  expect(cointrackingRecords(gone, facts)).toEqual([]);
  expect(leftOutOf([open, gone, gone, future])).toEqual({ open: 1, gone: 2 });
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
    { name: 'x_total', help: 'help\nline', samples: [{ labels: { a: 'q"\\\n' }, value: '-12.50' }] },
    { name: 'empty', help: 'none', samples: [] },
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
        recent: { winRate: '0.6', maxDrawdownRatio: null },
      },
    ],
    summary: { total: 1, running: 0, paused: 0, stopped: 0, error: 1, stale: 0 },
  });
  const families = parsePrometheusText(text);
  const labels = { account: 'a1', currency: 'EUR', broker: 'IB "pro"', environment: 'paper' };
  expect(sampleOf(families, 'tba_bot_state', { ...labels, state: 'error' }).value).toBe(1);
  expect(sampleOf(families, 'tba_bot_state', { ...labels, state: 'running' }).value).toBe(0);
  expect(families.get('tba_bot_heartbeat_age_seconds')!.samples).toEqual([]);
  expect(sampleOf(families, 'tba_realized_pnl', labels).text).toBe('-3.25');
  expect(sampleOf(families, 'tba_realized_pnl_today', labels).text).toBe('0.75');
  expect(sampleOf(families, 'tba_fleet_bots', { state: 'error' }).value).toBe(1);
  expect(sampleOf(families, 'tba_win_ratio', labels).text).toBe('0.6');
  expect(families.get('tba_max_drawdown_ratio')!.samples).toEqual([]);
  expect([...families.values()].every((family) => family.type === 'gauge')).toBe(true);
  expect(promlintProblems(families)).toEqual([]);
});

it("holds expositions to promtool's lint rules: what it flags, the checker flags", () => {
  const family = (name: string, type = 'gauge', labels: Record<string, string> = {}): [string, ParsedFamily] => [
    name,
    { name, help: name === 'no_help' ? '' : 'h', type, samples: [{ name, labels, text: '1', value: 1 }] },
  ];
  const problems = promlintProblems(
    new Map([
      family('tba_fleet_bots_total'),
      family('requests', 'counter'),
      family('no_help'),
      family('latency_milliseconds'),
      family('latency_ms'),
      family('queue_gauge'),
      family('a:b'),
      family('camelCase'),
      family('x', 'gauge', { Account: 'a' }),
      family('size_sum'),
      family('requests_total', 'counter'),
      family('tba_bot_heartbeat_age_seconds'),
    ]),
  );
  expect(problems).toEqual([
    'tba_fleet_bots_total: non-counter metrics should not have "_total" suffix',
    'requests: counter metrics should have "_total" suffix',
    'no_help: no help text',
    'latency_milliseconds: use base unit "seconds" instead of "milliseconds"',
    'latency_ms: metric names should not contain abbreviated units',
    "queue_gauge: metric name should not include type 'gauge'",
    "a:b: metric names should not contain ':'",
    "camelCase: metric names should be written in 'snake_case' not 'camelCase'",
    "x: label names should be written in 'snake_case' not 'camelCase'",
    'size_sum: non-histogram and non-summary metrics should not have "_count" or "_sum" suffix',
  ]);
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
