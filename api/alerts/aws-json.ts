/**
 * One call of an AWS API that speaks JSON 1.1, as SSM and Secrets Manager do: a POST to the endpoint of the input as
 * JSON, the operation named by `X-Amz-Target`, signed with SigV4; the answer is JSON, or an error named by `__type`.
 *
 * Not the services' own SDK clients: each bundles its whole API (every operation's schema, its endpoint rules, its
 * errors; SSM's 209 KB, Secrets Manager's 27 KB) for the one read the notifier makes of each, which made the
 * notifier's bundle 1.6 times the baseline's and its cold start over a third slower (issue 29). What a call needs
 * is in the DynamoDB client, already in every bundle: the SDK's signer, HTTP handler, credential chain, region and
 * retry strategy. Built from those, a call costs a few KB and behaves as the SDK's would: the same credentials and
 * region (the Lambda role, the environment, the profile), the same endpoint settings (AWS_ENDPOINT_URL_SSM and the
 * like), and up to three attempts with the SDK's backoff when the service throttles, fails or does not answer.
 */
import { partition } from '@aws-sdk/core/client';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { loadConfig, NODE_REGION_CONFIG_FILE_OPTIONS, NODE_REGION_CONFIG_OPTIONS } from '@smithy/core/config';
import { isThrottlingError, StandardRetryStrategy } from '@smithy/core/retry';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';

/** A JSON 1.1 service: how the SDK names it, how its calls are signed, and how they name their operation. */
export interface JsonService {
  /** The SDK's service id: its endpoint variable is AWS_ENDPOINT_URL_ and this in capitals, spaces as underscores. */
  id: string;
  /** The service in the signature's scope, and the first label of its regional host. */
  signingName: string;
  /** What X-Amz-Target puts before the operation's name. */
  targetPrefix: string;
}

export const SSM: JsonService = { id: 'SSM', signingName: 'ssm', targetPrefix: 'AmazonSSM' };
export const SECRETS_MANAGER: JsonService = { id: 'Secrets Manager', signingName: 'secretsmanager', targetPrefix: 'secretsmanager' };

/** As many as the SDK's clients make (the notifier's timeout, 60 s, holds three of the slowest). */
const MAX_ATTEMPTS = 3;

/**
 * `refused`: the service said no for a reason only configuration mends (a permission, a credential, a name that does
 * not exist; so do a missing region and a malformed endpoint); `throttled` and `unavailable` are outages: it refused
 * the load, or failed on its side or did not answer, at every attempt.
 */
export type AwsFault = 'refused' | 'throttled' | 'unavailable';

/**
 * Why a call failed: its fault, and its `code`: the service's error (e.g. AccessDeniedException,
 * ThrottlingException), the network's (ECONNREFUSED, TimeoutError), the HTTP status, or NoRegion, InvalidEndpoint.
 */
export class AwsCallError extends Error {
  constructor(
    readonly fault: AwsFault,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AwsCallError';
  }
}

let credentials: ReturnType<typeof defaultProvider> | undefined;
let handler: NodeHttpHandler | undefined;
let retries: StandardRetryStrategy | undefined;

/** The endpoint the SDK would take from its settings: AWS_ENDPOINT_URL_<ID>, AWS_ENDPOINT_URL, or the profile's. */
function configuredEndpoint(service: JsonService): Promise<string | undefined> {
  const key = service.id.replace(/ /g, '_');
  return loadConfig<string | undefined>({
    environmentVariableSelector: (env) => env[`AWS_ENDPOINT_URL_${key.toUpperCase()}`] || env.AWS_ENDPOINT_URL || undefined,
    configFileSelector: (profile, config) => {
      const services = profile.services ? config?.[`services.${profile.services}`] : undefined;
      return services?.[`${key.toLowerCase()}.endpoint_url`] || profile.endpoint_url || undefined;
    },
    default: undefined,
  })();
}

/** The service's error code, as JSON 1.1 may prefix or suffix it (`com.amazon.coral.service#AccessDeniedException`, `X:http://…`). */
function errorCode(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !raw) return undefined;
  return raw.split(':')[0].split('#').pop() || undefined;
}

/**
 * The first line of a service's words, shortened: a signature refusal goes on to quote the canonical request it
 * expected, session token included, which must reach no log.
 */
function wordsOf(raw: unknown): string {
  return String(raw ?? '')
    .split(/\n|The Canonical String/)[0]
    .trim()
    .slice(0, 300);
}

