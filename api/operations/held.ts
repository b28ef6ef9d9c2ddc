/**
 * The per-instance caches of the scrape (metrics.ts) and the comparison (comparison.ts), one rule for both.
 */

/**
 * What this instance read of each account, kept under a stamp (the day, and what moves with the figures): the values
 * of `ids`, read by `read` only for those whose stamp moved since (an account without a stamp is read every time).
 */
export async function readHeld<V>(
  held: Map<string, { stamp: string; value: V }>,
  ids: readonly string[],
  stampOf: (id: string) => string | undefined,
  read: (stale: string[]) => Promise<Iterable<readonly [string, V]>>,
): Promise<Map<string, V | undefined>> {
  const stale = ids.filter((id) => stampOf(id) === undefined || held.get(id)?.stamp !== stampOf(id));
  // A warm poll with nothing moved calls no reader at all (each is an async chain of batch helpers: some 0.1 ms).
  const fresh = new Map(stale.length ? await read(stale) : []);
  for (const id of stale) {
    const stamp = stampOf(id);
    if (stamp === undefined) held.delete(id);
    else held.set(id, { stamp, value: fresh.get(id) as V });
  }
  return new Map(ids.map((id) => [id, fresh.has(id) ? fresh.get(id) : held.get(id)?.value]));
}
