/**
 * Trade history files for `npm run import`, read as a stream (memory stays flat whatever the file's size):
 * - JSON Lines: one object per line in the API's Trade shape (`accountId` may be left out). Amounts are strings;
 *   a JSON number is refused by the writer, since parsing it may already have lost digits.
 * - CSV (RFC 4180): a header row of the same field names, then one trade per row; an empty cell is null; a cell
 *   in double quotes may hold commas, quotes ("") and line breaks.
 * Each row comes out with the number of the line it starts on, as a value or as the reason it cannot be read.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export type TradeFileFormat = 'jsonl' | 'csv';

/** The fields of the API's Trade: the only columns and keys a file may have. */
export const TRADE_FIELDS = [
  'id',
  'accountId',
  'instrument',
  'side',
  'units',
  'status',
  'openPrice',
  'openTime',
  'closePrice',
  'closeTime',
  'realizedPL',
  'unrealizedPL',
  'stopLoss',
  'takeProfit',
] as const;

export type TradeRow = { line: number; value: Record<string, unknown> } | { line: number; error: string };

/** The format named by `option`, or by the file's extension. */
export function formatOf(file: string, option?: string): TradeFileFormat | undefined {
  const named = (option ?? file.split('.').pop() ?? '').toLowerCase();
  if (['jsonl', 'ndjson', 'json'].includes(named)) return 'jsonl';
  if (named === 'csv') return 'csv';
  return undefined;
}

/** A file's header (CSV) is wrong: nothing can be read from it. */
export class TradeFileError extends Error {}

function unknownFields(names: readonly string[]): string[] {
  return names.filter((name) => !(TRADE_FIELDS as readonly string[]).includes(name));
}

/** Rows of a JSON Lines file; blank lines are skipped. */
async function* jsonLines(lines: AsyncIterable<string>): AsyncGenerator<TradeRow> {
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      yield { line, error: `not valid JSON (${(error as Error).message})` };
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      yield { line, error: 'not a JSON object' };
      continue;
    }
    const unknown = unknownFields(Object.keys(value));
    if (unknown.length) yield { line, error: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (a trade has ${TRADE_FIELDS.join(', ')})` };
    else yield { line, value: value as Record<string, unknown> };
  }
}

/**
 * Splits CSV text arriving line by line into records of cells, following quotes across line breaks. Yields each
 * record with the line it starts on, or an error for a record whose quotes never close.
 */
export async function* csvRecords(lines: AsyncIterable<string>): AsyncGenerator<{ line: number; cells: string[] } | { line: number; error: string }> {
  let line = 0;
  let start = 0;
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let inRecord = false;
  for await (const text of lines) {
    line += 1;
    if (!inRecord) {
      if (text === '') continue;
      start = line;
      inRecord = true;
    } else {
      // Still inside a quoted cell: the line break belongs to it.
      cell += '\n';
    }
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (quoted) {
        if (char === '"' && text[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else if (char === '"') quoted = false;
        else cell += char;
      } else if (char === '"' && cell === '') quoted = true;
      else if (char === ',') {
        cells.push(cell);
        cell = '';
      } else cell += char;
    }
    if (quoted) continue;
    cells.push(cell.endsWith('\r') ? cell.slice(0, -1) : cell);
    yield { line: start, cells };
    cells = [];
    cell = '';
    inRecord = false;
  }
  if (inRecord) yield { line: start, error: 'a quoted cell never closes' };
}

/** Rows of a CSV file with a header row of trade fields. */
async function* csvRows(lines: AsyncIterable<string>): AsyncGenerator<TradeRow> {
  let header: string[] | undefined;
  for await (const record of csvRecords(lines)) {
    if ('error' in record) {
      yield record;
      continue;
    }
    if (!header) {
      header = record.cells.map((name) => name.trim());
      const unknown = unknownFields(header);
      if (unknown.length) throw new TradeFileError(`line ${record.line}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (columns are the trade's fields: ${TRADE_FIELDS.join(', ')})`);
      if (new Set(header).size !== header.length) throw new TradeFileError(`line ${record.line}: a column is named twice`);
      continue;
    }
    if (record.cells.length !== header.length) {
      yield { line: record.line, error: `${record.cells.length} cells where the header has ${header.length} columns` };
      continue;
    }
    yield { line: record.line, value: Object.fromEntries(header.map((name, i) => [name, record.cells[i] === '' ? null : record.cells[i]])) };
  }
}

/** The rows of `file`, streamed. */
export function readTradeRows(file: string, format: TradeFileFormat): AsyncGenerator<TradeRow> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  return format === 'csv' ? csvRows(lines) : jsonLines(lines);
}
