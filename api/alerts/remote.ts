/**
 * The ALERT_* values a deployed stage keeps in AWS, read at run time: the Secrets Manager secret named by
 * ALERT_SECRET_ID (a JSON object of the variables), through Powertools' Parameters utility, and the SSM parameters
 * under ALERT_PARAMETERS_PATH (SecureString, one per variable, decrypted), by one signed call a page (aws-json.ts).
 * Both are kept for five minutes per instance, so a warm notifier does not read them for every alarm, and a changed
 * value is used within five minutes. A secret or path that does not exist means no channel is configured there; any
 * other failure (no permission, no answer) is an error: the notifier then fails, and its event waits in the
 * on-failure queue.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { callAwsJson, SSM } from './aws-json';
import { type AlertValues, mergeAlertValues, pickAlertValues } from './settings';

const MAX_AGE_SECONDS = 300;

let secrets: SecretsProvider | undefined;

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

function isMissing(error: unknown): boolean {
  const cause = (error as { cause?: { name?: string } }).cause;
  return cause?.name === 'ResourceNotFoundException' || cause?.name === 'ParameterNotFound';
}

/** The values kept in the secret `secretId`, when it exists. */
async function fromSecret(secretId: string): Promise<AlertValues> {
  secrets ??= new SecretsProvider();
  try {
    const value = await secrets.get(secretId, { maxAge: MAX_AGE_SECONDS, transform: 'json' });
    return value && typeof value === 'object' ? pickAlertValues(value as Record<string, unknown>) : {};
  } catch (error) {
    if (isMissing(error)) return {};
    throw new Error(
      `alerts: the secret ${secretId} could not be read (${(error as { cause?: Error }).cause?.name ?? (error as Error).name})`,
    );
  }
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
  const [secret, kept] = await Promise.all([
    sources.secretId ? fromSecret(sources.secretId) : Promise.resolve({}),
    sources.parametersPath ? keptFor(`ssm:${sources.parametersPath}`, () => fromParameters(sources.parametersPath!)) : Promise.resolve({}),
  ]);
  return mergeAlertValues(secret, kept);
}
