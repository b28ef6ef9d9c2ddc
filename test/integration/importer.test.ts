/**
 * `npm run import`: a round trip (every trade listed through the API, written as JSON Lines or CSV, imported into a
 * fresh account, every answer compared with the original's), bad rows reported by line and left out, a second import that changes
 * nothing, a closed row that closes a stored open trade, and amounts that keep every digit.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TRADE_FIELDS, type Trade } from '@trading-bot-api/core/types';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import { generateDataset } from '../../scripts/demo/dataset';
import { entryPrefix } from '@trading-bot-api/core/store/ledger-table';
import { eventFor, type Harness, invoke, startHarness } from '../kit/api-harness';
import { scriptArgs } from '../kit/scripts';

jest.setTimeout(180_000);

const ROOT = join(__dirname, '..', '..');
const IDS = ['im-usd', 'im-eur'];
// 120 and 60 trades: one batch of the importer's (500 rows) either way, and every listing the round trip compares
// (open, closed, EUR_USD, XAU_USD) holds trades in both accounts, as with the 420 and 90 there were before.
const dataset = generateDataset({ tradeCounts: [120, 60], accountId: (i) => IDS[i], seed: 12 });
let harness: Harness;
let dir: string;

beforeAll(async () => {
  harness = await startHarness();
  await harness.load(dataset);
  dir = mkdtempSync(join(tmpdir(), 'import-test-'));
});
afterAll(async () => {
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

function importFile(stage: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...scriptArgs('import'), ...args, '--stage', stage, '--endpoint', harness.db.endpoint],
      { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** Every trade of an account under a filter, walked page by page through the in-process API. */
async function listed(account: string, query: Record<string, string> = {}): Promise<Trade[]> {
  const trades: Trade[] = [];
  let cursor: string | undefined;
  do {
    const response = await invoke(
      'account-trades',
      eventFor('account-trades', { account, query: { ...query, limit: '500', ...(cursor ? { cursor } : {}) } }),
    );
    trades.push(...response.body.trades);
    cursor = response.body.nextCursor ?? undefined;
  } while (cursor);
  return trades;
}

async function pnlEntries(store: Store, account: string) {
  const output = await store.client.send(
    new QueryCommand({
      TableName: store.tables.ledger,
      KeyConditionExpression: 'accountId = :a AND begins_with(entryKey, :p)',
      ExpressionAttributeValues: { ':a': account, ':p': entryPrefix('pnl') },
      ConsistentRead: true,
    }),
  );
  return (output.Items ?? []).map(({ version: _version, ...entry }) => entry);
}

