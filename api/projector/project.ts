/**
 * The fleet projector: the one writer of the fleet table (packages/core/src/store/fleet-table.ts). It reads the changes
 * of the accounts, balances and ledger tables from their streams (deployed: an event source mapping per table invokes
 * functions/fleet-projector.ts; locally: scripts/local-stack/stream-pump.ts) and applies the rules of
 * packages/core/src/fleet.ts to them: the versions of the answers a change moves, each currency's accounts, its sums.
 * Whatever wrote a change (this writer, an older one, a script, a hand edit) shows in the next fleet poll.
 *
 * What it writes is idempotent (a version moved again, a set's add, a sum that holds each account's version), so a
 * record delivered twice leaves what one delivery leaves. A record it cannot project fails alone: the rest of its
 * batch is applied, and the record is named in `failures` (the mapping's partial batch response).
 */
import pMap from 'p-map';
import tables from '../../resources/tables.js';
import { toAccount, toBotReport } from '@trading-bot-api/core/store/accounts-table';
import { toBalance, toBalanceRecord } from '@trading-bot-api/core/store/balances-table';
import { batchGetItems, type Item, type Store } from '@trading-bot-api/core/store/dynamodb';
import {
  type AccountFacts,
  type Aspect,
  accountMoves,
  type BalanceFacts,
  balanceMoves,
  pnlShare,
  type SumChange,
} from '@trading-bot-api/core/fleet';
import {
  bumpVersions,
  foldIntoSum,
  periodSum,
  pnlSum,
  type ReadContributions,
  type SumPlace,
  writeMembers,
} from '@trading-bot-api/core/store/fleet-table';
import { getPeriodOfOwners, getPnlOfAccounts, isEntryOf, toPeriodEntry, toPnlEntry } from '@trading-bot-api/core/store/ledger-table';
import { accountKey, retiredAtOf } from '@trading-bot-api/core/store/accounts-table';

/** A table whose stream the projector reads (resources/tables.js's STREAMED_TABLES: the one list). */
export type Source = 'accounts' | 'balances' | 'ledger';

export const SOURCES = tables.STREAMED_TABLES as Source[];

/** One change of a source table as its stream tells it: its id (the sequence number), the item before and after. */
export interface SourceRecord {
  id: string;
  source: Source;
  before?: Item;
  after?: Item;
}

export interface Projection {
  store: Store;
  /** The stage's stale threshold (the status's version follows staleness: fleet.ts's accountMoves). */
  staleAfterSeconds: number;
  now?: () => Date;
}

/** What a batch did: the answers it moved, the sums it folded, and the records it could not project, with why. */
export interface Projected {
  moved: Aspect[];
  sums: number;
  failures: { id: string; error: unknown }[];
}

/** Sums folded at once: a batch of a history's import touches hundreds of periods. */
const FOLDS_AT_ONCE = 16;

function accountFacts(item: Item | undefined): AccountFacts | undefined {
  return item && { account: toAccount(item), bot: toBotReport(item), retiredAt: retiredAtOf(item) };
}

function balanceFacts(item: Item | undefined): BalanceFacts | undefined {
  if (!item) return undefined;
  const { lastTradeAt, retiredAt } = toBalanceRecord(item);
  return { balance: toBalance(item), lastTradeAt, retiredAt };
}

/** A group of records whose effect is one write: a version, or a sum. */
interface Group {
  ids: string[];
  write: () => Promise<void>;
}

export async function project(projection: Projection, records: readonly SourceRecord[]): Promise<Projected> {
  const { store, staleAfterSeconds } = projection;
  const now = (projection.now?.() ?? new Date()).getTime();
  const failures: Projected['failures'] = [];
  const moved = new Map<Aspect, string[]>();
  const members: { id: string; accountId: string; currency: string; present: boolean }[] = [];
  const ledger: SourceRecord[] = [];
  for (const record of records) {
    try {
      const { source, before, after } = record;
      if (source === 'ledger') {
        if (isSummed(before) || isSummed(after)) ledger.push(record);
        continue;
      }
      const aspects =
        source === 'accounts'
          ? accountMoves(accountFacts(before), accountFacts(after), now, staleAfterSeconds)
          : balanceMoves(balanceFacts(before), balanceFacts(after));
      for (const aspect of aspects) moved.set(aspect, [...(moved.get(aspect) ?? []), record.id]);
      // A new account joins its currency's list, a deleted one leaves it (a retired one stays: its history counts).
      if (source === 'accounts' && !(before && after)) {
        const { account } = accountFacts(after ?? before)!;
        members.push({ id: record.id, accountId: account.id, currency: account.currency, present: !!after });
      }
    } catch (error) {
      failures.push({ id: record.id, error });
    }
  }
  const sums = await sumGroups(store, ledger, failures);
  const groups: Group[] = [
    ...[...moved].map(([aspect, ids]) => ({ ids, write: () => bumpVersions(store, [aspect]) })),
    // The lists' changes in their order: an account created and deleted in one batch is in none.
    ...(members.length ? [{ ids: members.map((member) => member.id), write: () => writeMembers(store, members) }] : []),
    ...sums,
  ];
  await pMap(groups, (group) => group.write().catch((error) => failures.push(...group.ids.map((id) => ({ id, error })))), {
    concurrency: FOLDS_AT_ONCE,
  });
  return { moved: [...moved.keys()], sums: sums.length, failures };
}

