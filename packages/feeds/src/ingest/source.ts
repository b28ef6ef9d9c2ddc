/**
 * Where event lines come from: a file, read from where the last run stopped (a checkpoint beside it) and, with
 * `follow`, kept reading as it grows, across rotation (the file renamed away and a new one created in its place:
 * the old one is read to its end first) and truncation (read again from the start); or standard input.
 *
 * Lines come in batches. The checkpoint records the byte offset after the last batch the caller finished with (the
 * generator saves it when asked for the next batch), with the file's inode and digests of its first bytes and of the
 * bytes before that offset, so a restart resumes exactly there. Before a batch is handed out, the checkpoint also
 * names where it ends (`pending`): after a kill, those lines are read again as one batch marked `replay`, since
 * some of them may have been applied already (apply.ts counts those `unchanged`).
 *
 * A restart finds the file the checkpoint describes even when it is no longer at the path (rotated while the
 * ingester was stopped): the file in the same directory with its inode, or a copy with its content (copytruncate).
 * Its rest is read first, its lines numbered on from the checkpoint, then the file now at the path from its start.
 * When it cannot be found (deleted, compressed, moved elsewhere), `onSkipped` is told what was not read.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { MAX_LINE_BYTES } from './lines';
import { pause } from '../pause';

/**
 * A line of the input: its number (from 1 in each file) and its text, or why it cannot be read. `replay`: the line
 * was handed out before, in a batch the last run may have applied in part or whole before it stopped.
 */
export type SourceLine = ({ line: number; text: string } | { line: number; error: string }) & { replay?: true };

/** The rest of a file that was not read: the file the checkpoint describes could not be found. */
export interface SkippedRest {
  /** The file's name when it was read, its inode, and where reading it stopped (the last line read, the byte after it). */
  file: string;
  inode: number;
  line: number;
  offset: number;
  /** Compressed files beside it that may hold it (they are not read). */
  compressed: string[];
  /** All of the above, in a sentence. */
  message: string;
}

export interface SourceOptions {
  /** Keep reading as the file grows, until `signal` aborts. */
  follow?: boolean;
  /** Lines handed out at once, at most. */
  batchLines?: number;
  /** How often a followed file is looked at when nothing new was read. */
  pollMs?: number;
  /** Keep no checkpoint (a file read once, in full). */
  checkpoint?: boolean;
  signal?: AbortSignal;
  /** Told when another file is read or the file is read again from its start: rotated, truncated, a rest found. */
  onRestart?: (reason: string) => void;
  /** Told when lines may have been lost: the rest of the file the checkpoint describes could not be found. */
  onSkipped?: (skipped: SkippedRest) => void;
}

interface Position {
  offset: number;
  line: number;
}

interface Checkpoint extends Position {
  /** The file's name when it was read (the path's, or a rotated name such as `bot.jsonl.1`). */
  file: string;
  inode: number;
  /** SHA-256 of the file's first `headBytes` bytes when the checkpoint was written. */
  head: string;
  headBytes: number;
  /** SHA-256 of the `tailBytes` bytes before `offset`: with `head`, a copy of the file is known by its content. */
  tail?: string;
  tailBytes?: number;
  /** The end of the batch handed out after `offset`, not known to be applied (see the module's comment). */
  pending?: Position;
  /** Read to its end after it was rotated away: once it is gone, nothing of it is missing. */
  finished?: boolean;
}

/** An open file to read, from `start`. */
interface Reading {
  handle: FileHandle;
  name: string;
  inode: number;
  start: Position;
  pending?: Position;
  /** Rotated away or a copy: read to its end, then go on to the file at the path from its start. */
  drain: boolean;
}

/** Bytes of a file's start, and before a checkpoint's offset, whose digests tell it from another file. */
const EDGE_BYTES = 256;
const ZERO: Position = { offset: 0, line: 0 };
/** Names of rotated files that were compressed: they cannot be read as they are. */
const COMPRESSED = /\.(gz|bz2|xz|zst|lz4|zip|Z)$/;

/** The checkpoint file of `file`: beside it, same name plus `.checkpoint`. */
export function checkpointPath(file: string): string {
  return `${file}.checkpoint`;
}

async function bytesAt(handle: FileHandle, offset: number, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, offset);
  return buffer.subarray(0, bytesRead);
}