const csvCell = (value: unknown) =>
  value === null || value === undefined ? '' : /[",\n]/.test(String(value)) ? `"${String(value).replaceAll('"', '""')}"` : String(value);
/** A field as docs/api.md says the CSV writes it: fees as `AMOUNT CURRENCY LEG; …` or `none`, order ids by spaces. */
const cellOf = (trade: Record<string, unknown>, field: string) => {
  const value = trade[field];
  if (field === 'fees' && Array.isArray(value))
    return value.length
      ? value.map((fee: { amount: string; currency: string; leg: string }) => `${fee.amount} ${fee.currency} ${fee.leg}`).join('; ')
      : 'none';
  if (field === 'orderIds' && Array.isArray(value)) return value.join(' ');
  return csvCell(value);
};
const asCsv = (trades: Record<string, unknown>[]) =>
  [TRADE_FIELDS.join(','), ...trades.map((trade) => TRADE_FIELDS.map((field) => cellOf(trade, field)).join(','))].join('\n');
const asJsonLines = (trades: unknown[]) => trades.map((trade) => JSON.stringify(trade)).join('\n');

describe.each([
  ['JSON Lines', 'jsonl', asJsonLines],
  ['CSV', 'csv', asCsv],
] as const)('round trip through %s', (_, extension, write) => {
  it('imports every trade the API lists into a fresh account, which then answers as the original does', async () => {
    const account = extension === 'csv' ? 'im-eur' : 'im-usd';
    // The copy's answers are the original's, but for the account they name. A fresh account is what a fresh
    // database is to the importer: every table is keyed by account.
    const copy = `${account}-copy`;
    const asCopy = <T extends { accountId?: string }>(items: T[]) => items.map((item) => ({ ...item, accountId: copy }));
    const trades = await listed(account);
    const file = join(dir, `${account}.${extension}`);
    writeFileSync(file, write(asCopy(trades) as unknown as Record<string, unknown>[]));
    const currency = dataset.accounts[IDS.indexOf(account)].account.currency;
    const result = await importFile(harness.stage, ['--account', copy, '--create', '--currency', currency, file]);
    expect(result.stdout).toContain(`${trades.length} rows read, ${trades.length} written, 0 unchanged, 0 rejected`);
    expect(result.code).toBe(0);

    for (const status of [undefined, 'open', 'closed']) {
      for (const instrument of [undefined, 'EUR_USD', 'XAU_USD']) {
        const query = { ...(status ? { status } : {}), ...(instrument ? { instrument } : {}) };
        expect(await listed(copy, query)).toEqual(asCopy(await listed(account, query)));
      }
    }
    const answer = async (name: 'account-balance' | 'account-status', id: string) =>
      (await invoke(name, eventFor(name, { account: id, query: {} }))).body;
    const original = await answer('account-balance', account);
    expect(await answer('account-balance', copy)).toMatchObject({
      realizedPL: original.realizedPL,
      openTradeCount: original.openTradeCount,
    });
    expect((await answer('account-status', copy)).lastTradeAt).toBe((await answer('account-status', account)).lastTradeAt);
    expect(await pnlEntries(harness.store, copy)).toEqual(asCopy(await pnlEntries(harness.store, account)));
  });
});

it('imports the same file twice without a second effect, closes an open trade that comes closed, and refuses to change a closed one', async () => {
  const account = 'im-again';
  const base = { instrument: 'EUR_USD', side: 'buy', units: '1000', openPrice: '1.1' };
  const rows = [
    { id: 'a-1', ...base, status: 'open', openTime: '2026-11-01T10:00:00.000Z' },
    {
      id: 'a-2',
      ...base,
      status: 'closed',
      openTime: '2026-11-01T11:00:00.000Z',
      closePrice: '1.2',
      closeTime: '2026-11-02T00:00:00.000Z',
      realizedPL: '100',
    },
  ];
  const file = join(dir, 'again.jsonl');
  writeFileSync(file, asJsonLines(rows));
  const first = await importFile(harness.stage, ['--account', account, '--create', '--currency', 'USD', '--name', 'Again', file]);
  expect(first.stdout).toContain('2 rows read, 2 written, 0 unchanged, 0 rejected');
  const second = await importFile(harness.stage, ['--account', account, '--create', '--currency', 'USD', file]);
  expect(second.stdout).toContain('2 rows read, 0 written, 2 unchanged, 0 rejected');
  expect(second.code).toBe(0);

  writeFileSync(
    file,
    asJsonLines([
      { ...rows[0], status: 'closed', closePrice: '1.15', closeTime: '2026-11-03T00:00:00.000Z', realizedPL: '50' },
      { ...rows[1], realizedPL: '999' },
    ]),
  );
  const third = await importFile(harness.stage, ['--account', account, file]);
  expect(third.stdout).toContain('2 rows read, 1 written, 0 unchanged, 1 rejected');
  expect(third.stdout).toMatch(/line 2: trade "a-2" is closed, and closed is final/);
  expect(third.code).toBe(1);
  const balance = (await invoke('account-balance', eventFor('account-balance', { account, query: {} }))).body;
  expect(balance).toMatchObject({ realizedPL: '150', openTradeCount: 0 });
});

it('reports each bad row with its line and reason, writes the valid ones, and exits non-zero', async () => {
  const account = 'im-bad';
  const good = {
    instrument: 'EUR_USD',
    side: 'buy',
    units: '1000',
    openPrice: '1.1',
    status: 'open',
    openTime: '2026-11-01T10:00:00.000Z',
  };
  const lines = [
    JSON.stringify({ id: 'ok-1', ...good }),
    JSON.stringify({ id: 'bad-1', ...good, units: '1e5' }),
    JSON.stringify({ id: 'bad-2', ...good, units: '12,5' }),
    JSON.stringify({ id: 'bad-3', ...good, openTime: '2026-11-01 10:00' }),
    JSON.stringify({ id: 'bad-4', ...good, status: 'closed', closePrice: '1.2', closeTime: '2026-10-01T00:00:00.000Z', realizedPL: '1' }),
    JSON.stringify({ id: 'bad-5', ...good, status: 'pending' }),
    JSON.stringify({ id: 'bad#6', ...good }),
    JSON.stringify({ id: 'bad-7', ...good, accountId: 'someone-else' }),
    JSON.stringify({ id: 'bad-8', ...good, units: 1000 }),
    '{"id": "bad-9", ',
    JSON.stringify({ id: 'bad-10', ...good, commission: '30' }),
    '',
    JSON.stringify({ id: 'ok-2', ...good, openTime: '2026-11-01T11:00:00.000Z' }),
  ];
  const file = join(dir, 'bad.jsonl');
  writeFileSync(file, lines.join('\n'));
  const result = await importFile(harness.stage, ['--account', account, '--create', '--currency', 'USD', file]);
  expect(result.code).toBe(1);
  expect(result.stdout).toContain('12 rows read, 2 written, 0 unchanged, 10 rejected');
  for (const [line, reason] of [
    [2, /units: must be a decimal string/],
    [3, /units: must be a decimal string/],
    [4, /openTime: must be an RFC 3339 time/],
    [5, /closeTime: must not be before openTime/],
    [6, /status: must be one of open, closed/],
    [7, /id: must be 1–128 letters/],
    [8, /accountId: is "someone-else"/],
    [9, /units: must be a decimal string such as "10.50", not a number/],
    [10, /not valid JSON/],
    [11, /unknown field commission/],
  ] as const) {
    expect(result.stdout).toMatch(new RegExp(`^line ${line}: ${reason.source}`, 'm'));
  }
  expect((await listed(account)).map((trade) => trade.id)).toEqual(['ok-2', 'ok-1']);

  const csv = join(dir, 'bad.csv');
  writeFileSync(
    csv,
    [
      'id,instrument,side,units,status,openPrice,openTime',
      'c-1,EUR_USD,buy,"12,5",open,1.1,2026-11-01T10:00:00.000Z',
      'c-2,EUR_USD,buy,1000,open,1.1',
    ].join('\n'),
  );
  const fromCsv = await importFile(harness.stage, ['--account', account, csv]);
  expect(fromCsv.stdout).toMatch(/^line 2: units: must be a decimal string/m);
  expect(fromCsv.stdout).toMatch(/^line 3: 6 cells where the header has 7 columns/m);

  const header = join(dir, 'header.csv');
  writeFileSync(header, 'id,instrument,commission\n');
  const refused = await importFile(harness.stage, ['--account', account, header]);
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain('unknown column commission');
  const missing = await importFile(harness.stage, ['--account', 'nobody-here', file]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('no account nobody-here: create it with --create --currency CUR');
});

it('keeps every digit of an amount', async () => {
  const account = 'im-digits';
  const row = {
    id: 'huge',
    instrument: 'XAU_USD',
    side: 'sell',
    units: '900719925474099312345',
    status: 'closed',
    openPrice: '0.0000000000000000000000001',
    openTime: '2026-11-01T10:00:00.000Z',
    closePrice: '1234567890123456789012.345',
    closeTime: '2026-11-02T10:00:00.000Z',
    realizedPL: '-9007199254740993.000000001',
  };
  const file = join(dir, 'digits.csv');
  writeFileSync(file, asCsv([row]));
  expect((await importFile(harness.stage, ['--account', account, '--create', '--currency', 'USD', file])).code).toBe(0);
  expect((await listed(account))[0]).toMatchObject({
    units: row.units,
    openPrice: row.openPrice,
    closePrice: row.closePrice,
    realizedPL: row.realizedPL,
  });
  expect((await invoke('account-balance', eventFor('account-balance', { account, query: {} }))).body.realizedPL).toBe(row.realizedPL);
});

it('--opening-balance: the account shows its NAV and a point a day of equity; importing again records nothing', async () => {
  const account = 'im-opening';
  const base = { instrument: 'EUR_USD', side: 'buy', units: '1000', openPrice: '1.1', status: 'closed', closePrice: '1.2' };
  const file = join(dir, 'opening.jsonl');
  writeFileSync(
    file,
    asJsonLines([
      { id: 'o-1', ...base, openTime: '2026-11-01T10:00:00Z', closeTime: '2026-11-01T12:00:00Z', realizedPL: '100.25' },
      { id: 'o-2', ...base, openTime: '2026-11-01T13:00:00Z', closeTime: '2026-11-03T09:30:00Z', realizedPL: '-40' },
      { id: 'o-3', ...base, openTime: '2026-11-03T10:00:00Z', closeTime: '2026-11-03T11:00:00Z', realizedPL: '0.5' },
      { id: 'o-4', instrument: 'EUR_USD', side: 'sell', units: '500', openPrice: '1.1', status: 'open', openTime: '2026-11-04T00:00:00Z' },
    ]),
  );
  const args = ['--account', account, '--create', '--currency', 'USD', '--opening-balance', '10000.00', file];
  const first = await importFile(harness.stage, args);
  expect(first.stdout).toContain('import: opening balance 10000.00: 3 balance snapshots recorded');
  const balance = (await invoke('account-balance', eventFor('account-balance', { account, query: {} }))).body;
  expect(balance).toMatchObject({ balance: '10060.75', nav: '10060.75', realizedPL: '60.75', openTradeCount: 1 });
  const equity = (
    await invoke(
      'account-equity',
      eventFor('account-equity', { account, query: { interval: 'day', from: '2026-11-01T00:00:00Z', to: '2026-11-05T00:00:00Z' } }),
    )
  ).body;
  expect(equity.points.map((point: { time: string; nav: string }) => [point.time.slice(0, 10), point.nav])).toEqual([
    ['2026-11-01', '10100.25'],
    ['2026-11-03', '10060.75'],
  ]);
  const again = await importFile(harness.stage, args);
  expect(again.stdout).toContain('import: opening balance 10000.00: 0 balance snapshots recorded');
  expect((await importFile(harness.stage, ['--account', account, '--opening-balance', '1e4', file])).stderr).toMatch(
    /--opening-balance must be a decimal amount/,
  );
});
