/**
 * An answer tagged before it is read (the fleet's, api/operations/fleet.ts). A leaf module: the HTTP layer maps it to
 * a 200 or a 304 without loading an operation.
 */

/** An answer with its entity tag; no body when the tag is one the client holds (the caller answers 304). */
export class Validated<T> {
  constructor(
    readonly tag: string,
    readonly body?: T,
  ) {}

  /** The same answer with its body shaped by `shape` (none stays none: a 304). */
  map<U>(shape: (body: T) => U): Validated<U> {
    return new Validated(this.tag, this.body === undefined ? undefined : shape(this.body));
  }
}

/**
 * Whether the client already holds the answer with this tag (If-None-Match, read by the HTTP layer); `tags` are the
 * ones it named (a tag may say how long it holds: the fleet status's).
 */
export type Held = ((tag: string) => boolean) & { readonly tags: readonly string[] };

/** The Held of an If-None-Match header's value (undefined: none sent). */
export function heldOf(ifNoneMatch: string | undefined, matches: (header: string, tag: string) => boolean): Held {
  return Object.assign((tag: string) => ifNoneMatch !== undefined && matches(ifNoneMatch, tag), {
    tags: ifNoneMatch?.split(',').map((tag) => tag.trim()) ?? [],
  });
}

/** The answer tagged `tag`, read by `read` only when the client does not hold it already. */
export async function unlessHeld<T>(tag: string, held: Held, read: () => Promise<T>): Promise<Validated<T>> {
  if (held(tag)) return new Validated(tag);
  return new Validated(tag, await read());
}