const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A line as split, with the byte offset after it and, for a checkpoint there, the bytes before that offset. */
interface Split {
  entry: SourceLine;
  end: number;
  tail: Buffer;
}

const NONE = Buffer.alloc(0);

/**
 * Splits bytes into lines, remembering the byte offset after each and (with `tail`, the file's bytes before where it
 * starts) the last bytes before that offset as read, so a checkpoint describes the file as it was read, not as it is
 * when the checkpoint is written; a line too long is refused, not kept.
 */
class Splitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  /** The last bytes pushed (or, before any, those before the start), when tails are kept. */
  private recent: Buffer | undefined;
  line = 0;
  /** Offset (in the file) after the last complete line handed out. */
  offset = 0;

  constructor(start: Position, tail?: Buffer) {
    this.offset = start.offset;
    this.line = start.line;
    this.recent = tail;
  }

  /** The bytes before `index` in `chunk`, with those before it: at most EDGE_BYTES. */
  private tailBefore(chunk: Buffer, index: number): Buffer {
    if (!this.recent) return NONE;
    if (index >= EDGE_BYTES) return Buffer.from(chunk.subarray(index - EDGE_BYTES, index));
    return Buffer.concat([this.recent.subarray(Math.max(0, this.recent.length - (EDGE_BYTES - index))), chunk.subarray(0, index)]);
  }

  /** The complete lines in `chunk` (with what came before it), with the offset after each. */
  push(chunk: Buffer): Split[] {
    const out: Split[] = [];
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, at);
      const length = this.pendingBytes + part.length;
      this.offset += length + 1;
      this.line += 1;
      if (this.skipping || length > MAX_LINE_BYTES)
        out.push({
          entry: { line: this.line, error: `longer than ${MAX_LINE_BYTES} bytes` },
          end: this.offset,
          tail: this.tailBefore(chunk, at + 1),
        });
      else {
        const text = Buffer.concat([...this.pending, part])
          .toString('utf8')
          .replace(/\r$/, '');
        if (text.trim() !== '') out.push({ entry: { line: this.line, text }, end: this.offset, tail: this.tailBefore(chunk, at + 1) });
      }
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
      start = at + 1;
    }
    if (this.recent) this.recent = this.tailBefore(chunk, chunk.length);
    const rest = chunk.subarray(start);
    if (this.skipping || this.pendingBytes + rest.length > MAX_LINE_BYTES) {
      // Kept no further: the line is refused once its end arrives.
      this.skipping = true;
      this.pendingBytes += rest.length;
      this.pending = [];
    } else if (rest.length) {
      this.pending.push(Buffer.from(rest));
      this.pendingBytes += rest.length;
    }
    return out;
  }

  /** The last line when the input ends without a line break (a finished file, a rotated one). */
  finish(): Split[] {
    if (!this.pendingBytes) return [];
    const tail = this.recent ?? NONE;
    return this.push(Buffer.from('\n')).map(({ entry }) => ({ entry, end: this.offset - 1, tail }));
  }
}

/**
 * A checkpoint that exists but cannot be read as one (truncated, edited, not JSON). Reading the file again from its
 * start would silently take the place of where the last run stopped, so the run stops and says what to do instead.
 */
export class CheckpointUnreadable extends Error {
  constructor(file: string, why: string) {
    const path = checkpointPath(file);
    super(
      `the checkpoint ${path} cannot be read (${why}): nothing was read. To read ${basename(file)} from its start, move the checkpoint away (replayed lines change nothing); or restore it from a backup`,
    );
    this.name = 'CheckpointUnreadable';
  }
}

/** What `promise` (a file operation) gives, or undefined when the file does not exist; any other failure rejects. */
export function ifExists<T>(promise: Promise<T>): Promise<T | undefined> {
  return promise.catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/** The checkpoint of `file`; undefined when there is none (a first run). */
async function readCheckpoint(file: string): Promise<Checkpoint | undefined> {
  const text = await ifExists(readFile(checkpointPath(file), 'utf8')).catch((error: NodeJS.ErrnoException) => {
    throw new CheckpointUnreadable(file, error.code ?? error.message);
  });
  if (text === undefined) return undefined;
  let value: Checkpoint;
  try {
    value = JSON.parse(text) as Checkpoint;
  } catch {
    throw new CheckpointUnreadable(file, 'not JSON');
  }
  const bad = (['offset', 'line', 'inode'] as const).filter((field) => !Number.isSafeInteger(value?.[field]));
  if (bad.length) throw new CheckpointUnreadable(file, `no whole-number ${bad.join(', ')}`);
  return value;
}

async function writeCheckpoint(file: string, checkpoint: Checkpoint): Promise<void> {
  const temporary = `${checkpointPath(file)}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(checkpoint)}\n`);
  await rename(temporary, checkpointPath(file));
}

