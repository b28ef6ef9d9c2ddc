/**
 * `npm run backfill -- [--stage NAME] [--endpoint URL] [--account ID | --fleet]`
 *
 * Writes the performance roll-ups (days, blocks, months) for trade histories written before the writer kept them, and
 * the account's currency on trades stored before API 1.5 (see the writer's backfill): every account, or one; then, on a
 * whole run, rebuilds the fleet's summary from the tables (api/projector/rebuild.ts). `--fleet` rebuilds the summary
 * alone: what the fleet projector's on-failure alarm asks for (docs/operations.md). Idempotent: a second run writes no
 * account's figures and no sum. Safe while bots write. Locally into `npm start`'s database (DB_PORT); with --stage
 * into that deployed stage (AWS credentials and region from the environment). Prints one line per account and a
 * total; exits 1 when an account failed.
 */
import './support/quiet-sdk';
import { backfillAccount } from '@trading-bot-api/writer';
import { rebuildFleet } from '../api/projector/rebuild';
import { commandLine, TARGET_OPTIONS, runCommand, usageFailure } from './support/command-line';
import { targetStore, targetWriter } from './support/load-data';

const USAGE = 'usage: npm run backfill -- [--stage NAME] [--endpoint URL] [--account ID | --fleet]';

async function main() {
  const { values, positionals } = commandLine('backfill', USAGE, {
    ...TARGET_OPTIONS,
    account: { type: 'string' },
    fleet: { type: 'boolean' },
  });
  if (positionals.length) usageFailure('backfill', USAGE, `unexpected ${positionals.join(' ')}`);
  if (values.account && values.fleet) usageFailure('backfill', USAGE, '--account and --fleet do not go together');
  const writer = await targetWriter({ stage: values.stage, endpoint: values.endpoint });
  const started = performance.now();
  let failed = 0;
  const totals = { closedTrades: 0, entries: 0, stamped: 0, written: 0, unchanged: 0 };
  const store = await targetStore({ stage: values.stage, endpoint: values.endpoint });
  try {
    const ids = values.fleet ? [] : values.account ? [values.account] : (await writer.listAccounts()).map(({ account }) => account.id);
    for (const [i, accountId] of ids.entries()) {
      try {
        const result = await backfillAccount(writer, accountId);
        for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += result[key];
        const retried = result.attempts > 1 ? `, ${result.attempts} attempts (a bot wrote meanwhile)` : '';
        console.log(
          `[${i + 1}/${ids.length}] ${accountId}: ${result.closedTrades} closed trades, ${result.entries} roll-up periods, ${result.written} written, ${result.unchanged} unchanged, ${result.stamped} trades given their currency${result.markedTransfers ? ', marked as having transfers' : ''}${retried}`,
        );
      } catch (error) {
        failed += 1;
        console.error(`[${i + 1}/${ids.length}] ${accountId}: failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // The fleet's summary adds up the accounts' figures, so it comes after every account's, on a run that failed nowhere.
    const fleet = !values.account && !failed ? await rebuildFleet(store) : undefined;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const summary = fleet
      ? `fleet summary: ${fleet.listed} accounts listed or unlisted, ${fleet.sumsWritten} of ${fleet.sums} sums written, versions moved`
      : '';
    console.log(
      values.fleet
        ? `${summary}, in ${seconds} s`
        : `${ids.length} accounts, ${totals.closedTrades} closed trades, ${totals.entries} roll-up periods: ${totals.written} written, ${totals.unchanged} unchanged, ${totals.stamped} trades given their currency, ${failed} failed${summary ? `; ${summary}` : ''}, in ${seconds} s`,
    );
  } finally {
    writer.close();
    store.client.destroy();
  }
  if (failed) process.exitCode = 1;
}

runCommand('backfill', main);
