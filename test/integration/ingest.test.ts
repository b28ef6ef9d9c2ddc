/**
 * `npm run ingest` against DynamoDB Local: a stream of event lines (good, bad and unusual, several accounts
 * interleaved) ends exactly as the same lines made one by one as writer calls, in far fewer transactions; bad lines
 * are reported by number and skipped; the summary names the accounts written; a second run resumes from the
 * checkpoint; killed mid-batch and started again, it reports no line a clean run does not; a file rotated while it
 * was stopped has its rest read, and one gone is a warning and exit 4; --follow keeps up with a growing file across
 * rotation and truncation; a database that stops answering is waited for, and nothing is written twice.
 */
import { execFile, spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ingest } from '@trading-bot-api/feeds/ingest/ingest';
import { checkpointPath, fileLines } from '@trading-bot-api/feeds/ingest/source';
import type { Writer } from '@trading-bot-api/writer';
import { random } from '../../scripts/demo/dataset';
import { localWriter } from '../../scripts/support/load-data';
import { adminClient, ensureTables } from '../../scripts/local-stack/local-db';
import { startScript, scriptArgs } from '../kit/scripts';
import { deleteTables, eventFor, type Harness, invoke, startHarness, uniqueStage } from '../kit/api-harness';
import { claimStage } from '../kit/fleet-stages';
import { FaultProxy } from '../kit/fault-proxy';
import { until } from '../kit/until';

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..');
let harness: Harness;
let proxy: FaultProxy;
let dir: string;

beforeAll(async () => {
  harness = await startHarness();
  proxy = await new FaultProxy(harness.db.endpoint).start();
  dir = mkdtempSync(join(tmpdir(), 'ingest-test-'));
});
afterEach(() => proxy.clear());
afterAll(async () => {
  await proxy?.close();
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Run = { code: number; stdout: string; stderr: string };

function ingestFile(args: string[], endpoint = harness.db.endpoint, stage = harness.stage): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...scriptArgs('ingest'), ...args, '--stage', stage, '--endpoint', endpoint],
      { cwd: ROOT, maxBuffer: 16 * 2 ** 20 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

const time = (minute: number) => new Date(Date.parse('2026-11-20T00:00:00.000Z') + minute * 60_000).toISOString();

/**
 * A bot's day on several accounts, interleaved: trades opening, changing marks and position, closing (some within a
 * few lines, some far apart), snapshots and heartbeats, and what goes wrong in real streams: a close of a trade that
 * never opened, an open repeated with other units, marks after a close, a second close, a close before its open, a
 * line that is not JSON, a field the format does not have.
 */
function botDay(prefix: string, seed: number, minutes = 900): { lines: string[]; accounts: string[] } {
  const next = random(seed);
  const accounts = [0, 1, 2].map((i) => `${prefix}-${i}`);
  const lines: string[] = accounts.map((account, i) =>
    JSON.stringify({
      type: 'account',
      account,
      name: account,
      currency: ['USD', 'USDT', 'EUR'][i],
      broker: 'Test',
      environment: 'paper',
      createdAt: time(0),
    }),
  );
  const open = new Map<string, { account: string; id: string; openedAt: number }>();
  let counter = 0;
  for (let minute = 1; minute < minutes; minute++) {
    const account = accounts[Math.floor(next() * accounts.length)];
    const roll = next();
    const push = (value: object) => lines.push(JSON.stringify({ account, ...value }));
    if (roll < 0.35) {
      const id = `t${++counter}`;
      open.set(id, { account, id, openedAt: minute });
      push({
        type: 'open',
        id,
        instrument: ['EUR_USD', 'BTC/USDT', 'xau-usd'][counter % 3],
        side: next() < 0.5 ? 'buy' : 'sell',
        units: `${1 + Math.floor(next() * 9)}000`,
        openPrice: '1.0842',
        openTime: time(minute),
        stopLoss: '1.07',
      });
    } else if (roll < 0.65 && open.size) {
      const trade = [...open.values()][Math.floor(next() * open.size)];
      open.delete(trade.id);
      const pl = (Math.floor(next() * 20001) - 10000) / 100;
      lines.push(
        JSON.stringify({
          type: 'close',
          account: trade.account,
          id: trade.id,
          closePrice: '1.0853',
          closeTime: time(minute),
          realizedPL: pl.toFixed(2),
        }),
      );
    } else if (roll < 0.8 && open.size) {
      const trade = [...open.values()][Math.floor(next() * open.size)];
      lines.push(
        JSON.stringify({
          type: 'marks',
          account: trade.account,
          id: trade.id,
          unrealizedPL: (next() * 10 - 5).toFixed(3),
          ...(next() < 0.3 ? { units: '500', openPrice: '1.0850' } : {}),
        }),
      );
    } else if (roll < 0.88)
      push({
        type: 'balance',
        balance: `${1000 + minute}.00`,
        unrealizedPL: '1.5',
        nav: `${1001 + minute}.50`,
        marginUsed: '10',
        marginAvailable: '991.5',
        time: time(minute),
      });
    else if (roll < 0.95) push({ type: 'heartbeat', state: next() < 0.8 ? 'running' : 'error', message: null, time: time(minute) });
    else {
      const odd = Math.floor(next() * 8);
      const known = `t${Math.max(1, counter)}`;
      if (odd === 0) push({ type: 'close', id: 'never-opened', closePrice: '1', closeTime: time(minute), realizedPL: '1' });
      else if (odd === 1)
        push({ type: 'open', id: known, instrument: 'EUR_USD', side: 'buy', units: '999', openPrice: '1', openTime: time(minute) });
      else if (odd === 2) push({ type: 'marks', id: known, unrealizedPL: '1' });
      else if (odd === 3) push({ type: 'close', id: known, closePrice: '2', closeTime: time(minute), realizedPL: '7' });
      else if (odd === 4) push({ type: 'close', id: known, closePrice: '2', closeTime: time(0), realizedPL: '7' });
      else if (odd === 5) lines.push('{"type":"heartbeat","account":');
      // A bot whose clock runs a day ahead (a local time sent as UTC): refused, or it would hide a later crash.
      else if (odd === 6)
        push({ type: 'heartbeat', state: 'running', message: null, time: new Date(Date.now() + 86_400_000).toISOString() });
      else push({ type: 'heartbeat', state: 'running', colour: 'red' });
    }
  }
  return { lines, accounts };
}

/**
 * The same lines, each its own writer call, in order per account: what the ingester must end with. The accounts'
 * lines run side by side (an account's figures depend only on its own lines, in their order).
 */
async function oneByOne(writer: Writer, lines: string[]): Promise<Map<number, string>> {
  const refused = new Map<number, string>();
  const byAccount = new Map<string, [number, string][]>();
  for (const [index, text] of lines.entries()) {
    const account = /"account":"([^"]+)"/.exec(text)?.[1] ?? '';
    byAccount.set(account, [...(byAccount.get(account) ?? []), [index, text]]);
  }
  await Promise.all([...byAccount.values()].map((own) => oneAccount(writer, own, refused)));
  return new Map([...refused].sort(([a], [b]) => a - b));
}

