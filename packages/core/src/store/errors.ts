/**
 * What the store says when DynamoDB does not do what was asked, in the database's own terms. The layers above map
 * these once each: the HTTP layer (api/http/handler.ts) an outage to a 503 and a misconfiguration to a logged 500,
 * the writer to WriterError UNAVAILABLE (retry) or MISCONFIGURED (do not), so neither needs to know the other. A
 * cancelled transaction is TransactionCancelled (dynamodb.ts), with its reasons. Any other failure (a bug of ours:
 * a malformed request, a TypeError) is rethrown as it is and ends as a 500 whose stack is in the log.
 */

/** Why the database could not serve a call. */
export type DatabaseFault = 'unavailable' | 'throttled';

/**
 * An outage: DynamoDB unreachable, too slow or failing on its side (network faults, timeouts, 5xx: `unavailable`),
 * or refusing the load (`throttled`, also when a batch still had unprocessed keys after its retries). Nothing was
 * read or written by the call that failed, or repeating it is safe, and repeating it later may succeed.
 */
export class DatabaseError extends Error {
  constructor(
    readonly fault: DatabaseFault,
    /** The SDK's error name (or the network's code), for logs only; never shown to a client. */
    readonly reason?: string,
  ) {
    super(fault === 'throttled' ? 'the database is throttling requests' : 'the database did not answer');
    this.name = 'DatabaseError';
  }
}

/** What is wrong with the configuration, when DynamoDB refuses us for a reason no retry mends. */
export type Misconfiguration = 'table' | 'permission' | 'credentials';

/**
 * DynamoDB refused the call for a reason that only a change of configuration mends: a table that does not exist
 * (a wrong stage or table name), a permission the role lacks (a missing IAM action), credentials it does not
 * accept. The message says which, naming the tables and DynamoDB's own words (which name the action and resource),
 * for the log and a bot's operator; the API never shows it to a client.
 */
export class DatabaseMisconfigured extends Error {
  constructor(
    readonly kind: Misconfiguration,
    /** The SDK's error name. */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseMisconfigured';
  }
}

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
]);

/**
 * DynamoDB failing on its side, the SDK giving up waiting, or a write that met a transaction on the same item (which
 * the SDK does not retry for a plain Put or Update): a passing fault, safe to try again.
 */
const SERVER_FAULTS = new Set([
  'TransactionConflictException',
  'TransactionInProgressException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'AbortError',
  'NetworkingError',
]);

/** The network's own failures, as Node reports them in `code`. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);

const PERMISSION = new Set(['AccessDeniedException', 'AccessDenied']);

const CREDENTIALS = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'CredentialsProviderError',
]);

type SdkError = Error & {
  code?: unknown;
  errors?: unknown[];
  $fault?: unknown;
  $metadata?: { httpStatusCode?: number };
};

/**
 * The network code of an error, of the first of an AggregateError's (Node's connection attempts to each address), or
 * named in its message: the SDK wraps a thrown value that is not an Error of its own realm (a socket's error, under
 * a test runner's sandbox) in a plain Error whose message is all that is left of it.
 */
function networkCode(error: SdkError): string | undefined {
  if (typeof error.code === 'string' && NETWORK_CODES.has(error.code)) return error.code;
  const first = error.errors?.[0] as SdkError | undefined;
  if (first && typeof first.code === 'string' && NETWORK_CODES.has(first.code)) return first.code;
  return String(error.message ?? '')
    .match(/\bE[A-Z]+\b/g)
    ?.find((word) => NETWORK_CODES.has(word));
}

/**
 * What an SDK failure stands for: an outage (DatabaseError), a misconfiguration (DatabaseMisconfigured, naming
 * `tables`, the tables the call asked for), or neither, in which case the error itself is returned, to be rethrown
 * as it is: a bug, which no retry mends and whose stack belongs in the log.
 */
export function databaseError(error: unknown, tables: readonly string[] = []): Error {
  // Duck-typed, not `instanceof Error`: an error made in another realm (Node's own, under a sandbox) is one too.
  if (typeof error !== 'object' || error === null || typeof (error as Error).message !== 'string') {
    return new Error(`the database client threw a non-error: ${String(error)}`);
  }
  const sdk = error as SdkError;
  const name = String(sdk.name);
  const named = tables.length ? ` (${tables.join(', ')})` : '';
  // DynamoDB's words, their first line only: a signature refusal may go on to quote the canonical request it
  // expected, the session token's header included, which must reach no log.
  const words = String(sdk.message)
    .split(/\n|The Canonical String/)[0]
    .trim()
    .slice(0, 500);
  if (THROTTLING.has(name)) return new DatabaseError('throttled', name);
  if (name === 'ResourceNotFoundException') {
    return new DatabaseMisconfigured(
      'table',
      name,
      `a table the call needs does not exist${named}: check the stage and the table names (${name}: ${words})`,
    );
  }
  if (PERMISSION.has(name)) {
    return new DatabaseMisconfigured('permission', name, `the role lacks a permission for the call${named}: ${words} (${name})`);
  }
  if (CREDENTIALS.has(name)) {
    return new DatabaseMisconfigured('credentials', name, `DynamoDB does not accept the credentials${named}: ${words} (${name})`);
  }
  const code = networkCode(sdk);
  if (code) return new DatabaseError('unavailable', code);
  const status = sdk.$metadata?.httpStatusCode;
  if (SERVER_FAULTS.has(name) || sdk.$fault === 'server' || (status ?? 0) >= 500) return new DatabaseError('unavailable', name);
  // Through the SDK's retries (it notes the attempts) without any HTTP answer: the request never got one. A bug of
  // ours in a step after the retries (signing, the HTTP handler) would be taken as an outage too; none of those steps
  // is ours, and a socket's error seen from a test runner's sandbox arrives only this way (wrapped, its code lost).
  if (sdk.$metadata && status === undefined) return new DatabaseError('unavailable', name === 'Error' ? sdk.message.slice(0, 120) : name);
  return sdk;
}

/** An item of the fleet table that is not what fleet-table.ts writes (a hand edit, a bug): its projection stops there. */
export class FleetItemMalformed extends Error {
  constructor(key: { part: string; key: string }, what: string) {
    super(`the fleet table's item ${key.part} / ${key.key} is malformed: ${what}`);
    this.name = 'FleetItemMalformed';
  }
}

/** A fleet sum other projectors kept rewriting while one tried to: it gave up rather than spin. */
export class FleetSumContended extends Error {
  constructor(key: { part: string; key: string }, attempts: number) {
    super(`the fleet's sum ${key.part} / ${key.key} changed under the projector ${attempts} times in a row`);
    this.name = 'FleetSumContended';
  }
}
