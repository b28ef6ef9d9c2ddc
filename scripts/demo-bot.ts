/**
 * `npm run demo-bot -- [--seconds N] [--seed N] [--quiet]`: the simulated bot of `npm start` (see
 * scripts/demo/demo-bot.ts), run against an `npm start` that is already running (its database on DB_PORT), until
 * Ctrl-C or for N seconds. Prints each open and close. Run it with `DEMO_BOT=off npm start` to be the only bot.
 */
import './support/quiet-sdk';
import { DemoBot } from './demo/demo-bot';
import { commandLine, runCommand, usageFailure } from './support/command-line';
import { targetWriter } from './support/load-data';

const USAGE = 'usage: npm run demo-bot -- [--seconds N] [--seed N] [--quiet]';

const fail: (message: string) => never = (message) => usageFailure('demo-bot', USAGE, message);

async function main() {
  const { values, positionals } = commandLine('demo-bot', USAGE, {
    seconds: { type: 'string' },
    seed: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  });
  if (positionals.length) fail(`unexpected ${positionals.join(' ')}`);
  const number = (name: string, raw: string | undefined) => {
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) fail(`--${name} must be a positive whole number`);
    return Number(raw);
  };
  const seconds = number('seconds', values.seconds);
  const seed = number('seed', values.seed);
  const writer = await targetWriter({});
  const bot = new DemoBot({
    writer,
    seed,
    verbose: !values.quiet,
    log: (line) => console.log(line),
  });
  try {
    await bot.load();
  } catch (error) {
    writer.close();
    fail(`${(error as Error).message} (is npm start running, with DB_PORT=${process.env.DB_PORT ?? 8000}?)`);
  }
  const stop = async () => {
    await bot.stop();
    writer.close();
    const { opened, closed, heartbeats, errors } = bot.counts;
    console.log(`demo-bot: ${opened} opened, ${closed} closed, ${heartbeats} heartbeats, ${errors} errors`);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  bot.start();
  console.log(`demo-bot: trading the demo accounts${seconds ? ` for ${seconds} s` : ''} (Ctrl-C to stop)`);
  if (seconds) setTimeout(() => void stop(), seconds * 1000);
}

runCommand('demo-bot', main);
