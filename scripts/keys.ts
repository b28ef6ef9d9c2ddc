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
import { commandLine, runCommand, TARGET_OPTIONS, usageFailure } from './support/command-line';
import { targetStore } from './support/load-data';

const USAGE =
  'usage: npm run keys -- create --accounts ID[,ID...]|* --label NAME [--force] [--quiet] | list | revoke KEY_ID|KEY  [--stage S] [--endpoint URL]';

const usage: (message: string) => never = (message) => usageFailure('keys', USAGE, message);

async function main() {
  const parsed = commandLine('keys', USAGE, {
    ...TARGET_OPTIONS,
    accounts: { type: 'string' },
    label: { type: 'string' },
    force: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  });
  const { stage, endpoint: endpointOption, accounts: accountsOption, label, force, quiet } = parsed.values;
  const [command, ...rest] = parsed.positionals;
  const store = await targetStore({ stage, endpoint: endpointOption });
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
      const found = new Set((await readAccountRecords(store, accounts)).map(({ account }) => account.id));
      const missing = accounts.filter((id) => !found.has(id));
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
    usage(command ? `unknown command ${command}` : 'say create, list or revoke');
  }
}

runCommand('keys', main);