async function oneAccount(writer: Writer, lines: [number, string][], refused: Map<number, string>): Promise<void> {
  for (const [index, text] of lines) {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text);
    } catch {
      refused.set(index + 1, 'not valid JSON');
      continue;
    }
    // Lines are untyped on purpose: the writer's own checks must refuse what the ingester refuses.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const { type, account, id, ...rest }: any = value;
    try {
      if (Object.hasOwn(rest, 'colour')) throw new Error('unknown field');
      if (type === 'account') await writer.upsertAccount({ ...rest, id: account });
      else if (type === 'open') await writer.openTrade(account, { ...rest, id });
      else if (type === 'close') await writer.closeTrade(account, id, rest);
      else if (type === 'marks') await writer.updateTradeMarks(account, id, rest);
      else if (type === 'balance') await writer.recordBalance(account, rest);
      else if (type === 'heartbeat') await writer.heartbeat(account, rest);
    } catch (error) {
      refused.set(index + 1, (error as Error).message);
    }
  }
}

async function stateOf(stage: string, accounts: string[]) {
  const client = harness.store.client;
  const state: Record<string, unknown> = {};
  for (const account of accounts) {
    const query = (table: string) =>
      client.send(
        new QueryCommand({
          TableName: `trading-bot-api-${stage}-${table}`,
          KeyConditionExpression: 'accountId = :a',
          ExpressionAttributeValues: { ':a': account },
          ConsistentRead: true,
        }),
      );
    const withoutVersions = (items: Record<string, unknown>[] = []) => items.map(({ version: _version, ...item }) => item);
    const [trades, ledger, balance, accountItem] = await Promise.all([
      query('trades'),
      query('ledger'),
      query('balances'),
      query('accounts'),
    ]);
    state[account] = {
      trades: withoutVersions(trades.Items),
      ledger: withoutVersions(ledger.Items),
      balance: withoutVersions(balance.Items),
      account: accountItem.Items,
    };
  }
  return state;
}