/** A checkpoint at `at` of a file whose first bytes (at least up to `at`, or EDGE_BYTES) and bytes before `at` were read as given. */
function describe(name: string, inode: number, at: Position, first: Buffer, tail: Buffer): Checkpoint {
  const headBytes = Math.min(EDGE_BYTES, at.offset);
  return {
    file: name,
    inode,
    offset: at.offset,
    line: at.line,
    head: digest(first.subarray(0, headBytes)),
    headBytes,
    tail: digest(tail),
    tailBytes: tail.length,
  };
}

/** The bytes before `offset` that a checkpoint there digests. */
const tailAt = (handle: FileHandle, offset: number) => bytesAt(handle, offset - Math.min(EDGE_BYTES, offset), Math.min(EDGE_BYTES, offset));

/** Whether the file open as `handle` (of `size` bytes) holds what `saved` read: its first bytes and those before the offset. */
async function holds(handle: FileHandle, size: number, saved: Checkpoint): Promise<boolean> {
  if (saved.offset > size || digest(await bytesAt(handle, 0, saved.headBytes)) !== saved.head) return false;
  if (saved.tail === undefined || saved.tailBytes === undefined) return true;
  return digest(await bytesAt(handle, saved.offset - saved.tailBytes, saved.tailBytes)) === saved.tail;
}

/**
 * The file `saved` describes, among the files in `file`'s directory other than `file` itself: the one with its inode
 * and content (renamed by a rotation), else one with its content at the same offsets (a copy: copytruncate, cp).
 * A copy is known by both digests, so an old checkpoint without the second is found by its inode only.
 */
async function findElsewhere(file: string, saved: Checkpoint): Promise<{ handle: FileHandle; name: string; inode: number } | undefined> {
  const directory = dirname(file);
  const candidates: { name: string; inode: number; size: number }[] = [];
  for (const name of await readdir(directory).catch(() => [])) {
    if (name === basename(file)) continue;
    const found = await stat(join(directory, name)).catch(() => undefined);
    if (found?.isFile() && found.size >= saved.offset) candidates.push({ name, inode: found.ino, size: found.size });
  }
  const byInode = candidates.filter((candidate) => candidate.inode === saved.inode);
  const copies = saved.tail === undefined ? [] : candidates.filter((candidate) => candidate.inode !== saved.inode);
  for (const candidate of [...byInode, ...copies]) {
    const handle = await open(join(directory, candidate.name), 'r').catch(() => undefined);
    if (!handle) continue;
    const { ino, size } = await handle.stat();
    if (ino === candidate.inode && (await holds(handle, size, saved))) return { handle, name: candidate.name, inode: ino };
    await handle.close();
  }
  return undefined;
}

/** Compressed files in `file`'s directory named after it or after `name` (its name when it was read). */
async function compressedBeside(file: string, name: string): Promise<string[]> {
  const names = await readdir(dirname(file)).catch(() => [] as string[]);
  return names.filter((entry) => COMPRESSED.test(entry) && (entry.startsWith(basename(file)) || entry.startsWith(name))).sort();
}

/**
 * Where a restart begins, by the checkpoint: the file at the path where it stopped; or the rest of the file the
 * checkpoint describes, found elsewhere in the directory (the file at the path is then read from its start);
 * or, with neither, undefined: the file at the path from its start, `onSkipped` told what could not be found.
 */
