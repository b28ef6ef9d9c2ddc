/**
 * The ALERT_* values a deployed stage keeps in AWS, read at run time through Powertools' Parameters utility: the
 * Secrets Manager secret named by ALERT_SECRET_ID (a JSON object of the variables) and the SSM parameters under
 * ALERT_PARAMETERS_PATH (SecureString, one per variable, decrypted). Both are kept for five minutes per instance, so
 * a warm notifier does not read them for every alarm, and a changed value is used within five minutes.
 * A secret or path that does not exist means no channel is configured there; any other failure (no permission, no
 * answer) is an error: the notifier then fails, and its event waits in the on-failure queue.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { type AlertValues, mergeAlertValues, pickAlertValues } from './settings';

const MAX_AGE_SECONDS = 300;

let secrets: SecretsProvider | undefined;
let parameters: SSMProvider | undefined;

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

/** The values kept as parameters under `path`. */
async function fromParameters(path: string): Promise<AlertValues> {
  parameters ??= new SSMProvider();
  try {
    const values = await parameters.getMultiple(path, { maxAge: MAX_AGE_SECONDS, decrypt: true, recursive: false });
    return pickAlertValues((values ?? {}) as Record<string, unknown>);
  } catch (error) {
    if (isMissing(error)) return {};
    throw new Error(
      `alerts: the parameters under ${path} could not be read (${(error as { cause?: Error }).cause?.name ?? (error as Error).name})`,
    );
  }
}

/** What the secret and then the parameters hold; either source may be left out (undefined or empty). */
export async function remoteAlertValues(sources: { secretId?: string; parametersPath?: string }): Promise<AlertValues> {
  const [secret, kept] = await Promise.all([
    sources.secretId ? fromSecret(sources.secretId) : Promise.resolve({}),
    sources.parametersPath ? fromParameters(sources.parametersPath) : Promise.resolve({}),
  ]);
  return mergeAlertValues(secret, kept);
}
