/**
 * `npm run restore -- FILE [--stage NAME] [--endpoint URL]`
 *
 * Puts a backup (`npm run backup`) back into a stage that holds no account: `npm start`'s database on DB_PORT,
 * started empty (move .data/dynamodb aside, then `DEMO=off npm start`; docs/operations.md). The file is read whole
 * and checked before anything is written; the accounts go in last, so a restore stopped part-way shows no account
 * and may be run again with the same file. Then the fleet's summary is rebuilt from what was put back.
 */
import './support/quiet-sdk';
import { rebuildFleet } from '../api/projector/rebuild';
import { adminClient, localStore } from './local-stack/local-db';
import { putBack, readBackup, stageIsEmpty } from './support/backup';
import { commandLine, failureText, runCommand, TARGET_OPTIONS, usageFailure } from './support/command-line';
import { checkTarget, resolveTarget } from './support/write-target';

const USAGE = 'usage: npm run restore -- FILE [--stage NAME] [--endpoint URL]';

class Refused extends Error {}

async function main() {
  const { values, positionals } = commandLine('restore', USAGE, { ...TARGET_OPTIONS });
  if (positionals.length !== 1)
    usageFailure('restore', USAGE, positionals.length ? `one file, not ${positionals.join(' ')}` : 'say which backup FILE');
  const target = resolveTarget(values);
  if (!target.endpoint)
    usageFailure(
      'restore',
      USAGE,
      `stage ${target.stage} is in AWS: restore it with DynamoDB's point-in-time recovery (docs/operations.md)`,
    );
  const backup = await readBackup(positionals[0]).catch((error: Error) => {
    throw new Refused((error as NodeJS.ErrnoException).code === 'ENOENT' ? `no file ${positionals[0]}` : error.message);
  });
  await checkTarget(target);
  const client = adminClient(target.endpoint);
  const store = localStore(target.endpoint, target.stage);
  try {
    if (!(await stageIsEmpty(client, target.stage)))
      throw new Refused(
        `stage ${target.stage} already holds accounts: a backup goes back into an empty stage. Stop npm start, move ` +
          '.data/dynamodb aside (keep it until the restore is checked), start again with DEMO=off npm start, then restore.',
      );
    await putBack(client, target.stage, backup.items);
    await rebuildFleet(store);
    const { header, footer } = backup;
    console.log(
      `restore: ${footer.accounts} accounts, ${footer.items.trades} trades, ${backup.items.length} items in all, ` +
        `from ${positionals[0]} (stage ${header.stage}, taken ${header.takenAt}); the fleet's summary rebuilt`,
    );
  } finally {
    client.destroy();
    store.client.destroy();
  }
}

runCommand('restore', main, { text: (error) => failureText(error, [Refused]) });
