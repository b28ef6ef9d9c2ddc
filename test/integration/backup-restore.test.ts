/**
 * `npm run backup` and `npm run restore` (scripts/support/backup.ts) against DynamoDB Local, with the fleet projector
 * running as under npm start: a backup taken while the stack runs, more trades written after it, the stage emptied,
 * the backup put back: the API answers as it did when the backup was taken, the API key included. A restore into a
 * stage that holds accounts, or of a file cut short, is refused and writes nothing.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchWriteItemCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import tables from '../../resources/tables.js';
import { generateDataset } from '../../scripts/demo/dataset';
import { adminClient } from '../../scripts/local-stack/local-db';
import { type FunctionName, type Harness, startHarness } from '../kit/api-harness';
import { closedTrade } from '../kit/closed-trade';
import { call } from '../kit/gateway';
import { scriptArgs } from '../kit/scripts';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
const IDS = ['bk-a', 'bk-b'];
const dataset = generateDataset({ tradeCounts: [60, 25], accountId: (i) => IDS[i], seed: 7, history: { everyMinutes: 720, days: 10 } });
let harness: Harness;
let key: string;
let dir: string;

beforeAll(async () => {
  harness = await startHarness({ AUTH_MODE: 'required' });
  await harness.load(dataset);
  key = await harness.createKey('*');
  dir = mkdtempSync(join(tmpdir(), 'backup-test-'));
});
afterAll(async () => {
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Run = { code: number; stdout: string; stderr: string };
const run = (name: string, args: string[]): Promise<Run> =>
  new Promise((resolve) =>
    execFile(
      process.execPath,
      [...scriptArgs(name), ...args, '--stage', harness.stage, '--endpoint', harness.db.endpoint],
      { cwd: ROOT },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );

/** What an operator reads: the accounts, a history page by page, the figures, the series, the fleet. */
const READS: [FunctionName, string | undefined, Record<string, string>][] = [
  ['accounts', undefined, {}],
  ['account-trades', 'bk-a', { limit: '500' }],
  ['all-trades', undefined, { limit: '30' }],
  ['account-balance', 'bk-b', {}],
  ['account-performance', 'bk-a', { from: '2026-09-01' }],
  ['account-equity', 'bk-a', { interval: 'day', from: '2026-10-20' }],
  ['all-pnl', undefined, { period: 'day', from: '2026-10-01' }],
  ['all-status', undefined, {}],
];
const answers = async () => {
  const bodies: unknown[] = [];
  for (const [name, account, query] of READS) {
    const response = await call(name, { key, account, query });
    // Ages move with the clock between the two reads; the times they are counted from must not.
    bodies.push([name, response.statusCode, JSON.parse(JSON.stringify(response.body, (k, v) => (k === 'heartbeatAgeSeconds' ? 0 : v)))]);
  }
  return bodies;
};

/** Deletes every item of the stage's tables: a database lost, its tables made again empty. */
async function emptyStage(): Promise<void> {
  const client = adminClient(harness.db.endpoint);
  try {
    for (const table of Object.keys(tables.TABLES)) {
      const spec = tables.TABLES[table as keyof typeof tables.TABLES] as { partitionKey: string; sortKey?: string };
      const keyNames = [spec.partitionKey, ...(spec.sortKey ? [spec.sortKey] : [])];
      const TableName = tables.tableName(harness.stage, table);
      for await (const page of paginateScan({ client }, { TableName, ConsistentRead: true })) {
        const items = page.Items ?? [];
        for (let start = 0; start < items.length; start += 25) {
          const deletes = items
            .slice(start, start + 25)
            .map((item) => ({ DeleteRequest: { Key: Object.fromEntries(keyNames.map((name) => [name, item[name]])) } }));
          await client.send(new BatchWriteItemCommand({ RequestItems: { [TableName]: deletes } }));
        }
      }
    }
  } finally {
    client.destroy();
  }
}

it('a backup taken while the stack runs, put back into an emptied stage, gives the same answers', async () => {
  const before = await answers();
  const file = join(dir, 'fleet.jsonl');
  const backup = await run('backup', ['--out', file]);
  expect(backup).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^backup: 2 accounts, 85 trades, \d+ items in all, to .*fleet\.jsonl\n$/),
    stderr: `backup: reading stage ${harness.stage} on DynamoDB Local at ${harness.db.endpoint}\n`,
  });

  // Trades after the backup: the restored stage must not have them.
  expect(await harness.writer.recordTrades('bk-a', [closedTrade('after-backup', Date.now() - 60_000, '12.50')])).toEqual([
    expect.objectContaining({ id: 'after-backup' }),
  ]);
  expect(await answers()).not.toEqual(before);

  const refused = await run('restore', [file]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`restore: stage ${harness.stage} already holds accounts: a backup goes back into an empty stage.`);

  await emptyStage();
  const restored = await run('restore', [file]);
  expect(restored.stderr).toBe(`restore: writing to stage ${harness.stage} on DynamoDB Local at ${harness.db.endpoint}\n`);
  expect(restored.stdout).toMatch(
    /^restore: 2 accounts, 85 trades, \d+ items in all, from .* \(stage \S+, taken \S+Z\); the fleet's summary rebuilt\n$/,
  );
  expect(restored.code).toBe(0);
  expect(await answers()).toEqual(before);
});

it('refuses a file cut short, or not a backup, before writing anything', async () => {
  const file = join(dir, 'whole.jsonl');
  expect((await run('backup', ['--out', file])).code).toBe(0);
  const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
  writeFileSync(join(dir, 'cut.jsonl'), `${lines.slice(0, -3).join('\n')}\n`);
  const cut = await run('restore', [join(dir, 'cut.jsonl')]);
  expect(cut).toMatchObject({ code: 1, stdout: '' });
  expect(cut.stderr).toMatch(/cut\.jsonl ends before its last line: a backup cut short .*; nothing restored\n$/);
  writeFileSync(join(dir, 'other.jsonl'), '{"hello":1}\n');
  expect((await run('restore', [join(dir, 'other.jsonl')])).stderr).toMatch(/other\.jsonl is not a backup of this project/);
});
