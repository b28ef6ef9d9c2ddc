/**
 * Trade history files for `npm run import`, read as a stream (memory stays flat whatever the file's size):
 * - JSON Lines: one object per line in the API's Trade shape (`accountId` may be left out). Amounts are strings;
 *   a JSON number is refused by the writer, since parsing it may already have lost digits.
 * - CSV (RFC 4180, read by csv-parse): a header row of the same field names, then one trade per row; an empty cell
 *   is null; a cell in double quotes may hold commas, quotes ("") and line breaks. The lists are written as the API's
 *   CSV writes them (api/http/trade-csv.ts): `fees` as `AMOUNT CURRENCY LEG; …` (`none`: no fee), `orderIds`
 *   separated by spaces; so a file `npm run export` wrote reads back whole.
 * Each row comes out with the number of the line it starts on, as a value or as the reason it cannot be read.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { type CsvError, type Options, parse } from 'csv-parse';
import { TRADE_FIELDS } from '@trading-bot-api/core/types';
import { feesOfCell } from '../../api/http/trade-csv';

export type TradeFileFormat = 'jsonl' | 'csv';

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
    if (unknown.length)
      yield { line, error: `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (a trade has ${TRADE_FIELDS.join(', ')})` };
    else yield { line, value: value as Record<string, unknown> };
  }
}

/** A record's cells and the line it starts on. */
type CsvRecord = { line: number; cells: string[] };

/** What a malformed record is told, by csv-parse's error code; its own message otherwise. */
const CSV_ERRORS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted cell never closes',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted cell goes on after its closing quote (write a quote inside a quoted cell as "")',
};

/**
 * Splits CSV (csv-parse, RFC 4180: quoted cells may hold commas, doubled quotes and line breaks; CRLF or LF; a
 * leading BOM is dropped) into records of cells, streamed. Yields each record with the line it starts on. A record
 * whose quotes are malformed ends the reading: past a stray quote nothing tells where cells begin (the parser would
 * read the rest of the file as one cell), so the error, at its line, says the rest was not read. Importing is
 * idempotent: fix the line and import the file again.
 */
export async function* csvRecords(input: Readable): AsyncGenerator<CsvRecord | { line: number; error: string }> {
  const errors: { line: number; error: string }[] = [];
  // The last line of the last record parsed: where the next one starts, past any blank lines.
  let lastEnd = 0;
  let stopped = false;
  const options: Options<CsvRecord, { record: string[]; raw: string }> = {
    bom: true,
    encoding: 'utf8',
    record_delimiter: ['\r\n', '\n'],
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    raw: true,
    // Runs as each record is parsed, in order with the errors: a record's start is its last line less the line
    // breaks inside it (its raw text, without the blank lines before it and its own line break).
    on_record: ({ record, raw }, context) => {
      if (stopped) return null;
      lastEnd = context.lines;
      const inside = raw.replace(/^[\r\n]+|[\r\n]+$/g, '').split('\n').length - 1;
      return { line: context.lines - inside, cells: record };
    },
  };
  // Typed options for a parser whose records are reshaped (csv-parse's overloads type only plain string records).
  const parser = input.pipe(parse(options as unknown as Options));
  parser.on('skip', (error: CsvError) => {
    if (stopped) return;
    stopped = true;
    // A stray quote is found on its own line; an unclosed one only at the end of the file, so it is placed on the line
    // after the last record read (blank lines in between would place it early).
    const line = error.code === 'CSV_QUOTE_NOT_CLOSED' || typeof error.lines !== 'number' ? lastEnd + 1 : error.lines;
    errors.push({ line, error: `${CSV_ERRORS[error.code] ?? error.message}; the lines after it were not read` });
  });
  // Records reach this loop through the stream's buffer, errors at once: each error goes out before the first record
  // that follows it.
  for await (const record of parser as AsyncIterable<CsvRecord>) {
    while (errors.length && errors[0].line < record.line) yield errors.shift()!;
    yield record;
  }
  yield* errors;
}

/** Rows of a CSV file with a header row of trade fields. */
async function* csvRows(input: Readable): AsyncGenerator<TradeRow> {
  let header: string[] | undefined;
  for await (const record of csvRecords(input)) {
    if ('error' in record) {
      yield record;
      continue;
    }
    if (!header) {
      header = record.cells.map((name) => name.trim());
      const unknown = unknownFields(header);
      if (unknown.length)
        throw new TradeFileError(
          `line ${record.line}: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (columns are the trade's fields: ${TRADE_FIELDS.join(', ')})`,
        );
      if (new Set(header).size !== header.length) throw new TradeFileError(`line ${record.line}: a column is named twice`);
      continue;
    }
    if (record.cells.length !== header.length) {
      yield { line: record.line, error: `${record.cells.length} cells where the header has ${header.length} columns` };
      continue;
    }
    const value: Record<string, unknown> = Object.fromEntries(
      header.map((name, i) => [name, record.cells[i] === '' ? null : record.cells[i]]),
    );
    if (typeof value.fees === 'string') {
      const fees = feesOfCell(value.fees);
      if (!fees) {
        yield {
          line: record.line,
          error: `fees: must be "none" or fees such as "0.12 USDT open; 0.0021 BNB close", got ${JSON.stringify(value.fees)}`,
        };
        continue;
      }
      value.fees = fees;
    }
    if (typeof value.orderIds === 'string') value.orderIds = value.orderIds.split(/\s+/).filter(Boolean);
    yield { line: record.line, value };
  }
}

/** The rows of `file`, streamed. */
export function readTradeRows(file: string, format: TradeFileFormat): AsyncGenerator<TradeRow> {
  const input = createReadStream(file, { encoding: 'utf8' });
  return format === 'csv' ? csvRows(input) : jsonLines(createInterface({ input, crlfDelay: Infinity }));
}
