/**
 * The ALERT_* values a deployed stage keeps in AWS, read at run time by one signed call each (aws-json.ts): the
 * Secrets Manager secret named by ALERT_SECRET_ID (a JSON object of the variables) and the SSM parameters under
 * ALERT_PARAMETERS_PATH (SecureString, one per variable, decrypted). Both are kept for five minutes per instance, so
 * a warm notifier does not read them for every alarm, and a changed value is used within five minutes.
 * A secret or path that does not exist means no channel is configured there; any other failure (no permission, no
 * answer) is an error naming its cause: the notifier then fails, and its event waits in the on-failure queue.
 */
import { AwsCallError, callAwsJson, SECRETS_MANAGER, SSM } from './aws-json';
import { type AlertValues, mergeAlertValues, pickAlertValues } from './settings';

const MAX_AGE_SECONDS = 300;

/** What each source last read, until when: values, or that there were none. */
const kept = new Map<string, { until: number; values: AlertValues }>();

/** `read()`'s values, read again only when what was kept under `key` is older than five minutes (failures are not kept). */
async function keptFor(key: string, read: () => Promise<AlertValues>): Promise<AlertValues> {
  const hit = kept.get(key);
  if (hit && hit.until > Date.now()) return hit.values;
  const values = await read();
  kept.set(key, { until: Date.now() + MAX_AGE_SECONDS * 1000, values });
  return values;
}

/** The values kept in the secret `secretId`, when it exists. */
async function fromSecret(secretId: string): Promise<AlertValues> {
  let answer: Record<string, unknown>;
  try {
    answer = await callAwsJson(SECRETS_MANAGER, 'GetSecretValue', { SecretId: secretId });
  } catch (error) {
    if (error instanceof AwsCallError && error.code === 'ResourceNotFoundException') return {};
    throw new Error(`alerts: the secret ${secretId} could not be read: ${(error as Error).message}`);
  }
  // A secret stored as bytes comes as SecretBinary (base64 in the JSON answer): the same JSON, encoded.
  const { SecretString, SecretBinary } = answer;
  const text =
    typeof SecretString === 'string'
      ? SecretString
      : typeof SecretBinary === 'string'
        ? Buffer.from(SecretBinary, 'base64').toString('utf8')
        : '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Said without JSON.parse's own words: they quote the text, which is the secret.
    throw new Error(`alerts: the secret ${secretId} is not JSON (it holds a JSON object of the ALERT_* variables: docs/alerts.md)`);
  }
  return value && typeof value === 'object' ? pickAlertValues(value as Record<string, unknown>) : {};
}

/**
 * The values kept as parameters under `path`: its direct children (not recursive), each named by its variable, every
 * page followed (SSM may answer fewer than asked, with a NextToken). A path with none is an empty list, not an error.
 */
async function fromParameters(path: string): Promise<AlertValues> {
  const values: Record<string, unknown> = {};
  let next: string | undefined;
  try {
    do {
      const page = await callAwsJson(SSM, 'GetParametersByPath', {
        Path: path,
        Recursive: false,
        WithDecryption: true,
        MaxResults: 10,
        ...(next ? { NextToken: next } : {}),
      });
      for (const { Name, Value } of (Array.isArray(page.Parameters) ? page.Parameters : []) as { Name?: unknown; Value?: unknown }[])
        if (typeof Name === 'string') values[Name.slice(Name.lastIndexOf('/') + 1)] = Value;
      next = typeof page.NextToken === 'string' && page.NextToken ? page.NextToken : undefined;
    } while (next);
  } catch (error) {
    throw new Error(`alerts: the parameters under ${path} could not be read: ${(error as Error).message}`);
  }
  return pickAlertValues(values);
}

/** What the secret and then the parameters hold; either source may be left out (undefined or empty). */
export async function remoteAlertValues(sources: { secretId?: string; parametersPath?: string }): Promise<AlertValues> {
  const [secret, parameters] = await Promise.all([
    sources.secretId ? keptFor(`secret:${sources.secretId}`, () => fromSecret(sources.secretId!)) : Promise.resolve({}),
    sources.parametersPath ? keptFor(`ssm:${sources.parametersPath}`, () => fromParameters(sources.parametersPath!)) : Promise.resolve({}),
  ]);
  return mergeAlertValues(secret, parameters);
}
