/**
 * What the writer refuses, as typed errors a bot can act on: each has a stable `code`, and those about the input
 * name the `field`. Nothing is written when one is thrown.
 */
export type WriterErrorCode =
  | 'INVALID_INPUT'
  | 'ACCOUNT_NOT_FOUND'
  | 'CURRENCY_MISMATCH'
  | 'TRADE_NOT_FOUND'
  | 'TRADE_CONFLICT'
  | 'TRADE_CLOSED'
  | 'WRITE_CONFLICT'
  | 'UNAVAILABLE'
  | 'MISCONFIGURED';

export class WriterError extends Error {
  constructor(
    readonly code: WriterErrorCode,
    message: string,
    /** The input field at fault, for INVALID_INPUT (e.g. `closeTime`, `trades[3].units`). */
    readonly field?: string,
  ) {
    super(field ? `${field}: ${message}` : message);
    this.name = 'WriterError';
  }
}

/**
 * A refusal of the call itself (its input, its account, its trade's state), which a caller says and goes past. The
 * database's own failures are not: UNAVAILABLE (retry the same call) and MISCONFIGURED (mend the configuration)
 * refuse every call alike.
 */
export function isRefusal(error: unknown): error is WriterError {
  return error instanceof WriterError && error.code !== 'UNAVAILABLE' && error.code !== 'MISCONFIGURED';
}

/** A value the writer cannot store as given. */
export function invalidInput(field: string, message: string): WriterError {
  return new WriterError('INVALID_INPUT', message, field);
}

/** No account with this id: create it first (upsertAccount). */
export function accountNotFound(accountId: string): WriterError {
  return new WriterError('ACCOUNT_NOT_FOUND', `no account ${JSON.stringify(accountId)}`);
}

/** The account exists with another currency; an account has one currency for life. */
export function currencyMismatch(accountId: string, stored: string, given: string): WriterError {
  return new WriterError('CURRENCY_MISMATCH', `account ${JSON.stringify(accountId)} is in ${stored}, not ${given}`, 'currency');
}

/** No trade with this id in the account. */
export function tradeNotFound(accountId: string, tradeId: string): WriterError {
  return new WriterError('TRADE_NOT_FOUND', `no trade ${JSON.stringify(tradeId)} in account ${JSON.stringify(accountId)}`);
}

/** A trade with this id exists with other values than the ones given. */
export function tradeConflict(tradeId: string, detail: string): WriterError {
  return new WriterError('TRADE_CONFLICT', `trade ${JSON.stringify(tradeId)} exists with other values (${detail})`);
}

/** The trade is closed, and closed is final: it cannot close again with other values, nor change. */
export function tradeClosed(tradeId: string, detail: string): WriterError {
  return new WriterError('TRADE_CLOSED', `trade ${JSON.stringify(tradeId)} is closed, and closed is final (${detail})`);
}

/** Other writers kept changing the same items; nothing was written. Retry later. */
export function writeConflict(what: string): WriterError {
  return new WriterError('WRITE_CONFLICT', `${what}: other writers kept changing the same items; nothing was written`);
}

/** DynamoDB could not be reached, was too slow, or throttled. Nothing was written, or a retry has no second effect. */
export function unavailable(): WriterError {
  return new WriterError('UNAVAILABLE', 'the database is unavailable; retrying the same call is safe');
}

/**
 * DynamoDB refuses the writer for its configuration: a table that does not exist (a wrong stage or table name), a
 * permission its role lacks, credentials it does not accept. The message says which. Nothing was written, and
 * retrying cannot help until the configuration is fixed: a bot should stop and say so, not retry.
 */
export function misconfigured(cause: string): WriterError {
  return new WriterError('MISCONFIGURED', `the database refuses the writer: ${cause}; retrying will not help until that is fixed`);
}
