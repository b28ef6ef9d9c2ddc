import { HTTP, notAcceptable } from '../errors';
import { negotiate } from './negotiation';

/**
 * An answer's representations: JSON, which every operation has, and the others an operation may offer instead (the
 * trades' CSV, the metrics' Prometheus text); which one a request gets, and its response. The one composition
 * (handler.ts) calls these for every operation, so no handler renders or negotiates by itself.
 */

/** What a representation's renderer may need of the request besides the body: its raw query (for links). */
export interface RenderRequest {
  query: Record<string, readonly string[] | undefined>;
}

/**
 * One representation of an operation's answer. An operation offering several lists them, its preferred first; the
 * client picks one with the `format` parameter (when the operation takes one) or `Accept`. Rendering here, once,
 * keeps the handlers to their typed bodies.
 */
export interface Representation<T> {
  /** The `format` parameter's value that asks for it. */
  format: string;
  /** Its Content-Type; `Accept` is matched against its type and subtype. */
  mediaType: string;
  /** Asked for by `format` only: a layout that shares another's media type (CoinTracking's is CSV too). */
  byFormatOnly?: boolean;
  render: (body: T, request: RenderRequest) => string | Promise<string>;
  /** Headers this representation adds (the next page's Link). */
  headers?: (body: T, request: RenderRequest) => Record<string, string>;
}

/** The API's own representation, which every operation has unless it says otherwise. */
export const JSON_REPRESENTATION: Representation<unknown> = {
  format: 'json',
  mediaType: 'application/json; charset=utf-8',
  render: (body) => JSON.stringify(body),
};

/**
 * The representation a request asks for among `offered`: by its `format` parameter when given (its parser has
 * checked the value), else by `Accept`; a 406 when `Accept` allows none. Only operations with more than one
 * representation, or one that is not JSON, look at `Accept`.
 */
export function chosenRepresentation<T>(
  offered: readonly Representation<T>[],
  format: unknown,
  accept: string | undefined,
): Representation<T> {
  if (typeof format === 'string') return offered.find((representation) => representation.format === format) ?? offered[0];
  if (offered.length === 1 && offered[0] === JSON_REPRESENTATION) return offered[0];
  const negotiable = offered.filter((representation) => !representation.byFormatOnly);
  const types = negotiable.map((representation) => representation.mediaType);
  const chosen = negotiate(accept, types);
  if (chosen === undefined) throw notAcceptable(types.map((type) => type.split(';')[0]));
  return negotiable[chosen];
}

/** A 200's response in `representation`; a negotiated one says it varies by Accept. */
export async function represented<T>(representation: Representation<T>, body: T, request: RenderRequest, negotiated: boolean) {
  return {
    statusCode: HTTP.OK,
    headers: {
      'Content-Type': representation.mediaType,
      ...(negotiated ? { Vary: 'Accept' } : {}),
      ...representation.headers?.(body, request),
    },
    body: await representation.render(body, request),
  };
}
