/**
 * API key management.
 *   npm run keys -- create --accounts acc-1,acc-2 --label NAME [--force]   (or --accounts '*'); prints the key last, once
 *                                                                          (--quiet: only the key, for KEY=$(…))
 *   npm run keys -- list
 *   npm run keys -- revoke KEY_ID|KEY                                      (disables it: 403 from then on)
 * Targets the database of `npm start` by default (stage "local", http://127.0.0.1:$DB_PORT, DB_PORT defaulting to
 * 8000). With --stage STAGE and no --endpoint it uses AWS with the usual credentials (AWS_PROFILE, AWS_REGION, ...).
 */
import './support/quiet-sdk';
import { accountSet, isAccountId } from '@trading-bot-api/core/ids';
import { readAccountRecords } from '@trading-bot-api/core/store/accounts-table';
import { createApiKey, keyIdOf, listApiKeys, revokeApiKey } from '@trading-bot-api/core/store/api-keys-table';
import type { Store } from '@trading-bot-api/core/store/dynamodb';
import { targetStore } from './support/load-data';

function usage(message?: string): never {
  if (message) console.error(`keys: ${message}`);
  console.error(
    'usage: npm run keys -- create --accounts ID[,ID...]|* --label NAME [--force] [--quiet] | list | revoke KEY_ID|KEY  [--stage S] [--endpoint URL]',
  );
  process.exit(2);
}

function flag(args: string[], name: string): boolean {
  const at = args.indexOf(`--${name}`);
  if (at !== -1) args.splice(at, 1);
  return at !== -1;
}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) usage(`--${name} needs a value`);
  args.splice(at, 2);
  return value;
}

async function main() {
  const args = process.argv.slice(2);
  const stageOption = option(args, 'stage');
  const stage = stageOption ?? 'local';
  const endpointOption = option(args, 'endpoint');
  const accountsOption = option(args, 'accounts');
  const label = option(args, 'label');
  const force = flag(args, 'force');
  const quiet = flag(args, 'quiet');
  const [command, ...rest] = args;
  const { store } = await targetStore({ stage, endpoint: endpointOption });
  const table = store.tables.apiKeys;

  if (quiet && command !== 'create') usage('--quiet is for create only');
  if (command === 'create') {
    if (!accountsOption) usage('create needs --accounts');
    if (!label) usage('create needs --label');
    // A key's scope is a set: `acc-1,acc-1` is one account.
    const accounts =
      accountsOption === '*'
        ? '*'
        : accountSet(
            accountsOption
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean),
          );
    if (accounts !== '*' && (accounts.length === 0 || !accounts.every(isAccountId))) {
      usage('--accounts must be account ids separated by commas, or *');
    }
    if (accounts !== '*') {
      const missing = await missingAccounts(store, accounts);
      if (missing.length) {
        const which = `no account ${missing.join(', ')} in ${store.tables.accounts}`;
        if (!force) usage(`${which} (a typo?). Add --force to create the key anyway, for accounts the bot will create later.`);
        console.error(`keys: warning: ${which}; creating the key anyway (--force).`);
      }
    }
    const { key, record } = await createApiKey(store, accounts, label);
    // Only the key on standard output, so that a shell can keep it: KEY=$(npm run --silent keys -- create … --quiet).
    if (quiet) {
      console.log(key);
      return;
    }
    console.log(`Created key ${record.keyId} (${label}) for ${accounts === '*' ? 'all accounts' : accounts.join(', ')} in ${table}.`);
    console.log('This is the only time the key is shown; store it now:');
    console.log(key);
  } else if (command === 'list') {
    const rows = (await listApiKeys(store)).map((record) =>
      [
        record.keyId,
        record.disabled ? 'disabled' : 'active',
        record.createdAt,
        record.label,
        record.accounts === '*' ? '*' : record.accounts.join(','),
      ].join('\t'),
    );
    console.log(['KEY_ID', 'STATE', 'CREATED', 'LABEL', 'ACCOUNTS'].join('\t'));
    for (const row of rows.sort()) console.log(row);
  } else if (command === 'revoke') {
    const [given] = rest;
    if (!given) usage('revoke needs a KEY_ID (see: npm run keys -- list) or the key itself');
    // Given the whole key, revoke it by its id; the secret part is never printed back.
    const keyId = keyIdOf(given) ?? given;
    if (given.startsWith('tbk_') && keyId === given) usage('that is not a whole key (tbk_<id>_<secret>) nor a key id');
    if (!(await revokeApiKey(store, keyId))) usage(`no key ${keyId} in ${table}`);
    console.log(`Revoked key ${keyId}: requests with it now get 403 (after API Gateway's authorizer cache expires in AWS).`);
  } else {
    usage(command ? `unknown command ${command}` : undefined);
  }
}

/** The ids among `accounts` that have no item in the accounts table. */
async function missingAccounts(store: Store, accounts: string[]): Promise<string[]> {
  const found = new Set((await readAccountRecords(store, accounts)).map(({ account }) => account.id));
  return accounts.filter((id) => !found.has(id));
}

main().catch((error) => {
  console.error(`keys: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
