/**
 * Progress and the closing summary of the commands that write many things (the importer, the ingester): one line
 * rewritten in place on a terminal, a plain line now and then when the output is a file or a pipe, and the summary
 * `N rows read, N written, N unchanged, N rejected, in S s (R rows/s)`.
 */
export interface WriteCounts {
  read: number;
  written: number;
  unchanged: number;
  rejected: number;
}

const number = (value: number) => value.toLocaleString('en-US');

export function progressReporter(command: string, unit: string, stream: NodeJS.WriteStream = process.stderr) {
  const started = Date.now();
  let lastPlain = 0;
  const rate = (read: number) => Math.round(read / Math.max(0.001, (Date.now() - started) / 1000));
  const text = (counts: WriteCounts) =>
    `${command}: ${number(counts.read)} ${unit} read, ${number(counts.written)} written, ${number(counts.unchanged)} unchanged, ${number(counts.rejected)} rejected`;
  return {
    update(counts: WriteCounts) {
      const line = `${text(counts)} (${number(rate(counts.read))} ${unit}/s)`;
      if (stream.isTTY) stream.write(`\r${line}\x1b[K`);
      else if (counts.read - lastPlain >= 10_000) {
        lastPlain = counts.read;
        stream.write(`${line}\n`);
      }
    },
    /** The summary line, once done. */
    summary(counts: WriteCounts): string {
      if (stream.isTTY) stream.write('\n');
      return `${text(counts)}, in ${((Date.now() - started) / 1000).toFixed(1)} s (${number(rate(counts.read))} ${unit}/s)`;
    },
  };
}
