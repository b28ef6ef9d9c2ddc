import { invalidParameters, type ParameterError } from '../errors';
import { windowError } from '../operations/window';
import { canonicalInstrument } from '@trading-bot-api/core/instruments';
import { EARLIEST_TIME, INTERVALS, LATEST_TIME, parseTime, PERIODS, timestamp } from '@trading-bot-api/core/time';
import { cursorShaped, NOT_A_CURSOR } from './cursor';
import type { TradeStatus } from '@trading-bot-api/core/types';

/**
 * Query-string parsing. Each operation lists the parameters it accepts with a parser for one value; anything
 * else (an unknown name, a repeated or empty parameter) is a 400 that names the parameter. Every problem in a
 * request is reported at once.
 */
export type ParameterParsers = Record<string, (value: string) => unknown>;

export type ParsedQuery<P extends ParameterParsers> = { [K in keyof P]?: Exclude<ReturnType<P[K]>, undefined> };

/** Thrown by a parser to reject a value; the message completes "<name> …". */
class ParameterRejection extends Error {}

function reject(message: string): never {
  throw new ParameterRejection(message);
}

/**
 * At most this many bad parameters are described, the last entry counting the rest: an error body stays small whatever
 * the request holds. Each is named as given, whole: a client matches the names it sent, and API Gateway's limit on a
 * request's line and headers (10,240 bytes) bounds them all.
 */
export const MAX_REPORTED_ERRORS = 10;

/**
 * Parses the raw (possibly repeated) query parameters against `parsers`. A window (`from` and `to`, both parsed) is
 * checked here too, so that its error is reported with the others.
 */
export function parseQuery<P extends ParameterParsers>(parsers: P, raw: Record<string, readonly string[] | undefined>): ParsedQuery<P> {
  const errors: ParameterError[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [name, values = []] of Object.entries(raw)) {
    if (!Object.hasOwn(parsers, name)) {
      const known = Object.keys(parsers);
      errors.push({
        parameter: name,
        message: known.length
          ? `is not a parameter of this operation (accepted: ${known.join(', ')})`
          : 'this operation takes no parameters',
      });
    } else if (values.length !== 1) {
      errors.push({ parameter: name, message: 'must be given once' });
    } else if (values[0] === '') {
      errors.push({ parameter: name, message: 'must not be empty' });
    } else {
      try {
        parsed[name] = parsers[name](values[0]);
      } catch (error) {
        if (!(error instanceof ParameterRejection)) throw error;
        errors.push({ parameter: name, message: error.message });
      }
    }
  }
  const window = windowError(parsed as { from?: number; to?: number });
  if (window) errors.push(window);
  if (errors.length > MAX_REPORTED_ERRORS) {
    const more = errors.length - (MAX_REPORTED_ERRORS - 1);
    errors.splice(MAX_REPORTED_ERRORS - 1, Infinity, { parameter: '…', message: `and ${more} more bad parameters` });
  }
  if (errors.length) throw invalidParameters(errors);
  return parsed as ParsedQuery<P>;
}

export const MAX_LIMIT = 500;
/** A listing's page size when `limit` is not given. */
export const DEFAULT_LIMIT = 50;

/** A parser of one of `values`, in any case: `must be one of …` otherwise. */
function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return (value) => {
    const chosen = value.toLowerCase() as T;
    return values.includes(chosen) ? chosen : reject(`must be one of ${values.join(', ')}`);
  };
}

/** `open`, `closed`, `gone` or `all` in any case; `all` means no status filter. */
export const parseStatus = oneOf<TradeStatus | 'all'>(['open', 'closed', 'gone', 'all']);

/** An instrument `BASE_QUOTE` (`/` or `-` also accepted; a future's with `_PERP` or `_YYYYMMDD`), returned in canonical upper case with `_`. */
export function parseInstrument(value: string): string {
  return (
    canonicalInstrument(value) ??
    reject('must be an instrument such as EUR_USD (BASE_QUOTE; "/" or "-" also accepted), or a future\'s such as SOL_USDT_PERP')
  );
}

/** A whole number from 1 to 500 written in plain digits: `0`, `1.5`, `1e3`, ` 5` or `501` are refused, not clamped. */
export function parseLimit(value: string): number {
  if (!/^[1-9][0-9]{0,2}$/.test(value) || Number(value) > MAX_LIMIT) {
    return reject(`must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return Number(value);
}

/**
 * A cursor's text, of the form the API issues (and at most 512 characters); its signature is checked once the listing
 * it must belong to is known.
 */
function parseCursor(value: string): string {
  return cursorShaped(value) ? value : reject(NOT_A_CURSOR);
}

/**
 * An RFC 3339 time with a zone (`Z` or `±hh:mm`), as milliseconds since the epoch; digits below the millisecond are
 * kept as a fraction, never rounded across a stored time. A time without a zone would mean a different instant on
 * every machine: refused. A date alone (RFC 3339's `full-date`, what operators type) is that day's start in UTC.
 */
export function parseTimeParameter(value: string): number {
  const ms = parseTime(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (ms === undefined && /^\d{4}-\d{2}-\d{2} \d{2}:/.test(value)) {
    return reject('must separate its date and time with T (RFC 3339), not a space: such as 2026-11-01T09:00:00Z');
  }
  if (ms === undefined && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:60/i.test(value)) {
    return reject('names a leap second (:60), which no time here has (as in POSIX and JavaScript): use :59.999 or the next second');
  }
  // An offset's `+` sent unencoded arrives as a space: a query string reads `+` as one.
  if (ms === undefined && /^\d{4}-\d{2}-\d{2}T[\d:.]+ \d{2}:\d{2}$/.test(value)) {
    return reject(
      `must be an RFC 3339 time with a zone; the "+" of its offset arrived as a space: send it as %2B (${value.replace(' ', '%2B')})`,
    );
  }
  if (ms === undefined)
    return reject(
      'must be an RFC 3339 time with a zone, such as 2026-11-01T09:00:00+09:00, or a date alone (2026-11-01: its start in UTC)',
    );
  if (ms < EARLIEST_TIME || ms > LATEST_TIME) return reject(`must fall between ${timestamp(EARLIEST_TIME)} and ${timestamp(LATEST_TIME)}`);
  return ms;
}

/** A window's bounds, `from` and `to`, each optional (parseQuery checks that `from` comes first). */
const WINDOW = { from: parseTimeParameter, to: parseTimeParameter };

/** The representations of a trade listing the `format` parameter names (trade-representations.ts renders them). */
const TRADE_FORMATS = ['json', 'csv', 'cointracking'] as const;

/** The parameters of both trade listings. */
export const TRADE_QUERY = {
  status: parseStatus,
  instrument: parseInstrument,
  ...WINDOW,
  limit: parseLimit,
  cursor: parseCursor,
  // `json`, `csv` or `cointracking`, in any case.
  format: oneOf(TRADE_FORMATS),
} satisfies ParameterParsers;

/** The parameters of both P&L series. */
export const PNL_QUERY = {
  // `day`, `week` or `month`, in any case.
  period: oneOf(PERIODS),
  ...WINDOW,
} satisfies ParameterParsers;

/** The parameters of both performance summaries: a window of whole UTC days and one instrument, each optional. */
export const PERFORMANCE_QUERY = {
  ...WINDOW,
  instrument: parseInstrument,
} satisfies ParameterParsers;

/** The parameters of the equity series. */
export const EQUITY_QUERY = {
  // `hour` or `day`, in any case.
  interval: oneOf(INTERVALS),
  ...WINDOW,
} satisfies ParameterParsers;

/** No parameters. */
export const NO_QUERY = {} satisfies ParameterParsers;
