/**
 * API key management.
 *   npm run keys -- create --accounts acc-1,acc-2 --label NAME   (or --accounts '*'); prints the key last, once
 *   npm run keys -- list
 *   npm run keys -- revoke KEY_ID                                 (disables it: 403 from then on)
 * Targets the local dynalite of `npm start` by default (stage "local", http://127.0.0.1:8000). With --stage STAGE
 * and no --endpoint it uses AWS with the usual credentials (AWS_PROFILE, AWS_REGION, ...).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isAccountId } from '../lib/access';
import tables from '../resources/tables.js';
import { adminClient } from './support/local-db';

function usage(message?: string): never {
  if (message) console.error(`keys: ${message}`);
  console.error('usage: npm run keys -- create --accounts ID[,ID...]|* --label NAME | list | revoke KEY_ID  [--stage S] [--endpoint URL]');
  process.exit(2);
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
  const endpoint = option(args, 'endpoint') ?? (stageOption === undefined || stage === 'local' ? 'http://127.0.0.1:8000' : undefined);
  const accountsOption = option(args, 'accounts');
  const label = option(args, 'label');
  const [command, ...rest] = args;
  const table = tables.tableName(stage, 'apiKeys');
  const client = DynamoDBDocumentClient.from(endpoint ? adminClient(endpoint) : new DynamoDBClient({}));
  // lib/ reads its configuration at load; the CLI signs no cursor, so only the table names matter here.
  Object.assign(process.env, tables.tableEnvironment(stage), { CURSOR_SECRET: 'x'.repeat(32), AWS_REGION: process.env.AWS_REGION ?? 'us-east-1' });
  const { apiKeyItem, apiKeyKey, newApiKey } = await import('../lib/store/api-keys-table');

  if (command === 'create') {
    if (!accountsOption) usage('create needs --accounts');
    if (!label) usage('create needs --label');
    const accounts = accountsOption === '*' ? '*' : accountsOption.split(',').map((id) => id.trim()).filter(Boolean);
    if (accounts !== '*' && !accounts.every(isAccountId)) {
      usage('--accounts must be account ids separated by commas, or *');
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
    const [keyId] = rest;
    if (!keyId) usage('revoke needs a KEY_ID (see: npm run keys -- list)');
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

main().catch((error) => {
  console.error(`keys: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
