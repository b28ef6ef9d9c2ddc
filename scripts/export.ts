/**
 * `npm run export -- --account ID|all [--from TIME] [--to TIME] [--status open|closed|gone|all] [--instrument I]
 *   [--format csv|cointracking] [--out FILE] [--url URL] [--key-file FILE]`
 *
 * A trade listing as one CSV file: every page of `GET /api/{account}/trades` (or `/api/all/trades`) in CSV, followed
 * through its `Link` headers, the header row once. Against `npm start` (http://localhost:$PORT, default 3000) or a
 * deployed stage (`--url https://<api-id>.execute-api.<region>.amazonaws.com/prod`). The API key comes from
 * TBA_API_KEY or --key-file, never from the command line (`ps` shows it); it is never printed. Progress goes to
 * stderr; the file is written beside FILE and renamed into place once whole, so a failed export leaves none. With
 * `--format cointracking`, a last line on stderr says how many trades the file leaves out and why (the pages'
 * `X-Trades-Left-Out`: open trades have no result yet; a gone trade's outcome is unknown).
 */
import { createWriteStream, readFileSync, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createClient } from '../client';
import { commandLine, runCommand, usageFailure } from './support/command-line';

const USAGE = `usage: npm run export -- --account ID|all [--from TIME] [--to TIME] [--status open|closed|gone|all] [--instrument I]
                          [--format csv|cointracking] [--out FILE] [--url URL] [--key-file FILE]
  The key: TBA_API_KEY, or --key-file FILE (never on the command line). --url: default http://localhost:$PORT (3000).`;

/** Records in a page of CSV: its line ends outside quoted fields (a quoted reason may hold line breaks). */
export function recordsIn(text: string): number {
  let records = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (c === 10 && !quoted) records += 1;
  }
  return records;
}

async function main() {
  const { values, positionals } = commandLine('export', USAGE, {
    account: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    status: { type: 'string' },
    instrument: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    url: { type: 'string' },
    'key-file': { type: 'string' },
  });
  if (positionals.length) usageFailure('export', USAGE, `unexpected ${positionals.join(' ')}`);
  if (!values.account) usageFailure('export', USAGE, '--account ID (or all) is required');
  if (values.format !== undefined && values.format !== 'csv' && values.format !== 'cointracking') {
    usageFailure('export', USAGE, `--format must be csv or cointracking, not ${values.format}`);
  }
  const apiKey = values['key-file'] ? readFileSync(values['key-file'], 'utf8').trim() : process.env.TBA_API_KEY?.trim() || undefined;
  const baseUrl = (values.url ?? `http://localhost:${process.env.PORT ?? 3000}`).replace(/\/+$/, '');
  const query = Object.fromEntries(
    Object.entries({
      from: values.from,
      to: values.to,
      status: values.status,
      instrument: values.instrument,
      format: values.format ?? 'csv',
    }).filter(([, value]) => value !== undefined),
  ) as Record<string, string>;
  // Pages are never polled again: no If-None-Match, no bodies remembered.
  const api = createClient({ baseUrl, apiKey, revalidate: false });
  const leftOut = { open: 0, gone: 0 };
  const count = (headers: Headers) => {
    const match = /^open=(\d+), gone=(\d+)$/.exec(headers.get('X-Trades-Left-Out') ?? '');
    if (match) [leftOut.open, leftOut.gone] = [leftOut.open + Number(match[1]), leftOut.gone + Number(match[2])];
  };
  const pages =
    values.account === 'all'
      ? api.csvPages('/api/all/trades', { params: { query } }, count)
      : api.csvPages('/api/{account}/trades', { params: { path: { account: values.account }, query } }, count);

  const partial = values.out ? `${values.out}.partial` : undefined;
  const out = partial ? createWriteStream(partial) : process.stdout;
  const started = Date.now();
  let [records, pageCount] = [0, 0];
  const progress = (done: boolean) => {
    const line = `export: ${records.toLocaleString('en-US')} records, ${pageCount} pages, ${((Date.now() - started) / 1000).toFixed(1)} s`;
    if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K${done ? '\n' : ''}`);
    else if (done || pageCount % 20 === 0) process.stderr.write(`${line}\n`);
  };
  try {
    for await (const page of pages) {
      // The header row is not a record.
      records += recordsIn(page) - (pageCount === 0 ? 1 : 0);
      pageCount += 1;
      if (!out.write(page)) await once(out, 'drain');
      progress(false);
    }
    if (partial && values.out) {
      out.end();
      await once(out, 'finish');
      renameSync(partial, values.out);
    }
    progress(true);
    if (values.out) process.stderr.write(`export: wrote ${values.out}\n`);
    if (query.format === 'cointracking')
      process.stderr.write(
        `export: left out ${leftOut.gone} gone trade${leftOut.gone === 1 ? '' : 's'} (the bot no longer has them: their outcome is unknown) and ${leftOut.open} open trade${leftOut.open === 1 ? '' : 's'} (no result yet)\n`,
      );
  } catch (error) {
    if (partial) {
      out.destroy();
      rmSync(partial, { force: true });
    }
    throw error;
  }
}

if (require.main === module) runCommand('export', main);
