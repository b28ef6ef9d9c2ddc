import { invalidParameters, type ParameterError } from '../errors';
import { canonicalInstrument } from '../instruments';
import type { TradeStatus } from '../types';

/**
 * Query-string parsing. Each operation lists the parameters it accepts with a parser for one value; anything
 * else (an unknown name, a repeated or empty parameter) is a 400 that names the parameter. Every problem in a
 * request is reported at once.
 */
export type ParameterParsers = Record<string, (value: string) => unknown>;

export type ParsedQuery<P extends ParameterParsers> = { [K in keyof P]?: Exclude<ReturnType<P[K]>, undefined> };

/** Thrown by a parser to reject a value; the message completes "<name> …". */
export class ParameterRejection extends Error {}

function reject(message: string): never {
  throw new ParameterRejection(message);
}

/** At most this many bad parameters are described: an error body stays small whatever the request holds. */
export const MAX_REPORTED_ERRORS = 10;
const MAX_NAME_LENGTH = 64;

/** A parameter's name as an error names it: client text, so only its start. */
function shownName(name: string): string {
  return name.length > MAX_NAME_LENGTH ? `${name.slice(0, MAX_NAME_LENGTH)}…` : name;
}

/** Parses the raw (possibly repeated) query parameters against `parsers`. */
export function parseQuery<P extends ParameterParsers>(
  parsers: P,
  raw: Record<string, readonly string[] | undefined>,
): ParsedQuery<P> {
  const errors: ParameterError[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [name, values = []] of Object.entries(raw)) {
    if (!Object.hasOwn(parsers, name)) {
      const known = Object.keys(parsers);
      errors.push({
        parameter: shownName(name),
        message: known.length ? `is not a parameter of this operation (accepted: ${known.join(', ')})` : 'this operation takes no parameters',
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
  if (errors.length > MAX_REPORTED_ERRORS) {
    const more = errors.length - (MAX_REPORTED_ERRORS - 1);
    errors.splice(MAX_REPORTED_ERRORS - 1, Infinity, { parameter: '…', message: `and ${more} more bad parameters` });
  }
  if (errors.length) throw invalidParameters(errors);
  return parsed as ParsedQuery<P>;
}

export const MAX_LIMIT = 500;
export const DEFAULT_LIMIT = 50;

/** `open`, `closed` or `all` in any case; `all` means no status filter. */
export function parseStatus(value: string): TradeStatus | 'all' {
  const status = value.toLowerCase();
  if (status === 'open' || status === 'closed' || status === 'all') return status;
  return reject('must be one of open, closed, all');
}

/** An instrument `BASE_QUOTE` (`/` or `-` also accepted), returned in canonical upper case with `_`. */
export function parseInstrument(value: string): string {
  return canonicalInstrument(value) ?? reject('must be an instrument such as EUR_USD (BASE_QUOTE; "/" or "-" also accepted)');
}

/** A whole number from 1 to 500 written in plain digits: `0`, `1.5`, `1e3`, ` 5` or `501` are refused, not clamped. */
export function parseLimit(value: string): number {
  if (!/^[1-9][0-9]{0,2}$/.test(value) || Number(value) > MAX_LIMIT) {
    return reject(`must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return Number(value);
}

/** A cursor's text; its signature is checked once the listing it must belong to is known. */
export function parseCursor(value: string): string {
  return value;
}

/** The parameters of both trade listings. */
export const TRADE_QUERY = {
  status: parseStatus,
  instrument: parseInstrument,
  limit: parseLimit,
  cursor: parseCursor,
} satisfies ParameterParsers;

/** No parameters. */
export const NO_QUERY = {} satisfies ParameterParsers;
