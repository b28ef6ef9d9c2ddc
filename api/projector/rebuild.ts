/**
 * The fleet's summary made right again from the tables (`npm run backfill`, a step of upgrading a stage, and what an
 * alarm on the projector's on-failure queue asks for): every currency's account list set to the accounts table's,
 * every sum recounted from its accounts' own figures and written where it differs (a malformed one overwritten), and
 * every fleet answer's version moved, so that a tag a skipped change left unmoved is not answered 304 any more. Safe
 * while bots write and the projector runs: a list changes by a set's add and delete, and each sum is read before the
 * accounts' figures and written on condition that it did not change meanwhile.
 */
import pMap from 'p-map';
import { ABOVE_EVERY_ID } from '@trading-bot-api/core/ids';
import { ASPECTS } from '@trading-bot-api/core/fleet';
import { scanAll, type Store } from '@trading-bot-api/core/store/dynamodb';
import { bumpVersions, readMembers, rebuildSum, writeMembers } from '@trading-bot-api/core/store/fleet-table';
import { entryPrefix, readKeyRange } from '@trading-bot-api/core/store/ledger-table';
import { type Summand, summandOf } from './project';

const SUMS_AT_ONCE = 16;

/**
 * What it did: the accounts read, those added to or taken out of their currency's list (`listed`), the sums
 * recounted, and how many of them were missing or wrong (`sumsWritten`).
 */
export async function rebuildFleet(store: Store) {
  const [accounts, listed] = await Promise.all([scanAll(store, store.tables.accounts, true), readMembers(store)]);
  const currencyOf = new Map(accounts.map((item) => [String(item.accountId), String(item.currency)]));
  const members = [
    ...[...currencyOf]
      .filter(([id, currency]) => !listed.get(currency)?.includes(id))
      .map(([accountId, currency]) => ({ accountId, currency, present: true })),
    ...[...listed].flatMap(([currency, ids]) =>
      ids.filter((id) => currencyOf.get(id) !== currency).map((accountId) => ({ accountId, currency, present: false })),
    ),
  ];
  await writeMembers(store, members);

  // Every sum any account has figures in: its currency's roll-up periods, the fleet's P&L aggregates.
  const sums = new Map<string, { summand: Summand; ids: string[] }>();
  for (const [accountId, currency] of currencyOf) {
    const ranges = [entryPrefix('perf'), entryPrefix('pnl')].map((prefix) =>
      readKeyRange(store, accountId, prefix, `${prefix}${ABOVE_EVERY_ID}`),
    );
    for (const item of (await Promise.all(ranges)).flat()) {
      const summand = summandOf(store, item, currency);
      const id = `${summand.place.key.part}/${summand.place.key.key}`;
      const sum = sums.get(id) ?? { summand, ids: [] };
      sum.ids.push(accountId);
      sums.set(id, sum);
    }
  }
  const written = await pMap(sums.values(), (sum) => rebuildSum(store, sum.summand.place, sum.ids, sum.summand.read), {
    concurrency: SUMS_AT_ONCE,
  });
  await bumpVersions(store, ASPECTS);
  return { accounts: accounts.length, listed: members.length, sums: sums.size, sumsWritten: written.filter(Boolean).length };
}
