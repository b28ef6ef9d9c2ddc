/**
 * Writes a dataset through the writer (packages/writer), as a bot would: the accounts, their trade histories, their
 * balance snapshots (the history, then the last) and a heartbeat each. The demo, the tests and the benchmark all load their data this way, so every key,
 * counter and aggregate they read was made by the writer.
 */
import pMap from 'p-map';
import { createWriter, type Writer, type WriterOptions } from '@trading-bot-api/writer';
import type { Dataset } from '../demo/dataset';
import tables from '../../resources/tables.js';
import { createStore, type Store } from '@trading-bot-api/core/store/dynamodb';
import { localStore } from '../local-stack/local-db';
import { checkTarget } from './write-target';

/** Trades per recordTrades call: the writer groups them into transactions of up to 100 items. */
const CHUNK = 500;

/**
 * Writes `dataset`; accounts go several at a time (each account's writes are in order). `onProgress` hears the
 * number of trades written so far.
 */
export async function loadDataset(
  writer: Writer,
  dataset: Dataset,
  onProgress: (trades: number, total: number) => void = () => {},
): Promise<void> {
  const byAccount = new Map<string, Dataset['trades']>();
  for (const trade of dataset.trades) byAccount.set(trade.accountId, [...(byAccount.get(trade.accountId) ?? []), trade]);
  let written = 0;
  await pMap(
    dataset.accounts,
    async ({ account, bot, balance, history }) => {
      await writer.upsertAccount(account);
      const trades = byAccount.get(account.id) ?? [];
      for (let start = 0; start < trades.length; start += CHUNK) {
        const results = await writer.recordTrades(account.id, trades.slice(start, start + CHUNK));
        const failed = results.find((result) => 'error' in result);
        if (failed && 'error' in failed) throw new Error(`loading ${account.id}: trade ${failed.id}: ${failed.error.message}`);
        written += results.length;
        onProgress(written, dataset.trades.length);
      }
      // The history and then the last snapshot, as the bot recorded them one by one; in a few transactions.
      await writer.recordBalances(account.id, [...history, { ...balance, time: balance.updatedAt }]);
      await writer.heartbeat(account.id, {
        state: bot.state,
        strategy: bot.strategy,
        message: bot.message,
        time: bot.lastHeartbeatAt ?? bot.updatedAt,
      });
    },
    { concurrency: 4 },
  );
  if (dataset.mirror) await loadMirror(writer, dataset.mirror);
}

/**
 * A mirrored broker account as an exchange feed writes one (its prices, its balance, its fills with a checkpoint), retired so the
 * fleet does not count the bot's money twice, then its bot's account reconciled with it.
 */
async function loadMirror(
  writer: Writer,
  { account, balance, fills, reconcileWith, rates }: NonNullable<Dataset['mirror']>,
): Promise<void> {
  await writer.upsertAccount(account);
  // Its feed's prices, oldest first, before its balance (as a sync writes them): the last are the newest.
  for (const entry of rates) await writer.recordRates(account.id, entry);
  await writer.recordBalance(account.id, { ...balance, time: balance.updatedAt });
  await writer.heartbeat(account.id, { state: 'running', time: balance.updatedAt });
  await writer.advanceFeed(account.id, 'dataset', 0, [{ trades: [], state: { fills: fills.length }, fills }]);
  await writer.retireAccount(account.id);
  await writer.reconcile(reconcileWith, account.id);
}

/** The writer a command of the project writes with, once its target is checked and named (write-target.ts). */
export async function targetWriter(options: { stage?: string; endpoint?: string }): Promise<Writer> {
  const { stage, endpoint } = await checkTarget(options);
  return endpoint ? localWriter(endpoint, { stage }) : createWriter({ stage });
}

/** The store of the same tables, for what is not the writer's (the fleet's summary, API keys); checked likewise. */
export async function targetStore(options: { stage?: string; endpoint?: string }): Promise<Store> {
  const { stage, endpoint } = await checkTarget(options);
  return endpoint
    ? localStore(endpoint, stage)
    : // In AWS: the SDK's own chain for credentials and region (AWS_PROFILE, the environment, ...).
      createStore({ tables: tables.tableNames(stage), connectTimeoutMs: 2000, requestTimeoutMs: 5000, maxAttempts: 3 });
}

/** A writer for a local DynamoDB (DynamoDB Local takes any credentials; the writer signs with placeholders). */
export function localWriter(endpoint: string, options: Omit<WriterOptions, 'endpoint' | 'credentials'>): Writer {
  return createWriter({ ...options, endpoint, region: 'us-east-1' });
}
