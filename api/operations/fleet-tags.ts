import { createHash } from 'node:crypto';
import type { Aspect } from '@trading-bot-api/core/fleet';
import type { FleetVersion } from '@trading-bot-api/core/store/fleet-table';
import { type Held, Validated } from './validated';

/**
 * The fleet answers' weak tags (RFC 9110: equal tags, equal answers but for what time alone moves), pure: no client,
 * no configuration. A key that sees every account gets a tag made of the answer's version in the fleet table (the
 * status's also says in clear until when it holds); a key that sees some accounts, one made of what their items show.
 */

/** A weak tag over `parts`, per answer: `W/"<aspect>-<32 characters>"`, the first ones `head` when given. */
export function tagOf(aspect: Aspect | 'comparison', parts: readonly unknown[], head = ''): string {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
  return `W/"${aspect}-${head}${digest.slice(0, 32 - head.length)}"`;
}

/** The tag of a version of an answer for every account. */
export function versionTag(aspect: Aspect, version: FleetVersion, head = ''): string {
  return tagOf(aspect, [version.epoch, version.n, head], head);
}

/** The answer tagged `tag`, with `body` unless the client holds it. */
export function tagged<T>(tag: string, held: Held, body: T): Validated<T> {
  return held(tag) ? new Validated(tag) : new Validated(tag, body);
}

/** Until when a status tag holds, at its head: epoch seconds in base 36, or never (no bot can turn stale by time). */
const NEVER = 'zzzzzzz';

/** The status's tag of `version` for an answer that holds until `changesAt` (epoch ms; Infinity: until the version moves). */
export function statusTag(version: FleetVersion, changesAt: number): string {
  const expiry = Number.isFinite(changesAt)
    ? Math.floor(changesAt / 1000)
        .toString(36)
        .padStart(NEVER.length, '0')
    : NEVER;
  return versionTag('status', version, expiry);
}

/** The status tag of `version` the client holds, if it still holds at `now`. */
export function heldStatusTag(held: Held, version: FleetVersion, now: number): string | undefined {
  for (const sent of held.tags) {
    const expiry = /status-([0-9a-z]{7})/.exec(sent)?.[1];
    if (!expiry || (expiry !== NEVER && now >= Number.parseInt(expiry, 36) * 1000)) continue;
    const tag = versionTag('status', version, expiry);
    if (held(tag)) return tag;
  }
  return undefined;
}
