/**
 * RFC 4180 text: fields separated by commas, records ended by CRLF, a field quoted when it holds a comma, a quote, a
 * CR or an LF (its quotes doubled). A pure module: the trades' layouts (trade-csv.ts) and their tests use it.
 */

/** A cell: text as it is; null (a field the record does not have) is an empty cell. */
export type Cell = string | null;

const NEEDS_QUOTES = /[",\r\n]/;

/** One field, quoted only when RFC 4180 requires it. */
export function csvField(cell: Cell): string {
  if (cell === null) return '';
  return NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** One record, CRLF-terminated (RFC 4180 §2.1), so pages of records concatenate into one valid file. */
export function csvRecord(cells: readonly Cell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

/**
 * The start of text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, or a tab or CR before one), the
 * injection OWASP names for CSV files. Free text from a bot (a reason it gave) starting so gets a leading `'`,
 * which spreadsheets show as text; amounts are never touched (`-1.50` must stay a number, exactly).
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** `text` safe to open in a spreadsheet: as it is, or with a leading `'` when it would start a formula. */
export function inertText(text: string | null): string | null {
  return text !== null && FORMULA_START.test(text) ? `'${text}` : text;
}
