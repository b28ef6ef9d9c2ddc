/**
 * A stage's data as a file and back (`npm run backup`, `npm run restore`; docs/operations.md says when and how): a
 * logical copy through DynamoDB's own API, so it works while the stack runs, on DynamoDB Local kept on disk or in
 * memory alike, with nothing native to build (Node 20 has no SQLite binding of its own; DynamoDB Local's SQLite
 * file, copied while the JVM writes it, could be torn).
 *
 * Consistent means: each account's items in every table (its account item, balance, trades, ledger) are as they
 * were at one instant, and so are the API keys and the alerts' state. The writer changes one account at a time (each
 * transaction's items share the account's key), so an account read whole at one instant is a state its writes made.
 * DynamoDB has no snapshot read across keys; instead an account's items are read (with consistent reads) until two
 * reads in a row are equal: nothing changed between the end of the first and the start of the second, so the copy is
 * the account as it was at the instant between them (writes only move an account forward: the writer bumps a
 * version with each, so an item cannot change and change back unseen). Accounts are copied each at its own instant,
 * within the seconds a backup takes; an account created after the backup started is not in it. The fleet's summary
 * is not copied: it is derived from these, and restore rebuilds it (api/projector/rebuild.ts).
 *
 * The file: JSON lines, a header, one line per item (the item as DynamoDB's own AttributeValue JSON, binary as
 * base64), and a last line with the counts, so a file cut short is refused rather than restored in part.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type DynamoDBClient,
  paginateQuery,
  paginateScan,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import pMap from 'p-map';
import tables from '../../resources/tables.js';

type Item = Record<string, AttributeValue>;

/** The tables copied: those keyed by account (read account by account), then the stage-wide ones. */
const ACCOUNT_TABLES = ['accounts', 'balances', 'trades', 'ledger'] as const;
const STAGE_TABLES = ['apiKeys', 'alerts'] as const;
type CopiedTable = (typeof ACCOUNT_TABLES)[number] | (typeof STAGE_TABLES)[number];
const COPIED: readonly CopiedTable[] = [...ACCOUNT_TABLES, ...STAGE_TABLES];

/** Reads of one account (or table) before a backup gives up on it: a bot writing it without pause for that long. */
const MAX_READS = 20;

const FORMAT = 'trading-bot-api-backup';

export interface Header {
  format: typeof FORMAT;
  version: 1;
  stage: string;
  takenAt: string;
}

export interface Footer {
  end: true;
  accounts: number;
  items: Record<CopiedTable, number>;
}

/** A line of the file: an item of a table. */
interface ItemLine {
  table: CopiedTable;
  item: Item;
}

/** JSON of an item (or items), binary values as `{"B64": "..."}`. */
function itemText(line: unknown): string {
  return JSON.stringify(line, (_key, value) => (value instanceof Uint8Array ? { B64: Buffer.from(value).toString('base64') } : value));
}

function itemOf(text: string): ItemLine {
  return JSON.parse(text, (_key, value) =>
    value && typeof value === 'object' && typeof value.B64 === 'string' && Object.keys(value).length === 1
      ? new Uint8Array(Buffer.from(value.B64, 'base64'))
      : value,
  );
}

/**
 * Reads `read` until two reads in a row give the same items (see above), at most MAX_READS times; throws naming
 * `what` when it never settles.
 */
async function settled<T>(what: string, read: () => Promise<T>): Promise<T> {
  let last = await read();
  for (let reads = 1; reads < MAX_READS; reads++) {
    const again = await read();
    if (itemText(last) === itemText(again)) return again;
    last = again;
  }
  throw new Error(`${what} changed on each of ${MAX_READS} reads in a row: no consistent copy of it; try again`);
}