/**
 * Whether a ledger item counts in the fleet's sums: an account's roll-up period or P&L aggregate (not an older
 * writer's fleet sums, kept under ids no account can have).
 */
function isSummed(item: Item | undefined): boolean {
  return !!item && (isEntryOf(item, 'perf') || isEntryOf(item, 'pnl')) && !String(item.accountId).startsWith('@');
}

/** One account's figures in a sum, where the sum lives, and how to read every account's for a recount. */
export interface Summand {
  place: SumPlace<unknown>;
  accountId: string;
  version: number;
  value: unknown;
  read: ReadContributions<unknown>;
}

/** A roll-up period in its account's currency's sums; a P&L aggregate as its currency's share of the fleet's. */
export function summandOf(store: Store, item: Item, currency: string): Summand {
  if (isEntryOf(item, 'perf')) {
    const entry = toPeriodEntry(item);
    const read = async (ids: readonly string[]) =>
      (await getPeriodOfOwners(store, ids, entry)).map((own) => ({ ...own, value: own.figures }));
    return { place: periodSum(currency, entry) as SumPlace<unknown>, ...entry, value: entry.figures, read };
  }
  const entry = toPnlEntry(item);
  const read = async (ids: readonly string[]) => {
    const [entries, owners] = await Promise.all([
      getPnlOfAccounts(store, ids, entry.period, entry.start, true),
      currenciesOf(store, new Set(ids)),
    ]);
    return entries.map((own) => ({ ...own, value: pnlShare(owners.get(own.accountId) ?? '', own) }));
  };
  return { place: pnlSum(entry.period, entry.start) as SumPlace<unknown>, ...entry, value: pnlShare(currency, entry), read };
}

/**
 * The sums the ledger records change: one group per sum, with every account's change to it. The accounts' currencies
 * are read once for the batch; figures of an account no longer there are in no sum.
 */
async function sumGroups(store: Store, records: readonly SourceRecord[], failures: Projected['failures']): Promise<Group[]> {
  const currencies = await currenciesOf(store, new Set(records.map((record) => String((record.after ?? record.before)!.accountId))));
  const groups = new Map<string, Group & { changes: SumChange<unknown>[] }>();
  for (const record of records) {
    try {
      const currency = currencies.get(String((record.after ?? record.before)!.accountId));
      if (currency === undefined) continue;
      const [before, after] = [record.before, record.after].map((image) => image && summandOf(store, image, currency));
      const { place, accountId, read } = (after ?? before)!;
      const id = `${place.key.part}/${place.key.key}`;
      const changes: SumChange<unknown>[] = groups.get(id)?.changes ?? [];
      const group = groups.get(id) ?? { ids: [], changes, write: () => foldIntoSum(store, place, changes, read) };
      groups.set(id, group);
      group.ids.push(record.id);
      const side = (summand: Summand | undefined) => summand && { version: summand.version, value: summand.value };
      group.changes.push({ accountId, before: side(before) ?? null, after: side(after) ?? null });
    } catch (error) {
      failures.push({ id: record.id, error });
    }
  }
  return [...groups.values()];
}

/** The currencies of `ids`' accounts (one BatchGetItem), by id; an account no longer there is absent. */
async function currenciesOf(store: Store, ids: ReadonlySet<string>): Promise<Map<string, string>> {
  if (!ids.size) return new Map();
  const found = await batchGetItems(store, { [store.tables.accounts]: [...ids].map(accountKey) }, true, ['accountId', 'currency']);
  return new Map(found[store.tables.accounts].map((item) => [String(item.accountId), String(item.currency)]));
}
