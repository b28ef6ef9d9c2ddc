/**
 * What the hummingbot bridge must remember across restarts, in one JSON file it rewrites whole (a temporary file
 * renamed over it, so a crash leaves the old or the new one, never half of either):
 *
 * - per account, its open positions with their exact cost and fees (what the API's trades cannot carry: their
 *   average price is rounded), and the currency it learnt from its first fill;
 * - the fills it applied lately, by key, to know a replayed one (MQTT redelivering after a reconnect, a file read
 *   again): those of the last REPLAY_WINDOW_MS before the newest, and that newest time; a fill older than the window
 *   is taken as one seen already;
 * - the trades computed from the last fill and not yet known to be written (written ahead: after a crash they are
 *   given to the writer again, which writes what it has not).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Trade } from '@trading-bot-api/writer';
import type { Position } from '../positions';
import { ifExists } from '../../ingest/source';

/** How far back replayed fills are known by their keys: fills reach hummingbot late, but not by an hour. */
export const REPLAY_WINDOW_MS = 3_600_000;

export interface AccountState {
  currency?: string;
  /** Open positions by book (../positions.ts, bookOf). */
  positions: Record<string, Position>;
  /** Keys of the fills applied in the window, with their times (ms). */
  seen: Record<string, number>;
  /** The newest fill's time (ms). */
  newest?: number;
  /** Trades computed and not yet known to be written. */
  unsynced: Trade[];
  /** The header of the trades CSV being read (a row carries no names). */
  csvHeader?: string[];
}

export interface BridgeState {
  version: 1;
  accounts: Record<string, AccountState>;
}

export const emptyAccount = (): AccountState => ({ positions: {}, seen: {}, unsynced: [] });

/** The state in `file`, or an empty one when there is none; a file that cannot be read as state is an error. */
export async function loadState(file: string): Promise<BridgeState> {
  const text = await ifExists(readFile(file, 'utf8'));
  if (text === undefined) return { version: 1, accounts: {} };
  const state = JSON.parse(text) as BridgeState;
  if (state?.version !== 1 || typeof state.accounts !== 'object' || state.accounts === null)
    throw new Error(`${file} is not the hummingbot bridge's state (version 1)`);
  for (const account of Object.values(state.accounts)) {
    account.positions ??= {};
    account.seen ??= {};
    account.unsynced ??= [];
  }
  return state;
}

/** Writes `state` to `file` whole (see the module's comment). */
export async function saveState(file: string, state: BridgeState): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * Whether the fill `key` at `atMs` was applied already: `seen` (its key is in the window), `old` (it is older than the
 * window, so taken as seen), or false: then it is recorded, and keys that left the window are dropped.
 */
export function replayed(account: AccountState, key: string, atMs: number): 'seen' | 'old' | false {
  if (account.seen[key] !== undefined) return 'seen';
  if (account.newest !== undefined && atMs < account.newest - REPLAY_WINDOW_MS) return 'old';
  account.seen[key] = atMs;
  if (account.newest === undefined || atMs > account.newest) {
    account.newest = atMs;
    for (const [seenKey, seenAt] of Object.entries(account.seen)) if (seenAt < atMs - REPLAY_WINDOW_MS) delete account.seen[seenKey];
  }
  return false;
}
