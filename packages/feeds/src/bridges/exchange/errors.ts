/**
 * What the exchange feed reports of an exchange: one error type, its `kind` saying what to do about it. Kept apart
 * from the client (client.ts) so that what handles these errors (the bridges' runner) never loads ccxt.
 */
export type ExchangeFailure =
  /** The key may do more than read (refused before any read): its message names the permissions to remove. */
  | 'permissions'
  /** The exchange refused the key or its signature (a wrong key or secret, an IP not allowed). */
  | 'refused'
  /** The exchange did not answer, answered 5xx, or kept refusing for the request weight: try again later. */
  | 'unavailable'
  /** Anything else the exchange answered that the feed cannot use. */
  | 'failed';

export class ExchangeFeedError extends Error {
  constructor(
    readonly kind: ExchangeFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ExchangeFeedError';
  }
}
