/**
 * The ALERT_* values a deployed stage keeps in AWS, read at run time through Powertools Parameters over the SDK's own
 * clients: the Secrets Manager secret named by ALERT_SECRET_ID (a JSON object of the variables) and the SSM parameters
 * under ALERT_PARAMETERS_PATH (SecureString, one per variable, decrypted, every page followed). Each is kept five
 * minutes per instance, so a warm notifier does not read them for every alarm, and a changed value is used within five
 * minutes; a failure is not kept. A secret that does not exist means no channel is configured there; any other failure
 * (no permission, no answer after the SDK's three attempts) is an error naming its cause, never a value: the notifier
 * then fails, and its event waits in the on-failure queue.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type AlertValues, channelsOf, localAlertValues, mergeAlertValues } from './settings';

const MAX_AGE_SECONDS = 300;

let providers: { secrets: SecretsProvider; ssm: SSMProvider } | undefined;

/** The providers, made at first use (a command sets its region first): per attempt 2 s to connect, 5 s to answer. */
function providersOf() {
  const requestHandler = () => new NodeHttpHandler({ connectionTimeout: 2_000, requestTimeout: 5_000, throwOnRequestTimeout: true });
  providers ??= {
    secrets: new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({ requestHandler: requestHandler() }) }),
    ssm: new SSMProvider({ awsSdkV3Client: new SSMClient({ requestHandler: requestHandler() }) }),
  };
  return providers;
}

type SdkError = { name?: string; code?: unknown; message?: unknown; $metadata?: { httpStatusCode?: number; attempts?: number } };

/** The SDK's error under Powertools' GetParameterError. */
const sdkError = (error: unknown): SdkError => ((error as { cause?: SdkError }).cause ?? error) as SdkError;

/**
 * Why a call failed, in a line that quotes no value: the service's refusal, its failure at every attempt, or the
 * network's. Only the first line of the service's words: a signature refusal goes on to quote the canonical request
 * it expected, session token included.
 */
function failureOf(service: string, operation: string, error: unknown): string {
  const { name, code, message, $metadata } = sdkError(error);
  const words = String(message ?? '')
    .split(/\n|The Canonical String/)[0]
    .trim()
    .slice(0, 300);
  const status = $metadata?.httpStatusCode;
  const attempts = $metadata?.attempts ?? 1;
  if (status === undefined) {
    const network = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : name === 'TimeoutError' ? name : undefined;
    return network ? `${service} did not answer ${operation} (${network})` : `${service} cannot be called: ${words}`;
  }
  // The SDK tries again only what may pass (throttling, 5xx): what it tried once was refused for good.
  if (attempts > 1 || status >= 500) return `${service} failed ${operation} (${name}, HTTP ${status}) in ${attempts} attempts`;
  return `${service} refused ${operation}: ${name}${words ? `: ${words}` : ''}`;
}

/** The values kept in the secret `secretId`, when it exists. */
async function fromSecret(secretId: string): Promise<AlertValues> {
  let value: string | Uint8Array | undefined;
  try {
    value = await providersOf().secrets.get(secretId, { maxAge: MAX_AGE_SECONDS });
  } catch (error) {
    if (sdkError(error).name === 'ResourceNotFoundException') return {};
    throw new Error(`alerts: the secret ${secretId} could not be read: ${failureOf('Secrets Manager', 'GetSecretValue', error)}`);
  }
  let parsed: unknown;
  try {
    // A secret stored as bytes is the same JSON, encoded.
    parsed = JSON.parse(typeof value === 'string' ? value : Buffer.from(value ?? '').toString('utf8'));
  } catch {
    // Said without JSON.parse's own words: they quote the text, which is the secret.
    throw new Error(`alerts: the secret ${secretId} is not JSON (it holds a JSON object of the ALERT_* variables: docs/alerts.md)`);
  }
  return parsed && typeof parsed === 'object' ? mergeAlertValues(parsed as Record<string, unknown>) : {};
}

/** The values kept as parameters under `path`, its direct children each named by its variable (none: an empty list). */
async function fromParameters(path: string): Promise<AlertValues> {
  try {
    const values = await providersOf().ssm.getMultiple(path, {
      maxAge: MAX_AGE_SECONDS,
      decrypt: true,
      recursive: false,
      sdkOptions: { MaxResults: 10 },
    });
    return mergeAlertValues(values ?? {});
  } catch (error) {
    throw new Error(`alerts: the parameters under ${path} could not be read: ${failureOf('SSM', 'GetParametersByPath', error)}`);
  }
}

/**
 * The ALERT_* values of `env` (and their files), then of the stage's secret and parameters: those of `sources` (either
 * may be left out: undefined or empty), or with a `stage` those a deployed stage keeps (serverless.yml's
 * ALERT_SECRET_ID and ALERT_PARAMETERS_PATH), as the commands ask with --stage.
 */
export async function configuredAlertValues(
  env: Record<string, string | undefined>,
  sources: { stage?: string; secretId?: string; parametersPath?: string },
): Promise<AlertValues> {
  const { stage } = sources;
  const secretId = stage ? `trading-bot-api/${stage}/alerts` : sources.secretId;
  const parametersPath = stage ? `/trading-bot-api/${stage}/alerts` : sources.parametersPath;
  const [secret, parameters] = await Promise.all([
    secretId ? fromSecret(secretId) : {},
    parametersPath ? fromParameters(parametersPath) : {},
  ]);
  return mergeAlertValues(localAlertValues(env), secret, parameters);
}

/** The channels those values configure, with a line for each channel configured wrong (settings.ts). */
export async function configuredChannels(
  env: Record<string, string | undefined>,
  sources: { stage?: string; secretId?: string; parametersPath?: string },
): Promise<ReturnType<typeof channelsOf>> {
  return channelsOf(await configuredAlertValues(env, sources));
}
