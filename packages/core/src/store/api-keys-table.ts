import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { accountSet } from '../ids';
import { getItem, type Item, putItem, scanAll, type Store, updateItem } from './dynamodb';

/**
 * Keys of the api-keys table, and the keys themselves. A key reads `tbk_<keyId>_<secret>`; the table is
 * partitioned by the public `keyId` and stores only the SHA-256 of the whole key, so a leaked table cannot be
 * used to call the API.
 */
export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  /** Account ids the key may see, or `*` for all. */
  accounts: '*' | string[];
  label: string;
  createdAt: string;
  disabled: boolean;
}

const KEY = /^tbk_([a-f0-9]{16})_([A-Za-z0-9_-]{43})$/;

/** Hex SHA-256 of a key. */
function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random key and the record to store for it (the key itself is shown once and never stored). */
export function newApiKey(accounts: '*' | readonly string[], label: string, now = new Date()): { key: string; record: ApiKeyRecord } {
  const keyId = randomBytes(8).toString('hex');
  const key = `tbk_${keyId}_${randomBytes(32).toString('base64url')}`;
  const scope = accounts === '*' ? '*' : accountSet(accounts);
  return { key, record: { keyId, keyHash: hashApiKey(key), accounts: scope, label, createdAt: now.toISOString(), disabled: false } };
}

/** The key id inside a whole key (`tbk_<keyId>_<secret>`), or undefined when `text` is not shaped like a key. */
export function keyIdOf(text: string): string | undefined {
  return KEY.exec(text)?.[1];
}

/** The table key of a key id. */
function apiKeyKey(keyId: string): Item {
  return { keyId };
}

/** The stored item for a key record. */
export function apiKeyItem(record: ApiKeyRecord): Item {
  return { ...apiKeyKey(record.keyId), ...record };
}

/**
 * The API key a request carries: the `x-api-key` header (name in any case), else `Authorization: Bearer <key>`. The
 * first is the data routes' identity source, which their authorizer cache is keyed on, so there API Gateway refuses
 * a request without it before asking; the second is how Prometheus sends a key, and reaches the authorizer only on
 * the metrics route, which has no identity source (serverless.yml).
 */
export function apiKeyOf(headers: Record<string, string | undefined> | null | undefined): string | undefined {
  const header = (wanted: string) => Object.entries(headers ?? {}).find(([name, value]) => name.toLowerCase() === wanted && value)?.[1];
  const key = header('x-api-key')?.trim();
  if (key) return key;
  return /^Bearer +(\S+)\s*$/i.exec(header('authorization') ?? '')?.[1];
}

/** The record of `key` when it is a well-formed key whose hash matches a stored one; `undefined` otherwise. */
export async function findApiKey(store: Store, key: string): Promise<ApiKeyRecord | undefined> {
  const match = KEY.exec(key);
  if (!match) return undefined;
  const item = await getItem(store, store.tables.apiKeys, apiKeyKey(match[1]));
  if (!item) return undefined;
  const expected = Buffer.from(String(item.keyHash), 'hex');
  const given = Buffer.from(hashApiKey(key), 'hex');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  return item as unknown as ApiKeyRecord;
}

/** Creates a new key for `accounts` and stores its record; the key itself is returned once and never stored. */
export async function createApiKey(
  store: Store,
  accounts: '*' | readonly string[],
  label: string,
  options: { disabled?: boolean; now?: Date } = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  const created = newApiKey(accounts, label, options.now);
  const record = { ...created.record, disabled: options.disabled ?? false };
  // A key id is 64 random bits: a collision is refused rather than overwriting another key.
  const item = apiKeyItem(record);
  const stored = await putItem(store, { TableName: store.tables.apiKeys, Item: item, ConditionExpression: 'attribute_not_exists(keyId)' });
  if (!stored) throw new Error(`key id ${record.keyId} is taken; create the key again`);
  return { key: created.key, record };
}

/** Disables a key by its id (403 from then on); false when there is no such key. */
export async function revokeApiKey(store: Store, keyId: string, now = new Date()): Promise<boolean> {
  return updateItem(store, {
    TableName: store.tables.apiKeys,
    Key: apiKeyKey(keyId),
    UpdateExpression: 'SET disabled = :true, revokedAt = :now',
    ConditionExpression: 'attribute_exists(keyId)',
    ExpressionAttributeValues: { ':true': true, ':now': now.toISOString() },
  });
}

/** Every key record (a small table, read whole). */
export async function listApiKeys(store: Store): Promise<ApiKeyRecord[]> {
  return (await scanAll(store, store.tables.apiKeys)) as unknown as ApiKeyRecord[];
}
