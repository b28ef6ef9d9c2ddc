import { type AccountScope, accountSet } from '@trading-bot-api/core/ids';

/** Who is asking: every account (`*`), or the accounts an API key was issued for. */
export interface Principal {
  accounts: AccountScope;
  /** The API key's id; absent when keys are off. */
  keyId?: string;
}

/** Everyone: what a request sees when API keys are off. */
export const EVERYONE: Principal = { accounts: '*' };

/** No account at all: what a public operation (health) sees. */
export const NOBODY: Principal = { accounts: [] };

/** True when `principal` may see `accountId`. */
export function canSee(principal: Principal, accountId: string): boolean {
  return principal.accounts === '*' || principal.accounts.includes(accountId);
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
