/**
 * API key management.
 *   npm run keys -- create --accounts acc-1,acc-2 --label NAME [--force]   (or --accounts '*'); prints the key last, once
 *   npm run keys -- list
 *   npm run keys -- revoke KEY_ID|KEY                                      (disables it: 403 from then on)
 * Targets the database of `npm start` by default (stage "local", http://127.0.0.1:$DB_PORT, DB_PORT defaulting to
 * 8000). With --stage STAGE and no --endpoint it uses AWS with the usual credentials (AWS_PROFILE, AWS_REGION, ...).
 */
import './support/quiet-sdk';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type BatchGetCommandOutput, DynamoDBDocumentClient, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { accountSet, isAccountId } from '../lib/access';
import tables from '../resources/tables.js';
import { adminClient, localDatabaseEndpoint } from './support/local-db';

function usage(message?: string): never {
  if (message) console.error(`keys: ${message}`);
  console.error('usage: npm run keys -- create --accounts ID[,ID...]|* --label NAME [--force] | list | revoke KEY_ID|KEY  [--stage S] [--endpoint URL]');
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
  const endpoint = option(args, 'endpoint') ?? (stageOption === undefined || stage === 'local' ? localDatabaseEndpoint() : undefined);
  const accountsOption = option(args, 'accounts');
  const label = option(args, 'label');
  const force = flag(args, 'force');
  const [command, ...rest] = args;
  const table = tables.tableName(stage, 'apiKeys');
  const client = DynamoDBDocumentClient.from(endpoint ? adminClient(endpoint) : new DynamoDBClient({}));
  // lib/ reads its configuration at load; the CLI signs no cursor, so only the table names matter here.
  Object.assign(process.env, tables.tableEnvironment(stage), { CURSOR_SECRET: 'x'.repeat(32), AWS_REGION: process.env.AWS_REGION ?? 'us-east-1' });
  const { apiKeyItem, apiKeyKey, keyIdOf, newApiKey } = await import('../lib/store/api-keys-table');

  if (command === 'create') {
    if (!accountsOption) usage('create needs --accounts');
    if (!label) usage('create needs --label');
    // A key's scope is a set: `acc-1,acc-1` is one account.
    const accounts = accountsOption === '*' ? '*' : accountSet(accountsOption.split(',').map((id) => id.trim()).filter(Boolean));
    if (accounts !== '*' && (accounts.length === 0 || !accounts.every(isAccountId))) {
      usage('--accounts must be account ids separated by commas, or *');
    }
    if (accounts !== '*') {
      const missing = await missingAccounts(client, tables.tableName(stage, 'accounts'), accounts);
      if (missing.length) {
        const which = `no account ${missing.join(', ')} in ${tables.tableName(stage, 'accounts')}`;
        if (!force) usage(`${which} (a typo?). Add --force to create the key anyway, for accounts the bot will create later.`);
        console.error(`keys: warning: ${which}; creating the key anyway (--force).`);
      }
    }
    const { key, record } = newApiKey(accounts, label);
    await client.send(new PutCommand({ TableName: table, Item: apiKeyItem(record), ConditionExpression: 'attribute_not_exists(keyId)' }));
    console.log(`Created key ${record.keyId} (${label}) for ${accounts === '*' ? 'all accounts' : accounts.join(', ')} in ${table}.`);
    console.log('This is the only time the key is shown; store it now:');
    console.log(key);
  } else if (command === 'list') {
    let start: Record<string, unknown> | undefined;
    const rows: string[] = [];
    do {
      const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) {
        const accounts = item.accounts === '*' ? '*' : (item.accounts as string[]).join(',');
        rows.push([item.keyId, item.disabled ? 'disabled' : 'active', item.createdAt, item.label, accounts].join('\t'));
      }
      start = page.LastEvaluatedKey;
    } while (start);
    console.log(['KEY_ID', 'STATE', 'CREATED', 'LABEL', 'ACCOUNTS'].join('\t'));
    for (const row of rows.sort()) console.log(row);
  } else if (command === 'revoke') {
    const [given] = rest;
    if (!given) usage('revoke needs a KEY_ID (see: npm run keys -- list) or the key itself');
    // Given the whole key, revoke it by its id; the secret part is never printed back.
    const keyId = keyIdOf(given) ?? given;
    if (given.startsWith('tbk_') && keyId === given) usage('that is not a whole key (tbk_<id>_<secret>) nor a key id');
    try {
      await client.send(
        new UpdateCommand({
          TableName: table,
          Key: apiKeyKey(keyId),
          UpdateExpression: 'SET disabled = :true, revokedAt = :now',
          ConditionExpression: 'attribute_exists(keyId)',
          ExpressionAttributeValues: { ':true': true, ':now': new Date().toISOString() },
        }),
      );
    } catch (error) {
      if (error instanceof Error && error.name === 'ConditionalCheckFailedException') usage(`no key ${keyId} in ${table}`);
      throw error;
    }
    console.log(`Revoked key ${keyId}: requests with it now get 403 (after API Gateway's authorizer cache expires in AWS).`);
  } else {
    usage(command ? `unknown command ${command}` : undefined);
  }
}

/** The ids among `accounts` that have no item in the accounts table. */
async function missingAccounts(client: DynamoDBDocumentClient, table: string, accounts: string[]): Promise<string[]> {
  const found = new Set<string>();
  for (let start = 0; start < accounts.length; start += 100) {
    let keys: Record<string, unknown>[] | undefined = accounts.slice(start, start + 100).map((accountId) => ({ accountId }));
    while (keys?.length) {
      const output: BatchGetCommandOutput = await client.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ProjectionExpression: 'accountId' } } }));
      for (const item of output.Responses?.[table] ?? []) found.add(String(item.accountId));
      keys = output.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return accounts.filter((id) => !found.has(id));
}

main().catch((error) => {
  console.error(`keys: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
