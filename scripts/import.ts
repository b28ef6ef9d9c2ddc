/**
 * `npm run import -- --account ID [--create --currency CUR [--name NAME] [--broker NAME] [--environment live|paper]]
 *                    [--opening-balance AMOUNT] [--format jsonl|csv] [--stage NAME] [--endpoint URL] FILE`
 *
 * Loads a trade history (JSON Lines or CSV, in the API's Trade shape; see scripts/support/trade-file.ts) into an
 * account through the writer, so every key, counter and aggregate is right. Locally into `npm start`'s database
 * (DB_PORT); with --stage into that deployed stage (AWS credentials and region from the environment).
 *
 * Importing the same file again changes nothing; a row for a trade stored open that now comes closed closes it; a
 * row that contradicts a stored closed trade is refused (closed is final). A bad row is reported with its line and
 * reason and not written; the valid rows are. Ends with a summary; exits 1 when any row was rejected, 2 when the
 * command itself is wrong.
 *
 * --opening-balance AMOUNT: the account held AMOUNT before the history; the import then records the balance it
 * implies, one snapshot at the first open and one per day with closes (scripts/support/opening-balance.ts), so the
 * account shows a NAV and an equity series instead of 0.
 */
import './support/quiet-sdk';
import { isDecimal } from '@trading-bot-api/core/decimal';
import type { Trade } from '@trading-bot-api/core/types';
import { type TradeResult, type Writer, WriterError } from '@trading-bot-api/writer';
import { commandLine, TARGET_OPTIONS, runCommand, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';
import { EquityHistory } from './support/opening-balance';
import { progressReporter, type WriteCounts } from './support/progress';
import { formatOf, readTradeRows, TradeFileError, type TradeRow } from './support/trade-file';

const USAGE =
  'usage: npm run import -- --account ID [--create --currency CUR [--name NAME] [--broker NAME] [--environment live|paper]] [--opening-balance AMOUNT] [--format jsonl|csv] [--stage NAME] [--endpoint URL] FILE';

/** Rows handed to the writer at a time: it writes them in transactions of up to 100 items. */
const BATCH = 500;
const MAX_REPORTED = 50;

const fail: (message: string) => never = (message) => usageFailure('import', USAGE, message);

async function main() {
  const { values, positionals } = commandLine('import', USAGE, {
    account: { type: 'string' },
    create: { type: 'boolean', default: false },
    currency: { type: 'string' },
    name: { type: 'string' },
    broker: { type: 'string' },
    environment: { type: 'string' },
    'opening-balance': { type: 'string' },
    format: { type: 'string' },
    ...TARGET_OPTIONS,
  });
  if (!values.account) fail('--account is required');
  if (positionals.length !== 1) fail(positionals.length ? 'give one FILE' : 'FILE is required');
  const file = positionals[0];
  const format = formatOf(file, values.format);
  if (!format) fail(`cannot tell the format of ${file}: name it .jsonl or .csv, or give --format jsonl|csv`);
  if (values.create && !values.currency) fail("--create needs --currency (the account's currency, such as USD)");
  const accountId = values.account;
  const opening = values['opening-balance'];
  if (opening !== undefined && !isDecimal(opening))
    fail(`--opening-balance must be a decimal amount such as 10000.00, got ${JSON.stringify(opening)}`);
  const history = new EquityHistory();

  const writer: Writer = await targetWriter({ stage: values.stage, endpoint: values.endpoint });
  try {
    if (values.create) {
      try {
        const outcome = await writer.upsertAccount({
          id: accountId,
          name: values.name ?? accountId,
          currency: values.currency!,
          broker: values.broker ?? 'unspecified',
          environment: (values.environment ?? 'live') as 'live' | 'paper',
        });
        if (outcome === 'created') console.error(`import: created account ${accountId} (${values.currency})`);
      } catch (error) {
        if (error instanceof WriterError) fail(`account ${accountId}: ${error.message}`);
        throw error;
      }
    }

    const counts: WriteCounts = { read: 0, written: 0, unchanged: 0, rejected: 0 };
    const progress = progressReporter('import', 'rows');
    const reject = (line: number, reason: string) => {
      counts.rejected += 1;
      if (counts.rejected <= MAX_REPORTED) console.log(`line ${line}: ${reason}`);
      else if (counts.rejected === MAX_REPORTED + 1) console.log('… further rejected rows are counted, not listed');
    };
    let batch: Extract<TradeRow, { value: unknown }>[] = [];
    // The batch being written while the next is read and parsed: at most two batches in memory, whatever the file's size.
    let writing: Promise<void> = Promise.resolve();
    const flush = async () => {
      await writing;
      if (!batch.length) return;
      writing = write(batch);
      // Its failure is thrown where it is awaited (the next flush, or the end), not as an unhandled rejection meanwhile.
      writing.catch(() => {});
      batch = [];
    };
    const write = async (rows: Extract<TradeRow, { value: unknown }>[]) => {
      let results: TradeResult[];
      const trades = rows.map((row) => row.value);
      try {
        results = await writer.recordTrades(accountId, trades);
      } catch (error) {
        if (error instanceof WriterError && error.code === 'ACCOUNT_NOT_FOUND')
          fail(`no account ${accountId}: create it with --create --currency CUR`);
        throw error;
      }
      for (const result of results) {
        const { line } = rows[result.index];
        if ('error' in result) {
          // A whole batch fails on the account alone; every other error is about its row.
          if (result.error.code === 'ACCOUNT_NOT_FOUND') fail(`no account ${accountId}: create it with --create --currency CUR`);
          reject(line, result.error.message);
        } else {
          history.add(rows[result.index].value as unknown as Trade);
          if (result.outcome === 'unchanged') counts.unchanged += 1;
          else counts.written += 1;
        }
      }
      progress.update(counts);
    };

    try {
      for await (const row of readTradeRows(file, format)) {
        counts.read += 1;
        if ('error' in row) {
          reject(row.line, row.error);
          continue;
        }
        // An empty accountId cell means the account being imported into.
        if (row.value.accountId === null) delete row.value.accountId;
        batch.push(row);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      await writing;
    } catch (error) {
      if (error instanceof TradeFileError) fail(error.message);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') fail(`no file ${file}`);
      throw error;
    }
    console.log(progress.summary(counts));
    if (opening !== undefined) {
      // Oldest first: a snapshot older than the one stored is stale, so importing again records nothing new.
      let recorded = 0;
      for (const snapshot of history.snapshots(opening))
        if ((await writer.recordBalance(accountId, snapshot)) === 'recorded') recorded += 1;
      console.log(
        `import: opening balance ${opening}: ${recorded} balance snapshots recorded (one at the first open, one per day with closes)`,
      );
    }
    process.exitCode = counts.rejected ? 1 : 0;
  } finally {
    writer.close();
  }
}

runCommand('import', main, {
  text: (error) => (error instanceof WriterError ? error.message : ((error as Error).stack ?? String(error))),
  code: (error) => (error instanceof WriterError ? 1 : 3),
});
