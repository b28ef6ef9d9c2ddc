/**
 * The command line of the project's commands (import, ingest, bridge): parsed strictly, with --help, and one way of
 * saying the command is wrong (the reason, then the usage, exit status 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WriterError } from '@trading-bot-api/writer';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Says why the command is wrong, prints its usage, and exits 2. */
export function usageFailure(command: string, usage: string, message: string): never {
  console.error(`${command}: ${message}`);
  console.error(usage);
  process.exit(2);
}

/**
 * What a command prints of the error that ended it: what the operator must mend (a database that refuses the writer
 * for its configuration, or an error the command names as such in `operators`) in its own words; a bug with its stack.
 */
export function failureText(error: unknown, operators: readonly (abstract new (...args: never[]) => Error)[] = []): string {
  const theirs = (error instanceof WriterError && error.code === 'MISCONFIGURED') || operators.some((kind) => error instanceof kind);
  return theirs ? (error as Error).message : ((error as Error)?.stack ?? String(error));
}

/**
 * Runs a command's `main`; an error that escapes it ends the command with one line, `command: ` and `text` of it (its
 * message unless given), and exit status `code` (1 unless given).
 */
export function runCommand(
  command: string,
  main: () => Promise<void>,
  options: { code?: (error: unknown) => number; text?: (error: unknown) => string } = {},
): void {
  main().catch((error: unknown) => {
    console.error(`${command}: ${options.text?.(error) ?? (error instanceof Error ? error.message : String(error))}`);
    process.exit(options.code?.(error) ?? 1);
  });
}

/** The SIGINT or SIGTERM that asks a long-running command to stop, as an AbortSignal. */
export function stopSignal(): AbortSignal {
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  return stop.signal;
}

/** --stage NAME and --endpoint URL: where a command writes or reads (write-target.ts). */
export const TARGET_OPTIONS = { stage: { type: 'string' }, endpoint: { type: 'string' } } as const;

/** The parsed command line (options and positionals); --help prints the usage and exits 0. */
export function commandLine<O extends Options>(command: string, usage: string, options: O) {
  const config = {
    args: process.argv.slice(2),
    options: { ...options, help: { type: 'boolean', default: false } } as O & { help: { type: 'boolean'; default: false } },
    allowPositionals: true,
    strict: true,
  } as const;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    usageFailure(command, usage, (error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}
