/**
 * Where event lines come from: a file, read from where the last run stopped (a checkpoint beside it) and, with
 * `follow`, kept reading as it grows, across rotation (the file renamed away and a new one created in its place:
 * the old one is read to its end first) and truncation (read again from the start); or standard input.
 *
 * Lines come in batches. The checkpoint records the byte offset after the last batch the caller finished with (the
 * generator saves it when asked for the next batch), with the file's inode and a digest of its first bytes, so a
 * restart resumes exactly there, and a checkpoint of another file (replaced, rotated, rewritten) is not trusted.
 */
import { createHash } from 'node:crypto';
import { type FileHandle, open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { MAX_LINE_BYTES } from './lines';
import { pause } from '../pause';

/** A line of the input: its number (from 1 in each file) and its text, or why it cannot be read. */
export type SourceLine = { line: number; text: string } | { line: number; error: string };

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
  /** Told when the file is read again from its start: rotated, truncated, or a checkpoint not of this file. */
  onRestart?: (reason: string) => void;
}

interface Checkpoint {
  file: string;
  inode: number;
  offset: number;
  line: number;
  /** SHA-256 of the file's first `headBytes` bytes when the checkpoint was written. */
  head: string;
  headBytes: number;
}

const HEAD_BYTES = 256;

/** The checkpoint file of `file`: beside it, same name plus `.checkpoint`. */
export function checkpointPath(file: string): string {
  return `${file}.checkpoint`;
}

async function headOf(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}

async function headDigest(handle: FileHandle, bytes: number): Promise<string> {
  return createHash('sha256')
    .update(await headOf(handle, bytes))
    .digest('hex');
}

/** Splits bytes into lines, remembering the byte offset after each; a line too long is refused, not kept. */
class Splitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  line = 0;
  /** Offset (in the file) after the last complete line handed out. */
  offset = 0;

  constructor(start: { offset: number; line: number }) {
    this.offset = start.offset;
    this.line = start.line;
  }

  /** The complete lines in `chunk` (with what came before it), with the offset after each. */
  push(chunk: Buffer): { entry: SourceLine; end: number }[] {
    const out: { entry: SourceLine; end: number }[] = [];
    let start = 0;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, start)) {
      const part = chunk.subarray(start, at);
      const length = this.pendingBytes + part.length;
      this.offset += length + 1;
      this.line += 1;
      if (this.skipping || length > MAX_LINE_BYTES)
        out.push({ entry: { line: this.line, error: `longer than ${MAX_LINE_BYTES} bytes` }, end: this.offset });
      else {
        const text = Buffer.concat([...this.pending, part])
          .toString('utf8')
          .replace(/\r$/, '');
        if (text.trim() !== '') out.push({ entry: { line: this.line, text }, end: this.offset });
      }
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
      start = at + 1;
    }
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
  finish(): { entry: SourceLine; end: number }[] {
    if (!this.pendingBytes) return [];
    return this.push(Buffer.from('\n')).map(({ entry }) => ({ entry, end: this.offset - 1 }));
  }
}

async function readCheckpoint(file: string): Promise<Checkpoint | undefined> {
  try {
    const value = JSON.parse(await readFile(checkpointPath(file), 'utf8')) as Checkpoint;
    return Number.isSafeInteger(value.offset) && Number.isSafeInteger(value.line) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function writeCheckpoint(file: string, checkpoint: Checkpoint): Promise<void> {
  const temporary = `${checkpointPath(file)}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(checkpoint)}\n`);
  await rename(temporary, checkpointPath(file));
}

/** Batches of lines of `file`, from its checkpoint on; see the module's comment. */
export async function* fileLines(file: string, options: SourceOptions = {}): AsyncGenerator<SourceLine[]> {
  const batchLines = options.batchLines ?? 500;
  const pollMs = options.pollMs ?? 250;
  const keep = options.checkpoint !== false;
  const buffer = Buffer.alloc(1024 * 1024);
  // After a rotation or truncation the file is read from its start, whatever the checkpoint (of the old one) says.
  let fromStart = false;

  for (;;) {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !options.follow) throw error;
      // Between a rotation's rename and the new file's creation: wait for it.
      if (options.signal?.aborted) return;
      await pause(pollMs, options.signal);
      continue;
    }
    try {
      const { ino, size } = await handle.stat();
      let start = { offset: 0, line: 0 };
      const saved = keep && !fromStart ? await readCheckpoint(file) : undefined;
      if (saved) {
        if (saved.inode === ino && saved.offset <= size && (await headDigest(handle, saved.headBytes)) === saved.head)
          start = { offset: saved.offset, line: saved.line };
        else options.onRestart?.(`the checkpoint is of another file than ${basename(file)} now is: reading it from its start`);
      }
      fromStart = false;
      const splitter = new Splitter(start);
      let position = start.offset;
      let pending: { entry: SourceLine; end: number }[] = [];
      const save = async (offset: number, line: number) => {
        if (!keep) return;
        const headBytes = Math.min(HEAD_BYTES, offset);
        await writeCheckpoint(file, {
          file: basename(file),
          inode: ino,
          offset,
          line,
          head: await headDigest(handle, headBytes),
          headBytes,
        });
      };
      // Hands out what was read, a batch at a time; a batch's checkpoint is saved once the caller asks for more.
      const flush = async function* () {
        while (pending.length) {
          const part = pending.slice(0, batchLines);
          pending = pending.slice(batchLines);
          yield part.map(({ entry }) => entry);
          const last = part[part.length - 1];
          await save(last.end, last.entry.line);
        }
      };
      let rotated = false;
      // The first bytes as read: a file truncated and written again to at least the length read so far is told by
      // its first bytes having changed.
      let head = await headOf(handle, Math.min(HEAD_BYTES, start.offset));
      const rewritten = async () => {
        const now = await headOf(handle, Math.min(HEAD_BYTES, position));
        if (!now.subarray(0, head.length).equals(head)) return true;
        head = now;
        return false;
      };
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead > 0) {
          position += bytesRead;
          pending.push(...splitter.push(buffer.subarray(0, bytesRead)));
          if (pending.length >= batchLines) yield* flush();
          continue;
        }
        // Read to the end: a finished file, or the old file of a rotation, once drained, ends here.
        if (!options.follow || rotated) {
          pending.push(...splitter.finish());
          yield* flush();
          if (!options.follow) return;
          break;
        }
        yield* flush();
        const current = await stat(file).catch(() => undefined);
        if (current && current.ino !== ino) {
          // Rotated: drain what was still written to the old file, then read the new one from its start.
          rotated = true;
          options.onRestart?.(`${basename(file)} was rotated: reading the new file from its start`);
          continue;
        }
        if (current && (current.size < position || (await rewritten()))) {
          options.onRestart?.(`${basename(file)} was truncated: reading it from its start`);
          break;
        }
        if (options.signal?.aborted) return;
        await pause(pollMs, options.signal);
        if (options.signal?.aborted) return;
      }
      fromStart = true;
    } finally {
      await handle.close();
    }
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
