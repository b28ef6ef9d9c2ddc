/**
 * The fallback for bots without a broker: hummingbot's own trades file, `data/trades_<config>.csv`, followed as
 * `npm run ingest --follow` follows event lines (packages/feeds/src/ingest/source.ts: a checkpoint beside it, resumed after a stop,
 * across rotation). hummingbot up to 2.1 appends one row per fill (connector/markets_recorder.py, append_to_csv;
 * 2.2 stopped writing it): `TradeFill.attribute_names_for_file_export()` and `age`, written by pandas, the Decimals as
 * `str(Decimal)` (exact, unlike MQTT's floats), the fee as the `str()` of its `to_json()` dict (a Python literal), the
 * time in ms. When a version writes other columns, hummingbot moves the file to `trades_<config>_old_<time>.csv` and
 * starts a new one with the new header: a rotation, read to its end, then the new file from its start.
 *
 * Rows become the same fills as MQTT's OrderFilled events (messages.ts) and go through the same mapping.
 */
import { parse } from 'csv-parse/sync';
import { fileLines, type SourceOptions } from '../../ingest/source';
import { pythonDecimal } from '../numbers';
import type { HummingbotBridge } from './bridge';
import type { Fill } from '../positions';
import { feeOf, fillPartsOf, Malformed } from './messages';

/** The fields of one CSV line (RFC 4180 quoting, as pandas writes: `"…"` with `""` inside), or undefined when it does not parse. */
export function csvFields(line: string): string[] | undefined {
  try {
    return parse(line, { relax_column_count: true })[0] ?? [''];
  } catch {
    return undefined;
  }
}

/** A Python literal's tokens: space, a quoted string, a word (None, True, False, a number), punctuation, or anything else. */
const PYTHON_TOKENS =
  /(?<space>\s+)|(?<quoted>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(?<word>[-+]?[\w.]+)|(?<mark>[{}[\]():,])|(?<other>.)/gs;
const PYTHON_WORDS: Record<string, string> = { None: 'null', null: 'null', True: 'true', true: 'true', False: 'false', false: 'false' };
const PYTHON_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };

/** The text of a Python string literal's body: its escapes (`\\'`, `\\n`, `\\xE9`, `\\u00e9`) read. */
function pythonString(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/gs, (_, code: string) => {
    if (code.length > 1) return String.fromCharCode(Number.parseInt(code.slice(1), 16));
    if (!Object.hasOwn(PYTHON_ESCAPES, code)) throw new SyntaxError(`not a Python escape: \\${code}`);
    return PYTHON_ESCAPES[code];
  });
}

/**
 * A Python literal as `str()` writes a dict of the fee (`{'fee_type': 'AddedToCost', 'percent': '0', 'percent_token':
 * None, 'flat_fees': [{'token': 'USDT', 'amount': '0.0612505'}]}`): dicts, lists, tuples, strings, None, True, False
 * and numbers (kept as their text), rewritten token by token as the JSON they stand for and read as JSON (a
 * SyntaxError when they stand for none). JSON reads too.
 */
export function pythonLiteral(text: string): unknown {
  const json: string[] = [];
  for (const { groups } of text.matchAll(PYTHON_TOKENS)) {
    const { quoted, word, mark, other } = groups!;
    if (other !== undefined) throw new SyntaxError(`not a Python literal at ${JSON.stringify(other)}`);
    if (quoted !== undefined) json.push(JSON.stringify(pythonString(quoted.slice(1, -1))));
    else if (word !== undefined) json.push(Object.hasOwn(PYTHON_WORDS, word) ? PYTHON_WORDS[word] : JSON.stringify(word));
    else if (mark === ']' || mark === ')') {
      // A list's or tuple's trailing comma (`(1,)`), which JSON has not.
      if (json.at(-1) === ',' && json.at(-2) !== '[') json.pop();
      json.push(']');
    } else if (mark !== undefined) json.push(mark === '(' ? '[' : mark);
  }
  return JSON.parse(json.join(' '));
}

/** The columns a row needs, by their header names. */
const NEEDED = ['exchange_trade_id', 'symbol', 'timestamp', 'order_id', 'trade_type', 'price', 'amount', 'trade_fee'] as const;

