/**
 * The summary and progress lines of the commands that write many things: the ingester's name the accounts it wrote,
 * a long list cut short with how many more; the importer's, which names none, stay as they were.
 */
import { PassThrough } from 'node:stream';
import { ACCOUNTS_NAMED, accountList, progressReporter } from '../../scripts/support/progress';

/** A stream that is not a terminal, and what was written to it. */
function plainStream() {
  const stream = new PassThrough() as unknown as NodeJS.WriteStream;
  let written = '';
  (stream as unknown as PassThrough).on('data', (chunk) => (written += chunk));
  return { stream, written: () => written };
}

describe('the accounts written', () => {
  it('are listed sorted, all of them up to the limit', () => {
    expect(accountList([])).toBe('none');
    expect(accountList(['bot-b', 'bot-a'])).toBe('bot-a, bot-b');
    const limit = Array.from({ length: ACCOUNTS_NAMED }, (_, i) => `bot-${i}`);
    expect(accountList(limit)).toBe(limit.join(', '));
  });

  it('past the limit, the first ones and how many more', () => {
    const many = Array.from({ length: 39 }, (_, i) => `bot-${String(i).padStart(2, '0')}`).reverse();
    expect(accountList(many)).toBe(`${many.slice(-ACCOUNTS_NAMED).reverse().join(', ')} and ${39 - ACCOUNTS_NAMED} more`);
  });
});

it('the summary names the accounts written after the counts; without accounts it is as before', () => {
  const { stream } = plainStream();
  const ingest = progressReporter('ingest', 'lines', stream).summary({
    read: 1200,
    written: 3,
    unchanged: 1,
    rejected: 0,
    accounts: ['bot-b', 'bot-a'],
  });
  expect(ingest).toMatch(
    /^ingest: 1,200 lines read, 3 written, 1 unchanged, 0 rejected, in \d+\.\d s \([\d,]+ lines\/s\); accounts written: bot-a, bot-b$/,
  );
  expect(progressReporter('ingest', 'lines', stream).summary({ read: 0, written: 0, unchanged: 0, rejected: 0, accounts: [] })).toMatch(
    /; accounts written: none$/,
  );
  expect(progressReporter('import', 'rows', stream).summary({ read: 1, written: 1, unchanged: 0, rejected: 0 })).toMatch(
    /^import: 1 rows read, 1 written, 0 unchanged, 0 rejected, in \d+\.\d s \([\d,]+ rows\/s\)$/,
  );
});

it('the progress line, written now and then to a file or pipe, counts the accounts written', () => {
  const { stream, written } = plainStream();
  const progress = progressReporter('ingest', 'lines', stream);
  progress.update({ read: 10_000, written: 9_000, unchanged: 0, rejected: 2, accounts: ['a', 'b', 'c'] });
  expect(written()).toMatch(
    /^ingest: 10,000 lines read, 9,000 written, 0 unchanged, 2 rejected, 3 accounts written \([\d,]+ lines\/s\)\n$/,
  );
});
