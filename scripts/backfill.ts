/**
 * `npm run backfill -- [--stage NAME] [--endpoint URL] [--account ID]`
 *
 * Writes the performance roll-ups (days, blocks, months) for trade histories written before the writer kept them, and
 * the account's currency on trades stored before API 1.5 (see the writer's backfill): every account, or one; then, on a whole run, rebuilds the fleet's summary from the tables
 * (api/projector/rebuild.ts) and marks it complete. Idempotent: a second run writes nothing. Safe while bots
 * write. Locally into `npm start`'s database (DB_PORT); with --stage into that deployed stage (AWS credentials and
 * region from the environment). Prints one line per account and a total; exits 1 when an account failed.
 */
import './support/quiet-sdk';
import { backfillAccount } from '@trading-bot-api/writer';
import { rebuildFleet } from '../api/projector/rebuild';
import { commandLine, usageFailure } from './support/command-line';
import { targetStore, targetWriter } from './support/load-data';

const USAGE = 'usage: npm run backfill -- [--stage NAME] [--endpoint URL] [--account ID]';

async function main() {
  const parsed = commandLine('backfill', USAGE, { stage: { type: 'string' }, endpoint: { type: 'string' }, account: { type: 'string' } });
  if (!parsed) return;
  const { values, positionals } = parsed;
  if (positionals.length) usageFailure('backfill', USAGE, `unexpected ${positionals.join(' ')}`);
  const writer = targetWriter({ stage: values.stage, endpoint: values.endpoint });
  const started = performance.now();
  let failed = 0;
  const totals = { trades: 0, entries: 0, stamped: 0, written: 0, unchanged: 0 };
  const { store, windowSeconds } = targetStore({ stage: values.stage, endpoint: values.endpoint });
  try {
    const ids = values.account ? [values.account] : (await writer.listAccounts()).map(({ account }) => account.id);
    for (const [i, accountId] of ids.entries()) {
      try {
        const result = await backfillAccount(writer, accountId);
        totals.trades += result.closedTrades;
        totals.entries += result.entries;
        totals.stamped += result.stamped;
        totals.written += result.written;
        totals.unchanged += result.unchanged;
        const retried = result.attempts > 1 ? `, ${result.attempts} attempts (a bot wrote meanwhile)` : '';
        console.log(
          `[${i + 1}/${ids.length}] ${accountId}: ${result.closedTrades} closed trades, ${result.entries} roll-up periods, ${result.written} written, ${result.unchanged} unchanged, ${result.stamped} trades given their currency${retried}`,
        );
      } catch (error) {
        failed += 1;
        console.error(`[${i + 1}/${ids.length}] ${accountId}: failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // The fleet's summary adds up the accounts' statistics, so it comes after every account's; only a whole run that
    // failed nowhere marks it complete: the fleet's answers trust it from then on.
    const complete = !values.account && !failed;
    const fleet = complete ? await rebuildFleet(store, windowSeconds) : undefined;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${ids.length} accounts, ${totals.trades} closed trades, ${totals.entries} roll-up periods: ${totals.written} written, ${totals.unchanged} unchanged, ${totals.stamped} trades given their currency, ${failed} failed${fleet ? `; fleet summary: stamps written for ${fleet.stamped} accounts, ${fleet.sumsWritten} of ${fleet.sums} currency sums written, marked complete` : ''}, in ${seconds} s`,
    );
  } finally {
    writer.close();
    store.client.destroy();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`backfill: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
