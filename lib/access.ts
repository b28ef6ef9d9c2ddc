import type { Principal } from './types';

/** Everyone: what a request sees when API keys are off. */
export const EVERYONE: Principal = { accounts: '*' };

/** No account at all: what a public operation (health) sees. */
export const NOBODY: Principal = { accounts: [] };

/** True when `principal` may see `accountId`. */
export function canSee(principal: Principal, accountId: string): boolean {
  return principal.accounts === '*' || principal.accounts.includes(accountId);
}

/**
 * A key's accounts as a set: sorted, each once. A repeated account would otherwise reach BatchGetItem twice (which
 * DynamoDB refuses) and a merged listing twice (every trade shown twice).
 */
export function accountSet(accounts: readonly string[]): string[] {
  return [...new Set(accounts)].sort(compareIds);
}

/**
 * The authorizer passes the key's scope to the functions as a string (API Gateway context values are scalars):
 * `*` or a comma-separated list of account ids, each once.
 */
export function encodeScope(accounts: '*' | readonly string[]): string {
  return accounts === '*' ? '*' : accountSet(accounts).join(',');
}

/** Inverse of `encodeScope`; a repeated account is read once, whoever wrote the scope. */
export function decodeScope(scope: string): '*' | string[] {
  return scope === '*' ? '*' : accountSet(scope.split(',').filter(Boolean));
}

/** Orders ids by UTF-16 code units, the same way for every list the API sorts by id. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** True when `value` can be an account id: 1–64 of `[A-Za-z0-9._-]`, starting with a letter or digit, not `all`. */
export function isAccountId(value: string): boolean {
  return ACCOUNT_ID.test(value) && value !== ALL_ACCOUNTS;
}

/** `all` names every account in paths; it is never an account id. */
export const ALL_ACCOUNTS = 'all';
