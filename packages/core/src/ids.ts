/**
 * The id alphabet: what an account id and a trade id may be, and how ids sort. The one home of it: the writer checks
 * ids with these, the API recognises them with these, and the keys the store builds from ids rely on these alphabets
 * (trades-table's `keyBefore`, the ledger's key ranges, the fleet's attribute prefixes, the health probe's key).
 *
 * Every character an id may hold (letters, digits, `.`, `_`, `:`, `-`) sorts above `#`, the separator of composite
 * keys, and below `~` (ABOVE_EVERY_ID), so a key built of ids, times and `#` has a bound no key can pass, and a key
 * starting with a character outside the alphabet (`~`, `@`) can never be an account's.
 */

/** Account ids: 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit; never `all` (ALL_ACCOUNTS). */
export const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Trade ids: 1 to 128 letters, digits, `.`, `_`, `:` or `-`, starting with a letter or digit; never `#`, the key separator. */
export const TRADE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** A character that sorts above every character of an id (and of a stored time): an upper bound no id reaches. */
export const ABOVE_EVERY_ID = '~';

/** Some accounts, by id, or every account (`*`): what a read of account-keyed items covers. */
export type AccountScope = '*' | readonly string[];

/** `all` names every account in paths; it is never an account id. */
const ALL_ACCOUNTS = 'all';

/** True when `value` can be an account id (ACCOUNT_ID, and not `all`). */
export function isAccountId(value: string): boolean {
  return ACCOUNT_ID.test(value) && value !== ALL_ACCOUNTS;
}

/** Orders ids by UTF-16 code units, the same way for every list the API sorts by id. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Account ids as a set: sorted, each once. A repeated account would otherwise reach BatchGetItem twice (which
 * DynamoDB refuses) and a merged listing twice (every trade shown twice).
 */
export function accountSet(accounts: readonly string[]): string[] {
  return [...new Set(accounts)].sort(compareIds);
}