async function locate(file: string, options: SourceOptions): Promise<Reading | undefined> {
  const saved = await readCheckpoint(file);
  if (!saved) return undefined;
  const pendingWithin = (size: number) =>
    saved.pending && saved.pending.offset <= size && saved.pending.line > saved.line ? saved.pending : undefined;
  const atPath = await ifExists(open(file, 'r'));
  let sameInode = false;
  if (atPath) {
    const { ino, size } = await atPath.stat();
    sameInode = ino === saved.inode;
    if (sameInode && (await holds(atPath, size, saved)))
      return { handle: atPath, name: basename(file), inode: ino, start: saved, pending: pendingWithin(size), drain: false };
    await atPath.close();
  }
  // Nothing was read of the file the checkpoint describes, or all of it was: nothing can be missing.
  const complete = saved.offset === 0 || saved.finished === true;
  const found = saved.offset === 0 ? undefined : await findElsewhere(file, saved);
  if (found) {
    const { size } = await found.handle.stat();
    options.onRestart?.(
      `${sameInode ? `${basename(file)} was truncated or rewritten` : `${basename(file)} was rotated`} while the ingester was stopped: ` +
        `reading the rest of ${found.name} (from line ${saved.line + 1}), then ${basename(file)} from its start`,
    );
    return { ...found, start: saved, pending: pendingWithin(size), drain: true };
  }
  if (complete) {
    options.onRestart?.(`the checkpoint is of another file than ${basename(file)} now is: reading it from its start`);
    return undefined;
  }
  const compressed = await compressedBeside(file, saved.file);
  const where = `line ${saved.line} (byte ${saved.offset})`;
  const what = sameInode
    ? `${saved.file} (inode ${saved.inode}) was truncated, rewritten or replaced while the ingester was stopped, and no copy of it is in ` +
      `${dirname(file)}: lines written after ${where} before that, if any, were not read`
    : `lines written to ${saved.file} (inode ${saved.inode}) after ${where}, if any, were not read: it is no longer in ` +
      `${dirname(file)} (deleted, compressed or moved elsewhere)`;
  const hint = compressed.length ? `; compressed files are not read: ${compressed.join(', ')}` : '';
  options.onSkipped?.({
    file: saved.file,
    inode: saved.inode,
    line: saved.line,
    offset: saved.offset,
    compressed,
    message: `${what}${hint}. Reading ${basename(file)} from its start.`,
  });
  return undefined;
}

