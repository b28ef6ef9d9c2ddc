/**
 * `npm run accounts -- list [--retired] [--stage NAME] [--endpoint URL]`
 * `npm run accounts -- retire ID [ID...] [--stage NAME] [--endpoint URL]`
 * `npm run accounts -- restore ID [ID...] [--stage NAME] [--endpoint URL]`
 *
 * The accounts of a stage and their bots, and retirement: a retired account leaves the fleet (`/api/accounts`, the
 * fleet's status and balances, the dashboard's fleet, the probe and its alarms) while its history stays readable by
 * id; a test bot's account, or a bot taken down for good, no longer shows as a stale card. `restore` brings it back.
 * Locally into `npm start`'s database (DB_PORT); with --stage into that deployed stage (AWS credentials from the
 * environment). Exit: 0; 1 when an account could not be changed (no such account); 2 when the command is wrong.
 */
import './support/quiet-sdk';
import { isRefusal } from '@trading-bot-api/writer';
import { commandLine, TARGET_OPTIONS, runCommand, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';

const USAGE = [
  'usage: npm run accounts -- list [--retired] [--stage NAME] [--endpoint URL]',
  '       npm run accounts -- retire ID [ID...] [--stage NAME] [--endpoint URL]',
  '       npm run accounts -- restore ID [ID...] [--stage NAME] [--endpoint URL]',
].join('\n');

const fail: (message: string) => never = (message) => usageFailure('accounts', USAGE, message);

/** A table of lines, each column as wide as its widest cell. */
function columns(rows: string[][]): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

async function main() {
  const { values, positionals } = commandLine('accounts', USAGE, {
    retired: { type: 'boolean', default: false },
    ...TARGET_OPTIONS,
  });
  const [verb, ...ids] = positionals;
  if (verb !== 'list' && verb !== 'retire' && verb !== 'restore') fail(verb ? `unknown command ${verb}` : 'say list, retire or restore');
  if (verb === 'list' && ids.length) fail(`list takes no account ids (got ${ids.join(' ')})`);
  if (verb !== 'list' && !ids.length) fail(`say which account to ${verb}`);
  if (verb !== 'list' && values.retired) fail('--retired goes with list');

  const writer = await targetWriter({ stage: values.stage, endpoint: values.endpoint });
  try {
    if (verb === 'list') {
      const rows = (await writer.listAccounts())
        .filter(({ retiredAt }) => !values.retired || retiredAt !== null)
        .map(({ account, bot, retiredAt, balance }) => [
          account.id,
          account.name,
          account.currency,
          account.environment,
          bot.state,
          bot.lastHeartbeatAt ?? 'never',
          String(balance?.openTradeCount ?? 0),
          retiredAt === null ? '' : `retired ${retiredAt}`,
        ]);
      if (!rows.length) {
        console.log(values.retired ? 'No retired accounts.' : 'No accounts.');
        return;
      }
      for (const line of columns([['ID', 'NAME', 'CURRENCY', 'ENVIRONMENT', 'BOT', 'LAST HEARTBEAT', 'OPEN', ''], ...rows]))
        console.log(line);
      return;
    }
    for (const id of ids) {
      try {
        const outcome = verb === 'retire' ? await writer.retireAccount(id) : await writer.restoreAccount(id);
        const said = {
          retired: `retired: out of the fleet, the probe and the alarms; its history stays readable by id (npm run accounts -- restore ${id} brings it back)`,
          restored: 'restored: back in the fleet',
          unchanged: verb === 'retire' ? 'retired already' : 'not retired',
        }[outcome];
        console.log(`${id}: ${said}`);
      } catch (error) {
        // An account's own refusal is said and the next id tried; the database's failure ends the command.
        if (!isRefusal(error)) throw error;
        console.error(`${id}: ${error.message}`);
        process.exitCode = 1;
      }
    }
  } finally {
    writer.close();
  }
}

runCommand('accounts', main);