describe('a file of event lines', () => {
  // 519 lines after the accounts' 3: every kind of line and fault many times over, in two batches of the ingester's
  // (500 lines, then the rest). A longer day proves nothing more: the second batch is a second batch at any size.
  const { lines, accounts } = botDay('ev', 7, 520);
  const file = () => join(dir, 'day.jsonl');
  /** The first test's run of the file and the state it left: the clean run the killed runs are judged by. */
  let clean: { stdout: string; state: Record<string, unknown> } | undefined;
  // The file's tables: not this file's stage, whose fleet projector the functions that read the fleet drain. What
  // these tests prove is in the tables; projecting their thousands of records would cost the file some CPU-seconds
  // and prove nothing (the projector's own tests do).
  let ingested: string;
  beforeAll(async () => {
    ingested = claimStage() ?? uniqueStage();
    await ensureTables(adminClient(harness.db.endpoint), ingested);
  });
  afterAll(async () => {
    if (ingested) await deleteTables(adminClient(harness.db.endpoint), ingested);
  });

  it('ends exactly as the same lines made one by one, in far fewer transactions, with every bad line reported by number', async () => {
    writeFileSync(file(), `${lines.join('\n')}\n`);
    proxy.seen.length = 0;
    // The reference, made at the same time (its waits overlap the ingester's): a fresh set of tables, each line its
    // own writer call. Only the ingester goes through the proxy, which counts its transactions.
    const stage = claimStage() ?? uniqueStage();
    await ensureTables(adminClient(harness.db.endpoint), stage);
    const reference = localWriter(harness.db.endpoint, { stage });
    try {
      const [run, refused] = await Promise.all([ingestFile([file()], proxy.endpoint, ingested), oneByOne(reference, lines)]);
      const transactions = proxy.seen.filter((operation) => operation === 'TransactWriteItems').length;
      expect(refused.size).toBeGreaterThan(5);
      const reported = new Map([...run.stdout.matchAll(/^line (\d+): (.*)$/gm)].map((match) => [Number(match[1]), match[2]]));
      // Lines that do not parse are reported as read, the writer's refusals when their batch is written.
      expect([...reported.keys()].sort((a, b) => a - b)).toEqual([...refused.keys()]);
      for (const [line, reason] of refused) {
        // A time ahead is said with the writer's clock at that moment, which differs between the two runs.
        if (!/^(not valid JSON|unknown field)|ahead of the writer's clock/.test(reason))
          expect([line, reported.get(line)]).toEqual([line, reason]);
      }
      // Among them, the heartbeats dated a day ahead, each reported by its number as ahead of this machine's clock.
      const ahead = lines.flatMap((text, index) => {
        const value = /^\{"account"/.test(text) && text.endsWith('}') ? JSON.parse(text) : {};
        return value.type === 'heartbeat' && Date.parse(value.time) > Date.now() ? [index + 1] : [];
      });
      expect(ahead.length).toBeGreaterThan(0);
      for (const line of ahead)
        expect([line, reported.get(line)]).toEqual([line, expect.stringMatching(/^time: .* ahead of the writer's clock/)]);
      const state = await stateOf(ingested, accounts);
      expect(state).toEqual(await stateOf(stage, accounts));
      clean = { stdout: run.stdout, state };
      const tradeLines = lines.filter((line) => /"type":"(open|close|marks)"/.test(line)).length;
      expect(run.stdout).toMatch(
        new RegExp(
          `^ingest: ${lines.length.toLocaleString('en-US')} lines read, [\\d,]+ written, 0 unchanged, ${refused.size} rejected, in .*; ` +
            `accounts written: ${accounts.join(', ')}$`,
          'm',
        ),
      );
      expect(run.code).toBe(1);
      // Each line its own call would be a transaction per line; balance and heartbeat lines still are, trade lines
      // folded take fewer than half as many.
      const otherLines = lines.filter((line) => /"type":"(balance|heartbeat)"/.test(line)).length;
      expect(transactions - otherLines).toBeLessThan(tradeLines / 2);
    } finally {
      reference.close();
      await deleteTables(adminClient(harness.db.endpoint), stage);
    }
  });

  it('run again, resumes at its checkpoint and reads nothing; read again in full, changes nothing', async () => {
    const again = await ingestFile([file()], harness.db.endpoint, ingested);
    expect(again.stdout).toMatch(/^ingest: 0 lines read, 0 written, 0 unchanged, 0 rejected, .*; accounts written: none$/m);
    expect(again.code).toBe(0);
    const before = await stateOf(ingested, accounts);
    const full = await ingestFile(['--no-checkpoint', file()], harness.db.endpoint, ingested);
    expect(full.stdout).toMatch(
      new RegExp(`^ingest: ${lines.length.toLocaleString('en-US')} lines read, \\d+ written, \\d+ unchanged`, 'm'),
    );
    // What is "written" again is only heartbeats and snapshots recorded anew with the same values.
    expect(await stateOf(ingested, accounts)).toEqual(before);
  });

  it('killed while it applies a batch, reports no line a clean run does not report, and ends as the clean run', async () => {
    // The day above, two batches: the kills land in either. The clean run is the first test's, whose output and
    // tables' state it kept; the killed runs write to tables of their own (a clean run of their own would cost the
    // file some 8 CPU-seconds, proving nothing more: the same lines, the same ingester, on fresh tables).
    expect(clean).toBeDefined();
    const text = `${lines.join('\n')}\n`;
    const file = join(dir, 'killed.jsonl');
    writeFileSync(file, text);
    const stage = claimStage() ?? uniqueStage();
    await ensureTables(adminClient(harness.db.endpoint), stage);
    try {
      // A time ahead is said with how far ahead of the writer's clock it is at that moment: the same report whenever made.
      const reported = (output: string) =>
        [...output.matchAll(/^line (\d+): (.*)$/gm)].map(
          (match) => `${match[1]}: ${match[2].replace(/, [^,]* ahead of the writer's clock \([^)]*\)/, ", ahead of the writer's clock")}`,
        );

      // Killed (SIGKILL: nothing runs after it) at a random moment while a batch is being applied, twice, then
      // run to the end. Batches are 500 lines, so the second kill lands in the last batch or after it.
      const runs: string[] = [];
      let killedInFlight = 0;
      const next = random(5);
      for (let kill = 0; kill < 2; kill++) {
        const { child, output } = startScript('ingest', [file, '--stage', stage, '--endpoint', harness.db.endpoint]);
        const exited = new Promise((resolve) => child.on('exit', resolve));
        const checkpoint = () => {
          try {
            return JSON.parse(readFileSync(checkpointPath(file), 'utf8'));
          } catch {
            return undefined;
          }
        };
        const from = checkpoint()?.offset ?? 0;
        await until(() => (checkpoint()?.pending && checkpoint().offset >= from) || child.exitCode !== null, 'a batch in flight', {
          timeoutMs: 60_000,
          everyMs: 20,
        });
        // Not a wait for anything: the kill's random moment within the batch being applied.
        await new Promise((resolve) => setTimeout(resolve, 100 + 600 * next()));
        child.kill('SIGKILL');
        await exited;
        runs.push(output());
        if (checkpoint()?.pending) killedInFlight += 1;
      }
      // Without a batch in flight at a kill, nothing was read again: the test would prove nothing.
      expect(killedInFlight).toBeGreaterThan(0);
      const last = await ingestFile([file], harness.db.endpoint, stage);
      runs.push(last.stdout);
      const cleanReports = new Set(reported(clean!.stdout));
      expect(cleanReports.size).toBeGreaterThan(5);
      const spurious = runs.flatMap(reported).filter((report) => !cleanReports.has(report));
      expect(spurious).toEqual([]);
      expect(await stateOf(stage, accounts)).toEqual(clean!.state);
    } finally {
      await deleteTables(adminClient(harness.db.endpoint), stage);
    }
  });

  it('reads standard input with -', async () => {
    const child = spawn(process.execPath, [...scriptArgs('ingest'), '-', '--stage', harness.stage, '--endpoint', harness.db.endpoint], {
      cwd: ROOT,
    });
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    // An account and its bot's heartbeat (this file's stage has no account of the day above).
    child.stdin.end(
      `${JSON.stringify({ type: 'account', account: 'ev-0', name: 'ev-0', currency: 'USD', broker: 'Test', environment: 'paper' })}\n` +
        `${JSON.stringify({ type: 'heartbeat', account: 'ev-0', state: 'paused', message: 'from stdin', time: time(5000) })}\n`,
    );
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(stdout).toMatch(/^ingest: 2 lines read, 2 written, .*; accounts written: ev-0$/m);
    const status = await invoke('account-status', eventFor('account-status', { account: 'ev-0', query: {} }));
    expect(status.body).toMatchObject({ state: 'paused', message: 'from stdin' });
  });
});

describe('stopped and started again', () => {
  const line = (account: string, value: object) => `${JSON.stringify({ account, ...value })}\n`;
  const openings = (account: string, from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) =>
      line(account, {
        type: 'open',
        id: `r-${from + i}`,
        instrument: 'EUR_USD',
        side: 'buy',
        units: '1000',
        openPrice: '1.1',
        openTime: time(from + i),
      }),
    ).join('');
  const created = (account: string) =>
    line(account, { type: 'account', name: account, currency: 'USD', broker: 'Test', environment: 'paper' });
  const tradeIds = async (account: string) =>
    ((await invoke('account-trades', eventFor('account-trades', { account, query: { limit: '500' } }))).body.trades ?? [])
      .map((trade: { id: string }) => trade.id)
      .sort();

  it('with the file rotated meanwhile, reads the rest of the old file first, then the new one', async () => {
    const file = join(dir, 'rotated.jsonl');
    writeFileSync(file, created('rot') + openings('rot', 1, 2));
    expect((await ingestFile([file])).code).toBe(0);
    appendFileSync(file, openings('rot', 3, 4));
    renameSync(file, `${file}.1`);
    writeFileSync(file, openings('rot', 5, 6));
    const run = await ingestFile([file]);
    expect(run.stderr).toMatch(
      /^ingest: rotated\.jsonl was rotated while the ingester was stopped: reading the rest of rotated\.jsonl\.1/m,
    );
    expect(run.stdout).toMatch(/^ingest: 4 lines read, 4 written, 0 unchanged, 0 rejected, .*; accounts written: rot$/m);
    expect(run.code).toBe(0);
    expect(await tradeIds('rot')).toEqual(['r-1', 'r-2', 'r-3', 'r-4', 'r-5', 'r-6']);
  });

  it('with the old file gone (compressed), warns what was not read, reads the new file, and exits 4', async () => {
    const file = join(dir, 'gone.jsonl');
    writeFileSync(file, created('gone') + openings('gone', 1, 2));
    expect((await ingestFile([file])).code).toBe(0);
    const { ino, size } = statSync(file);
    appendFileSync(file, openings('gone', 3, 4));
    renameSync(file, `${file}.1`);
    writeFileSync(file, openings('gone', 5, 6));
    writeFileSync(`${file}.1.gz`, 'compressed');
    unlinkSync(`${file}.1`);
    const run = await ingestFile([file]);
    expect(run.stderr).toContain(
      `ingest: warning: lines written to gone.jsonl (inode ${ino}) after line 3 (byte ${size}), if any, were not read: it is no longer in ${dir} ` +
        '(deleted, compressed or moved elsewhere); compressed files are not read: gone.jsonl.1.gz. Reading gone.jsonl from its start.',
    );
    expect(run.stdout).toMatch(/^ingest: 2 lines read, 2 written, 0 unchanged, 0 rejected, .*; accounts written: gone$/m);
    expect(run.code).toBe(4);
    expect(await tradeIds('gone')).toEqual(['r-1', 'r-2', 'r-5', 'r-6']);
    // Said once: the checkpoint is of the new file now.
    const again = await ingestFile([file]);
    expect([again.code, again.stderr]).toEqual([
      0,
      `ingest: writing to stage ${harness.stage} on DynamoDB Local at ${harness.db.endpoint}\n`,
    ]);
  });
});

describe('--follow', () => {
  const tradeIds = async (account: string) =>
    ((await invoke('account-trades', eventFor('account-trades', { account, query: { limit: '500' } }))).body.trades ?? [])
      .map((trade: { id: string }) => trade.id)
      .sort();
  const line = (value: object) => `${JSON.stringify({ account: 'fw', ...value })}\n`;
  const opening = (id: string, minute: number) =>
    line({ type: 'open', id, instrument: 'EUR_USD', side: 'buy', units: '1000', openPrice: '1.1', openTime: time(minute) });

  function follow(file: string) {
    const { child, output } = startScript('ingest', ['--follow', file, '--stage', harness.stage, '--endpoint', harness.db.endpoint]);
    return {
      output,
      stop: async () => {
        child.kill('SIGTERM');
        return new Promise<number | null>((resolve) => child.on('exit', resolve));
      },
    };
  }

  it('keeps up as the file grows, is rotated and truncated, reports a bad line and goes on, and resumes from its checkpoint', async () => {
    const file = join(dir, 'live.jsonl');
    let ids: string[] = [];
    writeFileSync(
      file,
      line({ type: 'account', name: 'Followed', currency: 'USD', broker: 'Test', environment: 'paper' }) + opening('f-1', 1),
    );
    const follower = follow(file);
    await until(async () => (await tradeIds('fw')).includes('f-1'), 'the first trade');

    appendFileSync(file, `{"type":"open","account":"fw"\n${opening('f-2', 2)}`);
    await until(async () => (await tradeIds('fw')).includes('f-2'), 'a trade after a bad line');
    expect(follower.output()).toMatch(/^line 3: not valid JSON/m);

    // A line written in two pieces is read once whole. The follower shows nothing of a piece it read, so no condition
    // says it did: the pause spans several of its polls (250 ms apart).
    appendFileSync(file, opening('f-3', 3).slice(0, 30));
    await new Promise((resolve) => setTimeout(resolve, 600));
    appendFileSync(file, opening('f-3', 3).slice(30));
    await until(async () => (await tradeIds('fw')).includes('f-3'), 'a line written in two pieces');

    // Rotation: renamed away (the bot still writing to it for a moment), then a new file.
    renameSync(file, `${file}.1`);
    appendFileSync(`${file}.1`, opening('f-4', 4));
    await until(async () => (await tradeIds('fw')).includes('f-4'), 'a line written to the file renamed away');
    writeFileSync(file, opening('f-5', 5));
    await until(async () => {
      if (['f-4', 'f-5'].every((id) => ids.includes(id))) return true;
      ids = await tradeIds('fw');
      return false;
    }, 'the rotated and the new file');

    // Truncation in place: read again from the start.
    truncateSync(file, 0);
    writeFileSync(file, opening('f-6', 6));
    await until(async () => (await tradeIds('fw')).includes('f-6'), 'the truncated file');
    expect(follower.output()).toMatch(/was rotated/);
    expect(follower.output()).toMatch(/was truncated/);
    expect(await follower.stop()).toBe(0);

    // Restarted, it resumes where it stopped: nothing is read again.
    expect(existsSync(`${file}.checkpoint`)).toBe(true);
    const again = follow(file);
    // Once it says it follows the file, a line added is one it finds growing the file.
    await until(async () => again.output().includes('following'), 'the restarted follower');
    appendFileSync(file, opening('f-7', 7));
    await until(async () => (await tradeIds('fw')).includes('f-7'), 'a line after the restart');
    await again.stop();
    expect(again.output()).toMatch(/^ingest: 1 lines read, 1 written/m);
    expect(await tradeIds('fw')).toEqual(['f-1', 'f-2', 'f-3', 'f-4', 'f-5', 'f-6', 'f-7']);
  });
});

it('waits for a database that stops answering, says so once each way, and writes every line once', async () => {
  const file = join(dir, 'outage.jsonl');
  const writer = localWriter(proxy.endpoint, { stage: harness.stage });
  const reports: string[] = [];
  const stop = new AbortController();
  writeFileSync(
    file,
    `${JSON.stringify({ type: 'account', account: 'down', name: 'Down', currency: 'USD', broker: 'Test', environment: 'live' })}\n`,
  );
  await proxy.inject({ kind: 'refuse' });
  // The writer's calls counted: each attempt of the ingester makes one.
  let calls = 0;
  const counted = new Proxy(writer, {
    get: (target, name, receiver) => {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls += 1;
        return value.apply(target, args);
      };
    },
  });
  const running = ingest({
    writer: counted,
    source: fileLines(file, { follow: true, pollMs: 100, signal: stop.signal }),
    report: (text) => reports.push(text),
    retry: { initialMs: 100, maxMs: 400 },
    signal: stop.signal,
  });
  // Several of its attempts (100, 200, then 400 ms apart), each refused: said once all the same.
  await until(() => calls >= 4, 'four attempts');
  expect(reports).toEqual(['the database does not answer; trying again until it does']);
  await proxy.clear();
  appendFileSync(file, `${JSON.stringify({ type: 'heartbeat', account: 'down', state: 'running', time: time(1) })}\n`);
  await until(
    async () => (await invoke('account-status', eventFor('account-status', { account: 'down', query: {} }))).body.state === 'running',
    'the heartbeat written',
    { everyMs: 200 },
  );
  stop.abort();
  const result = await running;
  writer.close();
  expect(reports).toEqual(['the database does not answer; trying again until it does', 'the database answers again']);
  expect(result).toMatchObject({ read: 2, written: 2, rejected: 0 });
});

it('stopped while a batch is being written, counts the lines the database took', async () => {
  const file = join(dir, 'stopped.jsonl');
  writeFileSync(
    file,
    `${JSON.stringify({ type: 'account', account: 'stopped', name: 'Stopped', currency: 'USD', broker: 'Test', environment: 'live' })}\n`,
  );
  const writer = localWriter(harness.db.endpoint, { stage: harness.stage });
  const stop = new AbortController();
  // The stop comes while the writer's call is in flight: the call still lands, so the count must say so.
  const stopping = new Proxy(writer, {
    get: (target, name, receiver) => {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function' || name === 'close') return value;
      return (...args: unknown[]) => {
        const call = value.apply(target, args);
        stop.abort();
        return call;
      };
    },
  });
  const result = await ingest({ writer: stopping, source: fileLines(file), report: () => {}, signal: stop.signal });
  writer.close();
  expect((await invoke('account-status', eventFor('account-status', { account: 'stopped', query: {} }))).statusCode).toBe(200);
  expect(result).toMatchObject({ read: 1, written: 1, rejected: 0 });
});

it('gone, retire and restore lines: a trade the bot lost ends, the account leaves the fleet and comes back; again, unchanged', async () => {
  const account = 'ingest-retiring';
  const file = join(dir, 'retiring.jsonl');
  const trade = (id: string, minute: number) =>
    JSON.stringify({
      type: 'open',
      account,
      id,
      instrument: 'EUR_USD',
      side: 'buy',
      units: '1000',
      openPrice: '1.1',
      openTime: time(minute),
    });
  writeFileSync(
    file,
    `${[
      JSON.stringify({ type: 'account', account, name: 'Retiring', currency: 'USD', broker: 'B', environment: 'paper' }),
      trade('lost', 1),
      trade('kept', 2),
      JSON.stringify({ type: 'gone', account, id: 'lost', reason: 'gone from the bot: its database was reset', time: time(3) }),
      JSON.stringify({ type: 'retire', account }),
    ].join('\n')}\n`,
  );
  const first = await ingestFile(['--no-checkpoint', file]);
  expect(first).toMatchObject({ code: 0 });
  expect(first.stdout).toMatch(/5 lines read, 5 written, 0 unchanged, 0 rejected.*accounts written: ingest-retiring/);
  const trades = (await invoke('account-trades', eventFor('account-trades', { account }))).body.trades;
  expect(trades.map((t: { id: string; status: string }) => [t.id, t.status]).sort()).toEqual([
    ['kept', 'open'],
    ['lost', 'gone'],
  ]);
  const fleet = (await invoke('all-status', eventFor('all-status', {}))).body.accounts.map((s: { accountId: string }) => s.accountId);
  expect(fleet).not.toContain(account);
  expect((await invoke('account-status', eventFor('account-status', { account }))).body).toMatchObject({ openTradeCount: 1 });
  // The same file again: every line already holds.
  const again = await ingestFile(['--no-checkpoint', file]);
  expect(again.stdout).toMatch(/5 lines read, 0 written, 5 unchanged, 0 rejected/);
  appendFileSync(file, `${JSON.stringify({ type: 'restore', account })}\n`);
  await ingestFile(['--no-checkpoint', file]);
  const back = (await invoke('all-status', eventFor('all-status', {}))).body.accounts.map((s: { accountId: string }) => s.accountId);
  expect(back).toContain(account);
});