/** Batches of lines of `file`, from its checkpoint on; see the module's comment. */
export async function* fileLines(file: string, options: SourceOptions = {}): AsyncGenerator<SourceLine[]> {
  const keep = options.checkpoint !== false;
  let next = keep ? await locate(file, options) : undefined;
  // After a rotated file is read to its end, the path may have no file yet; a read to the end stops there.
  let drained = false;
  for (;;) {
    let reading = next;
    next = undefined;
    if (!reading) {
      let handle: FileHandle;
      try {
        handle = await open(file, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        if (drained && !options.follow) return;
        if (!options.follow) throw error;
        // Between a rotation's rename and the new file's creation: wait for it.
        if (options.signal?.aborted) return;
        await pause(options.pollMs ?? 250, options.signal);
        continue;
      }
      const { ino } = await handle.stat();
      reading = { handle, name: basename(file), inode: ino, start: ZERO, drain: false };
      // The checkpoint names this file from now on, so a restart before its first batch neither reads the last
      // file again nor takes it for lost.
      if (keep) await writeCheckpoint(file, describe(reading.name, ino, ZERO, NONE, NONE));
    }
    try {
      const end = yield* readFrom(file, reading, options);
      if (end.next) next = end.next;
      else if (!end.again) return;
      drained = reading.drain;
    } finally {
      await reading.handle.close();
    }
  }
}

/**
 * Reads one file from `reading.start`, in batches, keeping the checkpoint; ends at its end (read to its end), when
 * it was rotated and read to its end, when truncated (`again`: the path from its start), or with the rest of a
 * copy made before it was truncated (`next`).
 */
async function* readFrom(
  file: string,
  reading: Reading,
  options: SourceOptions,
): AsyncGenerator<SourceLine[], { again?: boolean; next?: Reading }> {
  const batchLines = options.batchLines ?? 500;
  const pollMs = options.pollMs ?? 250;
  const keep = options.checkpoint !== false;
  const { handle, name, inode } = reading;
  let drain = reading.drain;
  const buffer = Buffer.alloc(1024 * 1024);
  // The file's first bytes and those before the start, as read: what the checkpoints describe it by.
  let firstBytes = await bytesAt(handle, 0, Math.min(EDGE_BYTES, reading.start.offset));
  const startTail = await tailAt(handle, reading.start.offset);
  const splitter = new Splitter(reading.start, startTail);
  let position = reading.start.offset;
  let pending: Split[] = [];
  // After the batches the caller finished with.
  let done: Position = reading.start;
  // Lines up to this one were handed out before the last run stopped: handed out again as a batch of their own.
  const replayTo = reading.pending?.line ?? 0;
  // What the checkpoint says, kept also when none is written: a copy of a file truncated is known by it.
  let saved = describe(name, inode, done, firstBytes, startTail);
  const save = async (extra: Pick<Checkpoint, 'pending' | 'finished'> = {}) => {
    if (keep) await writeCheckpoint(file, { ...saved, ...extra });
  };
  // Hands out what was read, a batch at a time; before a batch, the checkpoint names its end as pending, and once
  // the caller asks for more, it moves past it.
  const flush = async function* () {
    while (pending.length) {
      const replayed = pending[0].entry.line <= replayTo;
      let count = Math.min(batchLines, pending.length);
      if (replayed) count = Math.min(count, pending.filter(({ entry }) => entry.line <= replayTo).length);
      const part = pending.slice(0, count);
      pending = pending.slice(count);
      const last = part[part.length - 1];
      await save({ pending: { offset: last.end, line: last.entry.line } });
      yield part.map(({ entry }) => (replayed ? { ...entry, replay: true as const } : entry));
      done = { offset: last.end, line: last.entry.line };
      saved = describe(name, inode, done, firstBytes, last.tail);
      // The next batch's checkpoint moves past this one; the last one's is written now.
      if (!pending.length) await save();
    }
  };
  // The first bytes as read: a file truncated and written again to at least the length read so far is told by
  // its first bytes having changed.
  let head = firstBytes;
  const rewritten = async () => {
    const now = await bytesAt(handle, 0, Math.min(EDGE_BYTES, position));
    if (!now.subarray(0, head.length).equals(head)) return true;
    head = now;
    return false;
  };
  // Following, the file at the path is looked at before each read but the first: renamed away (rotated), its old
  // file is read to its end; truncated, it is not read on at the old offset, where the new content's bytes are not
  // the start of a line.
  let looked = false;
  for (;;) {
    if (options.follow && !drain && looked) {
      const current = await stat(file).catch(() => undefined);
      if (current && current.ino !== inode) {
        // Rotated: drain what was still written to the old file, then read the new one from its start.
        drain = true;
        options.onRestart?.(`${basename(file)} was rotated: reading the new file from its start`);
      } else if (current && (current.size < position || (await rewritten()))) {
        // Truncated: the lines read are handed out; what was written after them and before it was truncated is in
        // a copy, if one was made (copytruncate).
        yield* flush();
        const copy = saved.offset > 0 ? await findElsewhere(file, saved) : undefined;
        if (copy) {
          options.onRestart?.(
            `${basename(file)} was truncated: reading the rest of its copy ${copy.name}, then ${basename(file)} from its start`,
          );
          return { next: { ...copy, start: done, drain: true } };
        }
        options.onRestart?.(`${basename(file)} was truncated: reading it from its start`);
        return { again: true };
      }
    }
    looked = true;
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead > 0) {
      if (position < EDGE_BYTES) firstBytes = Buffer.concat([firstBytes, buffer.subarray(0, Math.min(bytesRead, EDGE_BYTES - position))]);
      position += bytesRead;
      pending.push(...splitter.push(buffer.subarray(0, bytesRead)));
      if (pending.length >= batchLines) yield* flush();
      continue;
    }
    // Read to the end: a finished file, or the old file of a rotation, once drained, ends here.
    if (!options.follow || drain) {
      pending.push(...splitter.finish());
      yield* flush();
      if (!drain) return {};
      await save({ finished: true });
      return { again: true };
    }
    yield* flush();
    if (options.signal?.aborted) return {};
    await pause(pollMs, options.signal);
    if (options.signal?.aborted) return {};
  }
}

/** Batches of lines of a stream (standard input): each batch what has arrived, up to `batchLines` lines. */
export async function* streamLines(stream: AsyncIterable<Buffer | string>, batchLines = 500): AsyncGenerator<SourceLine[]> {
  const splitter = new Splitter({ offset: 0, line: 0 });
  for await (const chunk of stream) {
    const lines = splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk).map(({ entry }) => entry);
    for (let start = 0; start < lines.length; start += batchLines) yield lines.slice(start, start + batchLines);
  }
  const last = splitter.finish().map(({ entry }) => entry);
  if (last.length) yield last;
}
