import { createHash } from 'node:crypto';
import { compareIds } from '../access';
import { balanceKey, toBalanceRecord } from '../store/balances-table';
import { batchGetItems } from '../store/dynamodb';
import { type Aspect, type FleetStamps, readStamps } from '../store/fleet-table';
import type { Balance, Principal } from '../types';
import { type Held, Validated } from './validated';
import { store } from './store';

/**
 * The fleet answers' validators: a fleet poll reads the fleet's stamps (at most SHARDS + 1 items, whatever the
 * fleet's size) and derives its entity tag from them before reading anything else, so an unchanged poll reads only
 * those. The tag is weak (RFC 9110): equal tags mean equal answers except for what time alone moves (heartbeat
 * times and ages of bots that stay fresh), which is all a stamp leaves out.
 */

/** A weak tag over what the stamps say, per aspect, of exactly the accounts listed. */
export function tagOf(aspect: Aspect, lines: readonly string[]): string {
  return `W/"${aspect}-${createHash('sha256').update(lines.join('\n')).digest('base64url').slice(0, 32)}"`;
}

/** The ids of the accounts whose stamps hold `field`, sorted. */
export function idsWith(stamps: FleetStamps, field: 'profile' | 'bot' | 'balance'): string[] {
  return [...stamps.entries()]
    .filter(([, stamp]) => stamp[field] !== undefined)
    .map(([id]) => id)
    .sort(compareIds);
}

/** The tag of `/api/accounts`: the profiles of the accounts the principal may see. */
export async function accountsTag(principal: Principal): Promise<string | undefined> {
  const stamps = await readStamps(store, 'profile', principal.accounts);
  if (!stamps) return undefined;
  return tagOf(
    'profile',
    idsWith(stamps, 'profile').map((id) => `${id} ${stamps.get(id)!.profile}`),
  );
}

/**
 * The balances items this instance has read, by account, each with its version. A changed poll reads only the
 * accounts whose stamped version differs from the one held, so its cost follows what changed, not the fleet.
 */
const balances = new Map<string, { version: number; balance: Balance }>();

/**
 * The balances of the accounts the principal may see, sorted by id, through the instance's cache, with
 * the tag of `/api/all/balance` (their versions). Undefined when the stamps are not complete.
 */
export async function stampedBalances(principal: Principal, held: Held): Promise<Validated<Balance[]> | undefined> {
  const stamps = await readStamps(store, 'balance', principal.accounts);
  if (!stamps) return undefined;
  const ids = idsWith(stamps, 'balance');
  const version = (id: string) => Number(stamps.get(id)!.balance);
  const tag = tagOf(
    'balance',
    ids.map((id) => `${id} ${version(id)}`),
  );
  if (held(tag)) return new Validated(tag);
  const behind = (id: string) => (balances.get(id)?.version ?? -1) < version(id);
  // Eventually consistent first; an item read older than its stamp (a replica behind the write) is read again
  // consistently, so the body is never older than the tag says.
  for (const consistent of [false, true]) {
    const missing = ids.filter(behind);
    if (!missing.length) break;
    const items = (await batchGetItems(store, { [store.tables.balances]: missing.map(balanceKey) }, consistent))[store.tables.balances];
    for (const { lastTradeAt, snapshotAt, version, ...balance } of items.map(toBalanceRecord)) {
      if ((balances.get(balance.accountId)?.version ?? -1) < version) balances.set(balance.accountId, { version, balance });
    }
  }
  return new Validated(
    tag,
    ids.flatMap((id) => balances.get(id)?.balance ?? []),
  );
}
