/**
 * `npm run ingest -- [--follow] [--stage NAME] [--endpoint URL] [--no-checkpoint] FILE|-`
 *
 * Event lines (docs/event-lines.md) into the writer: one JSON object per line, one line per writer call, so a bot in
 * any language feeds the API by appending lines to a file. Locally into `npm start`'s database (DB_PORT); with
 * --stage into that deployed stage (AWS credentials and region from the environment).
 *
 * FILE is read from where the last run stopped (FILE.checkpoint beside it), first the rest of the file it was reading
 * if that was rotated away meanwhile. With --follow it keeps reading as FILE grows, across rotation and truncation,
 * until Ctrl-C or SIGTERM. `-` reads standard input to its end. A bad line is reported as `line N: reason` and
 * skipped. The summary names the accounts whose lines changed something. Without --follow: exit 1 when a line was
 * rejected, 2 when the command is wrong, 3 when the database did not answer for 30 s (run it again: it resumes where
 * it stopped), 4 when lines may have been lost: the rest of the file the checkpoint describes could not be found (an
 * `ingest: warning:` line says which file and from where).
 */
import './support/quiet-sdk';
import { ingest } from '@trading-bot-api/feeds/ingest/ingest';
import { CheckpointUnreadable, checkpointPath, fileLines, streamLines } from '@trading-bot-api/feeds/ingest/source';
import { commandLine, TARGET_OPTIONS, failureText, runCommand, stopSignal, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';
import { progressReporter } from './support/progress';

const USAGE = 'usage: npm run ingest -- [--follow] [--stage NAME] [--endpoint URL] [--no-checkpoint] FILE|-';

const fail: (message: string) => never = (message) => usageFailure('ingest', USAGE, message);

async function main() {
  const { values, positionals } = commandLine('ingest', USAGE, {
    follow: { type: 'boolean', default: false },
    ...TARGET_OPTIONS,
    'no-checkpoint': { type: 'boolean', default: false },
  });
  if (positionals.length !== 1)
    fail(positionals.length ? 'give one FILE (or - for standard input)' : 'FILE is required (or - for standard input)');
  const [file] = positionals;
  const stdin = file === '-';

  const stop = stopSignal();
  const writer = await targetWriter({ stage: values.stage, endpoint: values.endpoint });
  const progress = progressReporter('ingest', 'lines');
  const note = (line: string) => console.error(`ingest: ${line}`);
  let skipped = false;
  const source = stdin
    ? streamLines(process.stdin)
    : fileLines(file, {
        follow: values.follow,
        checkpoint: !values['no-checkpoint'],
        signal: stop,
        onRestart: note,
        onSkipped: ({ message }) => {
          skipped = true;
          note(`warning: ${message}`);
        },
      });
  if (values.follow && !stdin) note(`following ${file} (checkpoint ${checkpointPath(file)}); Ctrl-C to stop`);
  try {
    const result = await ingest({
      writer,
      source,
      report: (line) => console.log(line),
      progress: (counts) => progress.update(counts),
      giveUpAfterMs: values.follow ? undefined : 30_000,
      signal: stop,
    });
    console.log(progress.summary(result));
    if (result.gaveUp && !stop.aborted) {
      note('the database did not answer for 30 s; run the same command again to resume where it stopped');
      process.exitCode = 3;
    } else if (values.follow) process.exitCode = 0;
    else process.exitCode = skipped ? 4 : result.rejected ? 1 : 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') fail(`no file ${file}`);
    throw error;
  } finally {
    writer.close();
  }
}

runCommand('ingest', main, { text: (error) => failureText(error, [CheckpointUnreadable]), code: () => 3 });
