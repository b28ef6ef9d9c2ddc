/**
 * `npm run backup -- --out FILE [--stage NAME] [--endpoint URL]`
 *
 * A consistent copy of the single-machine stack's data (`npm start`'s database on DB_PORT), taken while it runs:
 * every account, its balance, trades and ledger, the API keys and the alerts' state, as JSON lines
 * (scripts/support/backup.ts says what consistent means and how). Written to FILE.partial, then renamed: FILE is
 * whole or absent. Readable by its owner alone (it holds the API keys' hashes and every trade). A deployed stage
 * is backed up by DynamoDB's point-in-time recovery instead (docs/operations.md).
 */
import './support/quiet-sdk';
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { adminClient } from './local-stack/local-db';
import { takeBackup } from './support/backup';
import { commandLine, runCommand, TARGET_OPTIONS, usageFailure } from './support/command-line';
import { checkTarget, resolveTarget } from './support/write-target';

const USAGE = 'usage: npm run backup -- --out FILE [--stage NAME] [--endpoint URL]';

async function main() {
  const { values, positionals } = commandLine('backup', USAGE, {
    out: { type: 'string' },
    ...TARGET_OPTIONS,
  });
  if (positionals.length) usageFailure('backup', USAGE, `unexpected ${positionals.join(' ')}`);
  if (!values.out) usageFailure('backup', USAGE, '--out FILE is required');
  const target = resolveTarget(values);
  if (!target.endpoint)
    usageFailure(
      'backup',
      USAGE,
      `stage ${target.stage} is in AWS: back it up with DynamoDB's point-in-time recovery (docs/operations.md)`,
    );
  await checkTarget(target, true);
  const partial = `${values.out}.partial`;
  const file = openSync(partial, 'w', 0o600);
  const client = adminClient(target.endpoint);
  try {
    const footer = await takeBackup(client, target.stage, (line) => writeSync(file, `${line}\n`));
    closeSync(file);
    renameSync(partial, values.out);
    const items = Object.values(footer.items).reduce((sum, count) => sum + count, 0);
    console.log(`backup: ${footer.accounts} accounts, ${footer.items.trades} trades, ${items} items in all, to ${values.out}`);
  } catch (error) {
    closeSync(file);
    rmSync(partial, { force: true });
    throw error;
  } finally {
    client.destroy();
  }
}

runCommand('backup', main);
