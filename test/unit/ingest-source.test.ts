/**
 * Where event lines come from, on real files in a temporary directory: a batch handed out and not finished is handed
 * out again whole, marked `replay`; a file rotated while the ingester was stopped is found beside the new one (by its
 * inode, or a copy by its content) and its rest read first, numbered on; a killed run resumes inside the old file or
 * the new one; a rest that cannot be found is reported with the file's name, inode, line and byte, and compressed
 * files beside it named; a copy made by copytruncate while following is read to its end.
 */
import {
  appendFileSync,
  copyFileSync,
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
import {
  CheckpointUnreadable,
  checkpointPath,
  fileLines,
  type SkippedRest,
  type SourceLine,
  type SourceOptions,
} from '@trading-bot-api/feeds/ingest/source';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ingest-source-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Line `n` of a file named `tag`: its text says where it comes from. */
const text = (tag: string, n: number) => JSON.stringify({ tag, n, pad: 'x'.repeat(30) });
const lines = (tag: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${text(tag, from + i)}\n`).join('');

/** What a batch holds, shortly: `tag:n@line`, and `!` when it is a replay. */
const shown = (batch: SourceLine[]) =>
  batch.map((entry) => {
    if ('error' in entry) return `error@${entry.line}`;
    const { tag, n } = JSON.parse(entry.text);
    return `${tag}:${n}@${entry.line}${entry.replay ? '!' : ''}`;
  });

interface Told {
  notes: string[];
  skipped: SkippedRest[];
}

function told(): Told & Pick<SourceOptions, 'onRestart' | 'onSkipped'> {
  const result: Told = { notes: [], skipped: [] };
  return { ...result, onRestart: (note) => result.notes.push(note), onSkipped: (skipped) => result.skipped.push(skipped) };
}

/** Every batch to the end of the file, as a run to its end would finish them. */
async function readAll(file: string, options: SourceOptions = {}): Promise<string[][]> {
  const batches: string[][] = [];
  for await (const batch of fileLines(file, options)) batches.push(shown(batch));
  return batches;
}

/** The first `count` batches, the last of them left unfinished: as a run killed while it applied that batch. */
async function take(file: string, count: number, options: SourceOptions = {}): Promise<string[][]> {
  const source = fileLines(file, options);
  const batches: string[][] = [];
  while (batches.length < count) {
    const next = await source.next();
    if (next.done) break;
    batches.push(shown(next.value));
  }
  await source.return(undefined);
  return batches;
}

describe('a batch handed out and not finished', () => {
  it('is handed out again, whole and marked replay, before the lines after it; finished ones are not', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('a', 1, 10));
    expect(await take(file, 2, { batchLines: 3 })).toEqual([
      ['a:1@1', 'a:2@2', 'a:3@3'],
      ['a:4@4', 'a:5@5', 'a:6@6'],
    ]);
    // Read again with larger batches, the unfinished batch is still one batch of its own.
    expect(await readAll(file, { batchLines: 500 })).toEqual([
      ['a:4@4!', 'a:5@5!', 'a:6@6!'],
      ['a:7@7', 'a:8@8', 'a:9@9', 'a:10@10'],
    ]);
    expect(await readAll(file)).toEqual([]);
  });

  it('is nothing more once the next batch was asked for, and without a checkpoint nothing is replayed', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('a', 1, 4));
    await take(file, 2, { batchLines: 2 });
    await take(file, 1, { batchLines: 2 });
    expect(await readAll(file, { batchLines: 2, checkpoint: false })).toEqual([
      ['a:1@1', 'a:2@2'],
      ['a:3@3', 'a:4@4'],
    ]);
    expect(await readAll(file, { batchLines: 2 })).toEqual([['a:3@3!', 'a:4@4!']]);
  });
});

describe('a file rotated while the ingester was stopped', () => {
  it('has its rest read first, numbered on, then the new file from its start; a third run reads nothing', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('old', 1, 5));
    expect((await readAll(file)).flat()).toHaveLength(5);
    appendFileSync(file, lines('old', 6, 8));
    renameSync(file, `${file}.1`);
    writeFileSync(file, lines('new', 1, 3));
    const seen = told();
    expect(await readAll(file, seen)).toEqual([
      ['old:6@6', 'old:7@7', 'old:8@8'],
      ['new:1@1', 'new:2@2', 'new:3@3'],
    ]);
    expect(seen.notes).toEqual([
      'bot.jsonl was rotated while the ingester was stopped: reading the rest of bot.jsonl.1 (from line 6), then bot.jsonl from its start',
    ]);
    expect(seen.skipped).toEqual([]);
    expect(await readAll(file)).toEqual([]);
  });

  it('killed inside the old file, resumes there; killed inside the new one, resumes there', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('old', 1, 2));
    await readAll(file);
    appendFileSync(file, lines('old', 3, 8));
    renameSync(file, `${file}-20261124`);
    writeFileSync(file, lines('new', 1, 6));
    expect(await take(file, 2, { batchLines: 2 })).toEqual([
      ['old:3@3', 'old:4@4'],
      ['old:5@5', 'old:6@6'],
    ]);
    expect(await take(file, 3, { batchLines: 2 })).toEqual([
      ['old:5@5!', 'old:6@6!'],
      ['old:7@7', 'old:8@8'],
      ['new:1@1', 'new:2@2'],
    ]);
    expect(await readAll(file, { batchLines: 2 })).toEqual([
      ['new:1@1!', 'new:2@2!'],
      ['new:3@3', 'new:4@4'],
      ['new:5@5', 'new:6@6'],
    ]);
  });

  it('found by its content when it was copied away and the file truncated (copytruncate)', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('old', 1, 4));
    await readAll(file);
    appendFileSync(file, lines('old', 5, 6));
    copyFileSync(file, `${file}.1`);
    truncateSync(file, 0);
    appendFileSync(file, lines('new', 1, 9));
    const seen = told();
    expect((await readAll(file, seen)).flat()).toEqual([
      'old:5@5',
      'old:6@6',
      ...Array.from({ length: 9 }, (_, i) => `new:${i + 1}@${i + 1}`),
    ]);
    expect(seen.notes).toEqual([
      'bot.jsonl was truncated or rewritten while the ingester was stopped: reading the rest of bot.jsonl.1 (from line 5), then bot.jsonl from its start',
    ]);
    expect(seen.skipped).toEqual([]);
  });

  it('read to its end while the new file did not exist yet, and gone since: nothing is missing', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('old', 1, 2));
    await readAll(file);
    renameSync(file, `${file}.1`);
    appendFileSync(`${file}.1`, lines('old', 3, 3));
    expect(await readAll(file)).toEqual([['old:3@3']]);
    unlinkSync(`${file}.1`);
    writeFileSync(file, lines('new', 1, 1));
    const seen = told();
    expect(await readAll(file, seen)).toEqual([['new:1@1']]);
    expect(seen.skipped).toEqual([]);
  });
});

describe('the rest of a file that cannot be found', () => {
  it('is reported with its name, inode, line and byte, and the compressed files beside it; the new file is read from its start, once', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('old', 1, 4));
    await readAll(file);
    const { ino, size } = statSync(file);
    appendFileSync(file, lines('old', 5, 6));
    // logrotate's compress without delaycompress: renamed, a new file created, the old one compressed and removed.
    renameSync(file, `${file}.1`);
    writeFileSync(file, lines('new', 1, 2));
    writeFileSync(`${file}.1.gz`, 'not really gzip');
    unlinkSync(`${file}.1`);
    const seen = told();
    expect(await readAll(file, seen)).toEqual([['new:1@1', 'new:2@2']]);
    expect(seen.skipped).toEqual([
      {
        file: 'bot.jsonl',
        inode: ino,
        line: 4,
        offset: size,
        compressed: ['bot.jsonl.1.gz'],
        message:
          `lines written to bot.jsonl (inode ${ino}) after line 4 (byte ${size}), if any, were not read: it is no longer in ${dir} ` +
          '(deleted, compressed or moved elsewhere); compressed files are not read: bot.jsonl.1.gz. Reading bot.jsonl from its start.',
      },
    ]);
    // Said once: the checkpoint names the new file now.
    const again = told();
    expect(await readAll(file, again)).toEqual([]);
    expect(again.skipped).toEqual([]);
  });

  it('truncated while stopped with no copy: what may have been written before is reported, and the file read from its start', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, lines('old', 1, 3));
    await readAll(file);
    const { ino, size } = statSync(file);
    truncateSync(file, 0);
    appendFileSync(file, lines('new', 1, 5));
    const seen = told();
    expect((await readAll(file, seen)).flat()).toHaveLength(5);
    expect(seen.skipped.map(({ message }) => message)).toEqual([
      `bot.jsonl (inode ${ino}) was truncated, rewritten or replaced while the ingester was stopped, and no copy of it is in ${dir}: ` +
        `lines written after line 3 (byte ${size}) before that, if any, were not read. Reading bot.jsonl from its start.`,
    ]);
  });

  it('a checkpoint of nothing read is no loss', async () => {
    const file = join(dir, 'bot.jsonl');
    writeFileSync(file, '');
    await readAll(file);
    unlinkSync(file);
    writeFileSync(file, lines('new', 1, 1));
    const seen = told();
    expect(await readAll(file, seen)).toEqual([['new:1@1']]);
    expect(seen.skipped).toEqual([]);
  });
});

it.each([
  ['cut short', (text: string) => text.slice(0, 20)],
  ['not JSON', () => 'garbage\n'],
  ['missing its offset', (text: string) => JSON.stringify({ ...JSON.parse(text), offset: 'x' })],
])('a checkpoint %s stops the run with what to do, instead of silently reading the file again from line 1', async (_, spoil) => {
  const file = join(dir, 'bot.jsonl');
  writeFileSync(file, lines('a', 1, 3));
  await readAll(file);
  writeFileSync(checkpointPath(file), spoil(readFileSync(checkpointPath(file), 'utf8')));
  appendFileSync(file, lines('a', 4, 4));
  const error = await readAll(file).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(CheckpointUnreadable);
  expect((error as Error).message).toContain(`the checkpoint ${checkpointPath(file)} cannot be read`);
  expect((error as Error).message).toContain('move the checkpoint away');
});

it('a checkpoint written before the tail digest still resumes where it stopped', async () => {
  const file = join(dir, 'bot.jsonl');
  writeFileSync(file, lines('a', 1, 3));
  await readAll(file);
  const { tail: _tail, tailBytes: _tailBytes, ...older } = JSON.parse(readFileSync(checkpointPath(file), 'utf8'));
  writeFileSync(checkpointPath(file), JSON.stringify(older));
  appendFileSync(file, lines('a', 4, 4));
  expect(await readAll(file)).toEqual([['a:4@4']]);
});

it('following, a file copied and truncated (copytruncate) before its last lines were read has them read from the copy', async () => {
  const file = join(dir, 'bot.jsonl');
  writeFileSync(file, lines('old', 1, 3));
  const stop = new AbortController();
  const seen = told();
  // A source that missed a batch would wait for it: stopped after a while, the test fails on what it got.
  setTimeout(() => stop.abort(), 5000).unref();
  const source = fileLines(file, { follow: true, pollMs: 10, signal: stop.signal, ...seen });
  const batches: string[][] = [];
  const next = async () => {
    const result = await source.next();
    if (!result.done) batches.push(shown(result.value));
  };
  await next();
  // While the first batch is applied: two more lines, the copy, and the file truncated and written again, longer than
  // what was read (read on at the old offset, it would hand out the middle of a line).
  appendFileSync(file, lines('old', 4, 5));
  copyFileSync(file, `${file}.1`);
  truncateSync(file, 0);
  appendFileSync(file, lines('new', 1, 8));
  await next();
  await next();
  stop.abort();
  await source.return(undefined);
  expect(batches).toEqual([
    ['old:1@1', 'old:2@2', 'old:3@3'],
    ['old:4@4', 'old:5@5'],
    Array.from({ length: 8 }, (_, i) => `new:${i + 1}@${i + 1}`),
  ]);
  expect(seen.notes).toEqual(['bot.jsonl was truncated: reading the rest of its copy bot.jsonl.1, then bot.jsonl from its start']);
});
