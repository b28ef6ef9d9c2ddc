/**
 * Progress and the closing summary of the commands that write many things (the importer, the ingester): one line
 * rewritten in place on a terminal, a plain line now and then when the output is a file or a pipe, and the summary
 * `N rows read, N written, N unchanged, N rejected, in S s (R rows/s)`, followed, when the command says which
 * accounts it wrote, by `; accounts written: a, b and 37 more` (or `none`).
 */
export interface WriteCounts {
  read: number;
  written: number;
  unchanged: number;
  rejected: number;
  /** The accounts whose rows changed something, when the command tells them. */
  accounts?: readonly string[];
}

/** Names listed in a summary at most; the rest are counted. */
export const ACCOUNTS_NAMED = 8;

const number = (value: number) => value.toLocaleString('en-US');

/** `a, b, c`, or past ACCOUNTS_NAMED the first ones (sorted) and `and N more`; `none` for none. */
export function accountList(accounts: readonly string[]): string {
  if (!accounts.length) return 'none';
  const sorted = [...accounts].sort();
  if (sorted.length <= ACCOUNTS_NAMED) return sorted.join(', ');
  return `${sorted.slice(0, ACCOUNTS_NAMED).join(', ')} and ${number(sorted.length - ACCOUNTS_NAMED)} more`;
}

export function progressReporter(command: string, unit: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastPlain = 0;
  const rate = (read: number) => Math.round(read / Math.max(0.001, (Date.now() - started) / 1000));
  const text = (counts: WriteCounts) =>
    `${command}: ${number(counts.read)} ${unit} read, ${number(counts.written)} written, ${number(counts.unchanged)} unchanged, ${number(counts.rejected)} rejected`;
  return {
    update(counts: WriteCounts) {
      // The progress line only counts the accounts: on a terminal it is rewritten in place, and must fit on one line.
      const accounts = counts.accounts
        ? `, ${number(counts.accounts.length)} account${counts.accounts.length === 1 ? '' : 's'} written`
        : '';
      const line = `${text(counts)}${accounts} (${number(rate(counts.read))} ${unit}/s)`;
      if (stream.isTTY) stream.write(`\r${line}\x1b[K`);
      else if (counts.read - lastPlain >= 10_000) {
        lastPlain = counts.read;
        stream.write(`${line}\n`);
      }
    },
    /** The summary line, once done. */
    summary(counts: WriteCounts): string {
      if (stream.isTTY) stream.write('\n');
      const accounts = counts.accounts ? `; accounts written: ${accountList(counts.accounts)}` : '';
      return `${text(counts)}, in ${((Date.now() - started) / 1000).toFixed(1)} s (${number(rate(counts.read))} ${unit}/s)${accounts}`;
    },
  };
}