/** One signed attempt: the answer's JSON, or an AwsCallError naming the service's refusal or failure. */
async function attempt(service: JsonService, operation: string, body: string): Promise<Record<string, unknown>> {
  const region = await loadConfig(NODE_REGION_CONFIG_OPTIONS, NODE_REGION_CONFIG_FILE_OPTIONS)().catch(() => {
    throw new AwsCallError('refused', 'NoRegion', `${service.id} cannot be called: no region (AWS_REGION, or the profile's)`);
  });
  const endpoint = (await configuredEndpoint(service)) ?? `https://${service.signingName}.${region}.${partition(region).dnsSuffix}`;
  if (!URL.canParse(endpoint))
    throw new AwsCallError('refused', 'InvalidEndpoint', `${service.id}'s configured endpoint is not a URL: ${endpoint}`);
  const url = new URL(endpoint);
  const request = new HttpRequest({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'content-length': String(Buffer.byteLength(body)),
      'x-amz-target': `${service.targetPrefix}.${operation}`,
    },
    body,
  });
  credentials ??= defaultProvider();
  const signer = new SignatureV4({ service: service.signingName, region, credentials, sha256: Sha256 });
  // Per attempt: an unreachable endpoint fails in 2 s, a hung one in 5 s (and the call ends, not only a warning).
  handler ??= new NodeHttpHandler({ connectionTimeout: 2_000, requestTimeout: 5_000, throwOnRequestTimeout: true });
  const { response } = await handler.handle((await signer.sign(request)) as HttpRequest);
  const text = Buffer.from(await streamCollector(response.body)).toString('utf8');
  let answer: Record<string, unknown> | undefined;
  try {
    answer = JSON.parse(text || '{}');
  } catch {
    // Not JSON (a proxy's page): said by its status only. Never with the text: a cut answer may hold the secrets.
  }
  const status = response.statusCode;
  if (status >= 200 && status < 300) {
    if (answer && typeof answer === 'object') return answer;
    throw new AwsCallError('unavailable', `HTTP ${status}`, `${service.id} answered ${operation} with something other than JSON`);
  }
  const code = errorCode(response.headers['x-amzn-errortype']) ?? errorCode(answer?.__type) ?? `HTTP ${status}`;
  // The SDK's list of throttling codes (ThrottlingException, TooManyRequestsException, …, and any 429).
  const shaped = { name: code, message: code, $metadata: { httpStatusCode: status } } as Parameters<typeof isThrottlingError>[0];
  if (isThrottlingError(shaped)) throw new AwsCallError('throttled', code, `${service.id} throttled ${operation} (${code})`);
  if (status >= 500) throw new AwsCallError('unavailable', code, `${service.id} failed ${operation} (${code}, HTTP ${status})`);
  const words = wordsOf(answer?.message ?? answer?.Message);
  throw new AwsCallError('refused', code, `${service.id} refused ${operation}: ${code}${words ? `: ${words}` : ''}`);
}

/** What went wrong before or around the service's answer, as an AwsCallError; anything else (a bug) as it is. */
function failureOf(service: JsonService, operation: string, error: unknown): unknown {
  if (error instanceof AwsCallError) return error;
  const { name, code, message } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  // No credentials or no region: the SDK's providers say which, and no retry mends it.
  if (name === 'CredentialsProviderError' || name === 'ProviderError')
    return new AwsCallError('refused', String(name), `${service.id} cannot be called: ${wordsOf(message)}`);
  // The network's own failures (ECONNREFUSED, ENOTFOUND, …; not Node's ERR_* of a bad argument) and the handler's
  // timeouts: no answer.
  const cause = typeof code === 'string' && /^E[A-Z]+$/.test(code) ? code : name === 'TimeoutError' ? name : undefined;
  if (cause) return new AwsCallError('unavailable', cause, `${service.id} did not answer ${operation} (${cause})`);
  return error;
}

/**
 * Calls `operation` of `service` with `input` and returns its answer; throws an AwsCallError when the service
 * refused it, or still throttled, failed or did not answer at the last attempt. Neither the input nor the answer is
 * ever part of an error: the answer may hold secrets.
 */
export async function callAwsJson(service: JsonService, operation: string, input: object): Promise<Record<string, unknown>> {
  const body = JSON.stringify(input);
  retries ??= new StandardRetryStrategy(MAX_ATTEMPTS);
  let token = await retries.acquireInitialRetryToken(service.signingName);
  for (let attempts = 1; ; attempts++) {
    try {
      const answer = await attempt(service, operation, body);
      retries.recordSuccess(token);
      return answer;
    } catch (error) {
      const failure = failureOf(service, operation, error);
      if (!(failure instanceof AwsCallError) || failure.fault === 'refused') throw failure;
      try {
        // Waits the SDK's backoff (longer after throttling); throws when the attempts or the retry budget are spent.
        token = await retries.refreshRetryTokenForRetry(token, { errorType: failure.fault === 'throttled' ? 'THROTTLING' : 'TRANSIENT' });
      } catch {
        throw new AwsCallError(failure.fault, failure.code, `${failure.message} in ${attempts} attempt${attempts > 1 ? 's' : ''}`);
      }
    }
  }
}
