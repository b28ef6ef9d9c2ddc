/**
 * A small bot feeding Trading Bot API through the writer package: it creates its account, opens a trade, follows its
 * price, closes it, records the balance and heartbeats. Run against `npm start` (which prints its DB_PORT):
 *
 *   npx tsx examples/typescript-bot/bot.ts            # in this repository, after `npm run build -w packages/writer`
 *
 * In a bot's own repository: `npm install ./trading-bot-api-writer-1.0.0.tgz` (from `npm pack -w packages/writer`).
 * Deployed, drop `endpoint` and give the process AWS credentials limited to the stack's bot-writer policy.
 */
import { createWriter, WriterError } from '@trading-bot-api/writer';

const account = process.env.BOT_ACCOUNT ?? 'example-ts';
const writer = createWriter({
  stage: process.env.STAGE ?? 'local',
  // npm start's DynamoDB Local; unset for AWS.
  endpoint: process.env.STAGE ? undefined : `http://127.0.0.1:${process.env.DB_PORT ?? 8000}`,
  // The local stage calls a bot stale after 60 s: refresh its fleet stamp every 30 s (deployed, 300 s: the default 240).
  stampSeconds: process.env.STAGE ? undefined : 30,
});

// --- account
await writer.upsertAccount({ id: account, name: 'Example TS bot', currency: 'USD', broker: 'OANDA', environment: 'paper' });

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
// --- end

// A refusal names the field; UNAVAILABLE means the database did not answer: the call is safe to repeat.
try {
  await writer.closeTrade(account, tradeId, { closePrice: '1.2', closeTime: new Date().toISOString(), realizedPL: '999' });
} catch (error) {
  if (!(error instanceof WriterError)) throw error;
  console.log(`refused as expected: ${error.code}`);
}
writer.close();
console.log(`wrote account ${account} and trade ${tradeId}`);
