/**
 * A small bot feeding Trading Bot API through the writer package: it creates its account, writes a history of its
 * earlier trades, opens a trade, follows its price, closes it, records the balance and heartbeats. Run against
 * `npm start` (which prints its DB_PORT):
 *
 *   cd examples/typescript-bot && npx tsx bot.ts      # in this repository, after `npm run build -w packages/writer`
 *
 * (From this folder, with its own tsconfig.json, the package resolves to its built files; from the repository's root,
 * whose tsconfig.json maps @trading-bot-api/writer to its sources, it would run the sources instead.)
 *
 * In a bot's own repository: `npm install ./trading-bot-api-writer-1.0.0.tgz` (from `npm pack -w packages/writer`).
 * Deployed, drop `endpoint` and give the process AWS credentials limited to the stack's bot-writer policy.
 */
import { createWriter, WriterError } from '@trading-bot-api/writer';

// --- account
const account = process.env.BOT_ACCOUNT ?? 'example-ts';
// Against npm start: its DynamoDB Local, on the DB_PORT it prints. Deployed (STAGE set): no endpoint, AWS credentials
// and region from the environment, e.g. createWriter({ stage: 'prod' }).
const writer = createWriter({
  stage: process.env.STAGE ?? 'local',
  endpoint: process.env.STAGE ? undefined : `http://127.0.0.1:${process.env.DB_PORT ?? 8000}`,
});
await writer.upsertAccount({ id: account, name: 'Example TS bot', currency: 'USD', broker: 'OANDA', environment: 'paper' });

// --- history: the trades the bot made before it wrote here, in the API's Trade shape, written in as few
// transactions as fit; given again (a bot restarting), the same trades write nothing
const history = [
  {
    id: 'ex-history-1', instrument: 'EUR_USD', side: 'sell', units: '5000', status: 'closed',
    openPrice: '1.08900', openTime: '2026-01-05T09:00:00.000Z',
    closePrice: '1.08700', closeTime: '2026-01-05T15:30:00.000Z', realizedPL: '10.00',
  },
];
for (const result of await writer.recordTrades(account, history)) { // one result per trade, in order
  if ('error' in result) console.log(`history trade ${result.index} refused: ${result.error.code}`);
}

// --- trade
const tradeId = `ex-${Date.now()}`;
const openTime = new Date().toISOString();
await writer.openTrade(account, {
  id: tradeId, instrument: 'EUR_USD', side: 'buy', units: '10000',
  openPrice: '1.08420', openTime, stopLoss: '1.08000', takeProfit: '1.09200',
});
await writer.updateTradeMarks(account, tradeId, { unrealizedPL: '12.40' });
await writer.closeTrade(account, tradeId, { closePrice: '1.08610', closeTime: new Date().toISOString(), realizedPL: '19.00' });

// --- balance and heartbeat
await writer.recordBalance(account, {
  balance: '10019.00', unrealizedPL: '0', nav: '10019.00', marginUsed: '0', marginAvailable: '10019.00',
  time: new Date().toISOString(),
});
await writer.heartbeat(account, { state: 'running', strategy: 'example' }); // every few seconds while it runs

// A refusal names the field; UNAVAILABLE means the database did not answer: the call is safe to repeat;
// MISCONFIGURED means it refused the writer (a missing table or permission, named): retrying will not help.
try {
  await writer.closeTrade(account, tradeId, { closePrice: '1.2', closeTime: new Date().toISOString(), realizedPL: '999' });
} catch (error) {
  if (!(error instanceof WriterError)) throw error;
  console.log(`refused as expected: ${error.code}`);
}
// --- end
writer.close();
console.log(`wrote account ${account} and trade ${tradeId}`);
// This example stops here, so its bot turns stale: say how to take its account out of the fleet (writer.retireAccount).
console.log(`Done trying it? npm run accounts -- retire ${account} takes it out of the fleet; its history stays.`);
