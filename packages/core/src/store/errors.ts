/**
 * What the store says when DynamoDB does not do what was asked, in the database's own terms. The layers above map
 * these once each: the HTTP layer to a 503 problem (api/http/handler.ts), the writer to WriterError UNAVAILABLE, so
 * neither needs to know the other. A cancelled transaction is TransactionCancelled (dynamodb.ts), with its reasons.
 */

/** Why the database could not serve a call. */
export type DatabaseFault = 'unavailable' | 'throttled';

/**
 * DynamoDB did not serve a call: unreachable, too slow or failing (`unavailable`), or refusing the load
 * (`throttled`, also when a batch still had unprocessed keys after its retries). Nothing was read or written by the
 * call that failed, or repeating it is safe.
 */
export class DatabaseError extends Error {
  constructor(
    readonly fault: DatabaseFault,
    /** The SDK's error name, for logs only; never shown to a client. */
    readonly cause?: string,
  ) {
    super(fault === 'throttled' ? 'the database is throttling requests' : 'the database did not answer');
    this.name = 'DatabaseError';
  }
}

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
]);

/** The DatabaseError an SDK failure stands for. */
export function databaseError(error: unknown): DatabaseError {
  const name = error instanceof Error ? error.name : undefined;
  return new DatabaseError(name !== undefined && THROTTLING.has(name) ? 'throttled' : 'unavailable', name);
}
