/**
 * `npm run backfill -- [--stage NAME] [--endpoint URL] [--account ID]`
 *
 * Writes the performance statistics of API 1.2 for trade histories written before the writer kept them (see
 * the writer's backfill): every account, or one; then, on a whole run, the fleet's sums of them per
 * currency and shard. Idempotent: a second run writes nothing. Safe while bots
 * write. Locally into `npm start`'s database (DB_PORT); with --stage into that deployed stage (AWS credentials and
 * region from the environment). Prints one line per account and a total; exits 1 when an account failed.
 */
import './support/quiet-sdk';
import { backfillAccount, backfillFleetSums, fleetSumGroups, markBackfilled } from '@trading-bot-api/writer';
import { commandLine, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';

const USAGE = 'usage: npm run backfill -- [--stage NAME] [--endpoint URL] [--account ID]';

async function main() {
  const parsed = commandLine('backfill', USAGE, { stage: { type: 'string' }, endpoint: { type: 'string' }, account: { type: 'string' } });
  if (!parsed) return;
  const { values, positionals } = parsed;
  if (positionals.length) usageFailure('backfill', USAGE, `unexpected ${positionals.join(' ')}`);
  const writer = targetWriter({ stage: values.stage, endpoint: values.endpoint });
  const started = performance.now();
  let failed = 0;
  const totals = { trades: 0, entries: 0, written: 0, unchanged: 0, stamped: 0 };
  try {
    const ids = values.account ? [values.account] : (await writer.listAccounts()).map(({ account }) => account.id);
    for (const [i, accountId] of ids.entries()) {
      try {
        const result = await backfillAccount(writer, accountId);
        totals.trades += result.closedTrades;
        totals.entries += result.entries;
        totals.written += result.written;
        totals.unchanged += result.unchanged;
        if (result.stamped) totals.stamped += 1;
        const retried = result.attempts > 1 ? `, ${result.attempts} attempts (a bot wrote meanwhile)` : '';
        console.log(
          `[${i + 1}/${ids.length}] ${accountId}: ${result.closedTrades} closed trades, ${result.entries} days × instruments, ${result.written} written, ${result.unchanged} unchanged${result.stamped ? ', fleet stamps written' : ''}${retried}`,
        );
      } catch (error) {
        failed += 1;
        console.error(`[${i + 1}/${ids.length}] ${accountId}: failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // The fleet's sums add up the accounts' statistics, so they come after every account's.
    let sums = 0;
    if (!values.account && !failed) {
      for (const group of await fleetSumGroups(writer)) {
        const name = `fleet ${group.currency} shard ${group.shard}`;
        try {
          const result = await backfillFleetSums(writer, group.currency, group.shard);
          sums += result.written;
          const retried = result.attempts > 1 ? `, ${result.attempts} attempts (a bot wrote meanwhile)` : '';
          console.log(`${name}: ${result.accounts} accounts, ${result.entries} days × instruments, ${result.written} written${retried}`);
        } catch (error) {
          failed += 1;
          console.error(`${name}: failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    // Only a whole run that failed nowhere makes the stamps and sums complete: the fleet's answers trust them from then on.
    const complete = !values.account && !failed;
    if (complete) await markBackfilled(writer);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `${ids.length} accounts, ${totals.trades} closed trades, ${totals.entries} days × instruments: ${totals.written} written, ${totals.unchanged} unchanged, fleet stamps written for ${totals.stamped}, fleet sums ${sums} written${complete ? ', marked complete' : ''}, ${failed} failed, in ${seconds} s`,
    );
  } finally {
    writer.close();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`backfill: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
