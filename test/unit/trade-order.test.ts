import { mergeNewestFirst } from '../../api/operations/newest-first';
import { accountOfOrderKey, isOrderKey, orderKey, tradeItem, tradeListing, toTrade } from '@trading-bot-api/core/store/trades-table';
import type { Trade } from '@trading-bot-api/core/types';
import { generateDataset } from '../../scripts/demo/dataset';
import { compareNewestFirst } from '../kit/expected';
import { UNKNOWN_DETAILS } from '../kit/trade-details';

const trade = (accountId: string, id: string, openTime: string): Trade => ({
  id,
  accountId,
  instrument: 'EUR_USD',
  side: 'buy',
  units: '1000',
  status: 'open',
  openPrice: '1.08420',
  openTime,
  closePrice: null,
  closeTime: null,
  realizedPL: '0.0000',
  unrealizedPL: '1.2000',
  stopLoss: null,
  takeProfit: null,
  closeReason: null,
  ...UNKNOWN_DETAILS,
});

describe('order keys', () => {
  it('sort as strings exactly as the API orders trades (openTime, then id, then account, all descending)', () => {
    const { trades } = generateDataset({ tradeCounts: [300, 200, 100] });
    const T = '2026-11-01T10:00:00.000Z';
    trades.push(trade('b', '12', T), trade('a', '123', T), trade('a', '12', T), trade('z', '12', T), trade('a', '1-2', T));
    const byKey = [...trades].sort((x, y) => (orderKey(x) < orderKey(y) ? 1 : -1));
    expect(byKey).toEqual([...trades].sort(compareNewestFirst));
  });

  it('name the account they belong to', () => {
    const key = orderKey(trade('euro-swing', 'x-1', '2026-11-01T10:00:00.000Z'));
    expect(isOrderKey(key)).toBe(true);
    expect(accountOfOrderKey(key)).toBe('euro-swing');
    expect(isOrderKey('2026-11-01#x')).toBe(false);
  });
});

describe('mergeNewestFirst', () => {
  it('is the global order of the union, cut at the count', () => {
    const { trades } = generateDataset({ tradeCounts: [50, 0, 80, 7] });
    const lists = ['acc-0001', 'acc-0002', 'acc-0003', 'acc-0004'].map((id) =>
      trades.filter((t) => t.accountId === id).sort(compareNewestFirst),
    );
    const all = [...trades].sort(compareNewestFirst);
    expect(mergeNewestFirst(lists, 1000)).toEqual(all);
    expect(mergeNewestFirst(lists, 17)).toEqual(all.slice(0, 17));
    expect(mergeNewestFirst([], 5)).toEqual([]);
  });
});

describe('trade items', () => {
  it('round-trip through the stored form, nulls included', () => {
    const open = trade('a', 't1', '2026-11-01T10:00:00.000Z');
    const item = tradeItem(open);
    expect(item).not.toHaveProperty('closePrice');
    expect(item.accountStatusInstrument).toBe('a#open#EUR_USD');
    expect(toTrade(item)).toEqual(open);
  });

  it('choose the listing that holds exactly the filter', () => {
    expect(tradeListing('a', {})).toEqual({ partitionKey: 'accountId', partitionValue: 'a' });
    expect(tradeListing('a', { status: 'open', instrument: 'EUR_USD' })).toMatchObject({
      indexName: 'account-status-instrument',
      partitionValue: 'a#open#EUR_USD',
    });
    expect(tradeListing(undefined, {})).toMatchObject({ indexName: 'all', partitionValue: 'ALL' });
    expect(tradeListing(undefined, { instrument: 'EUR_USD' })).toMatchObject({ indexName: 'instrument', partitionValue: 'EUR_USD' });
    expect(tradeListing(undefined, { status: 'closed' })).toMatchObject({ indexName: 'status', partitionValue: 'closed' });
  });
});