/** The header of a trades file, checked: Malformed when a column a fill needs is missing. */
export function headerOf(line: string): string[] {
  const names = csvFields(line);
  const missing = NEEDED.filter((name) => !names?.includes(name));
  if (!names || missing.length)
    throw new Malformed(
      'csv header',
      `the header does not name the columns of hummingbot's trades file (missing ${missing.join(', ') || 'all'})`,
    );
  return names;
}

/** A row of the trades file as a fill; Malformed when it cannot be read. */
export function csvFillOf(line: string, header: readonly string[]): Fill {
  const fields = csvFields(line);
  if (!fields || fields.length !== header.length)
    throw new Malformed('csv row width', `a row of ${fields?.length ?? 'unreadable'} fields, and the header names ${header.length}`);
  const row = Object.fromEntries(header.map((name, index) => [name, fields[index]]));
  const text = (name: string) => {
    const value = row[name];
    if (value === undefined || value === '') throw new Malformed(`csv without ${name}`, `a row without ${name}`);
    return value;
  };
  const decimal = (name: string) => {
    const value = pythonDecimal(text(name));
    if (value === undefined || value.startsWith('-') || /^[0.]+$/.test(value))
      throw new Malformed(
        `csv with ${name} not a decimal above 0`,
        `a row with ${name} not a decimal above 0: ${JSON.stringify(row[name])}`,
      );
    return value;
  };
  const parts = fillPartsOf('a row', 'symbol', {
    pair: text('symbol'),
    side: text('trade_type'),
    position: row.position,
    leverage: row.leverage,
  });
  const ms = Number(text('timestamp'));
  if (!Number.isSafeInteger(ms) || ms <= 0)
    throw new Malformed('csv with timestamp not ms', `a row with timestamp not a time in ms: ${JSON.stringify(row.timestamp)}`);
  let fee: unknown;
  try {
    fee = pythonLiteral(text('trade_fee'));
  } catch {
    throw new Malformed('csv with trade_fee unreadable', `a row with trade_fee not a dict: ${JSON.stringify(row.trade_fee).slice(0, 200)}`);
  }
  return {
    orderId: text('order_id'),
    exchangeTradeId: text('exchange_trade_id'),
    ...parts,
    price: decimal('price'),
    amount: decimal('amount'),
    fee: feeOf(fee, 'a row'),
    time: new Date(ms).toISOString(),
  };
}

/**
 * Follows `file` (with `follow`, until `signal` aborts; else to its end) and hands each row to `bridge` as a fill of
 * `instance`; a row that cannot be read is said once per kind and skipped. Resolves once every row read is handled.
 */
export async function followTradesFile(
  file: string,
  instance: string,
  bridge: HummingbotBridge,
  options: Pick<SourceOptions, 'follow' | 'signal' | 'pollMs'> & { report: (line: string) => void },
): Promise<void> {
  const say = (kind: string, text: string) => bridge.once(instance, `${instance} csv ${kind}`, text);
  const source = fileLines(file, {
    ...options,
    onRestart: (reason) => options.report(`bridge ${instance}: ${reason}`),
    onSkipped: (skipped) => options.report(`bridge ${instance}: ${skipped.message}`),
  });
  for await (const batch of source) {
    for (const entry of batch) {
      const where = `${file} line ${entry.line}`;
      if ('error' in entry) {
        say('csv line', `${where}: ${entry.error}; skipped`);
        continue;
      }
      try {
        if (entry.line === 1) {
          bridge.csvHeader(instance, headerOf(entry.text));
          continue;
        }
        const header = bridge.csvHeader(instance);
        if (!header) throw new Malformed('csv no header', 'a row before any header (the file was not read from its start)');
        bridge.receiveFill(instance, csvFillOf(entry.text, header), where);
      } catch (error) {
        if (!(error instanceof Malformed)) throw error;
        say(error.kind, `${where}: ${error.message}; skipped`);
      }
    }
    // The checkpoint moves past a batch once the next is asked for: its rows are handled (written, or saved to be) first.
    await bridge.idle();
  }
  await bridge.idle();
}
