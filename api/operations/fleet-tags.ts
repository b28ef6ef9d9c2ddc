import { createHash } from 'node:crypto';
import { compareIds } from '@trading-bot-api/core/ids';
import type { Aspect, FleetStamps } from '@trading-bot-api/core/store/fleet-table';

/**
 * The fleet answers' validators (pure: no client, no configuration): a fleet poll reads the fleet's stamps (at most SHARDS + 1 items, whatever the
 * fleet's size) and derives its entity tag from them before reading anything else, so an unchanged poll reads only
 * those. The tag is weak (RFC 9110): equal tags mean equal answers except for what time alone moves (heartbeat
 * times and ages of bots that stay fresh), which is all a stamp leaves out.
 */

/** A weak tag over what the stamps say, per aspect, of exactly the accounts listed. */
export function tagOf(aspect: Aspect, lines: readonly string[]): string {
  return `W/"${aspect}-${createHash('sha256').update(lines.join('\n')).digest('base64url').slice(0, 32)}"`;
}

/**
 * What a fleet answer derives from its stamps alone, kept per stamps object: readStamps answers the same object
 * while nothing changed, so an unchanged poll at 1,000 bots sorts, parses and hashes nothing again.
 */
export function derivedOnce<T>(derive: (stamps: FleetStamps) => T): (stamps: FleetStamps) => T {
  const derived = new WeakMap<FleetStamps, T>();
  return (stamps) => {
    if (!derived.has(stamps)) derived.set(stamps, derive(stamps));
    return derived.get(stamps)!;
  };
}

/** The ids of the accounts whose stamps hold `field`, sorted. */
export function idsWith(stamps: FleetStamps, field: 'profile' | 'bot' | 'balance'): string[] {
  return [...stamps.entries()]
    .filter(([, stamp]) => stamp[field] !== undefined)
    .map(([id]) => id)
    .sort(compareIds);
}