/** Every item of a query's or scan's pages. */
async function allItems(pages: AsyncIterable<{ Items?: Item[] }>): Promise<Item[]> {
  const items: Item[] = [];
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

function queryAll(client: DynamoDBClient, table: string, accountId: string): Promise<Item[]> {
  const input = { TableName: table, KeyConditionExpression: 'accountId = :id', ExpressionAttributeValues: { ':id': { S: accountId } } };
  return allItems(paginateQuery({ client }, { ...input, ConsistentRead: true }));
}

function scanAllItems(client: DynamoDBClient, table: string, projection?: string): Promise<Item[]> {
  return allItems(paginateScan({ client }, { TableName: table, ConsistentRead: true, ProjectionExpression: projection }));
}

/** Takes a consistent copy of `stage`'s data; `write` gets the file's lines in order. */
export async function takeBackup(client: DynamoDBClient, stage: string, write: (line: string) => void): Promise<Footer> {
  const names = tables.tableNames(stage) as Record<string, string>;
  names.alerts = tables.tableName(stage, 'alerts');
  const header: Header = { format: FORMAT, version: 1, stage, takenAt: new Date().toISOString() };
  write(JSON.stringify(header));
  const counts = Object.fromEntries(COPIED.map((table) => [table, 0])) as Record<CopiedTable, number>;
  const emit = (table: CopiedTable, items: Item[]) => {
    for (const item of items) write(itemText({ table, item }));
    counts[table] += items.length;
  };
  const ids = (await scanAllItems(client, names.accounts, 'accountId')).map((item) => item.accountId.S!).sort();
  // An account's tables read as one: the items of all four, compared as one.
  const copies = await pMap(
    ids,
    (id) => settled(`account ${id}`, () => Promise.all(ACCOUNT_TABLES.map((table) => queryAll(client, names[table], id)))),
    { concurrency: 4 },
  );
  for (const copy of copies) for (const [index, table] of ACCOUNT_TABLES.entries()) emit(table, copy[index]);
  for (const table of STAGE_TABLES) emit(table, await settled(`table ${names[table]}`, () => scanAllItems(client, names[table])));
  const footer: Footer = { end: true, accounts: ids.length, items: counts };
  write(JSON.stringify(footer));
  return footer;
}

/** A backup file read whole and checked (its header, every line, the counts its last line gives) before any write. */
export async function readBackup(file: string): Promise<{ header: Header; footer: Footer; items: ItemLine[] }> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
  let header: Header | undefined;
  let footer: Footer | undefined;
  const items: ItemLine[] = [];
  let number = 0;
  for await (const text of lines) {
    number++;
    if (!text) continue;
    if (footer) throw new Error(`${file}: line ${number} follows the last line`);
    let parsed: Record<string, unknown>;
    try {
      parsed = number === 1 ? JSON.parse(text) : (itemOf(text) as unknown as Record<string, unknown>);
    } catch {
      throw new Error(`${file}: line ${number} is not JSON`);
    }
    if (number === 1) {
      if (parsed.format !== FORMAT || parsed.version !== 1)
        throw new Error(`${file} is not a backup of this project (npm run backup makes one)`);
      header = parsed as unknown as Header;
    } else if (parsed.end === true) footer = parsed as unknown as Footer;
    else if (COPIED.includes(parsed.table as CopiedTable) && parsed.item && typeof parsed.item === 'object')
      items.push(parsed as unknown as ItemLine);
    else throw new Error(`${file}: line ${number} is not an item of a table this project backs up`);
  }
  if (!header) throw new Error(`${file} is empty`);
  if (!footer)
    throw new Error(`${file} ends before its last line: a backup cut short (disk full? copied while being written?); nothing restored`);
  for (const table of COPIED) {
    const count = items.filter((line) => line.table === table).length;
    if (count !== footer.items[table])
      throw new Error(`${file}: ${count} items of ${table}, its last line says ${footer.items[table]}; nothing restored`);
  }
  return { header, footer, items };
}

/** Whether `stage` holds no account: the only state a backup is restored into, and the one npm start loads its demo into. */
export async function stageIsEmpty(client: DynamoDBClient, stage: string): Promise<boolean> {
  const page = await client.send(new ScanCommand({ TableName: tables.tableName(stage, 'accounts'), Limit: 1, ConsistentRead: true }));
  return !page.Count;
}

/**
 * Puts `items` into `stage`'s tables, 25 at a time, the accounts table last: a restore stopped part-way leaves no
 * account visible, and running it again with the same file puts the same items again.
 */
export async function putBack(client: DynamoDBClient, stage: string, items: ItemLine[]): Promise<void> {
  for (const accounts of [false, true]) {
    const lines = items.filter((line) => (line.table === 'accounts') === accounts);
    const batches = Array.from({ length: Math.ceil(lines.length / 25) }, (_, n) => lines.slice(n * 25, n * 25 + 25));
    await pMap(batches, (batch) => writeBatch(client, batch, stage), { concurrency: 4 });
  }
}

async function writeBatch(client: DynamoDBClient, batch: ItemLine[], stage: string): Promise<void> {
  let requests: Record<string, { PutRequest: { Item: Item } }[]> = {};
  for (const { table, item } of batch) {
    const name = tables.tableName(stage, table);
    requests[name] = [...(requests[name] ?? []), { PutRequest: { Item: item } }];
  }
  for (let attempt = 0; Object.keys(requests).length; attempt++) {
    if (attempt >= 10) throw new Error('the database kept some items unprocessed after 10 attempts; run the restore again');
    if (attempt) await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 50 * 2 ** attempt)));
    const output = await client.send(new BatchWriteItemCommand({ RequestItems: requests }));
    requests = (output.UnprocessedItems ?? {}) as typeof requests;
  }
}
