import { oldestUpdate, totalBalances } from '@trading-bot-api/core/store/balances-table';
import { readConfig } from '../../api/read-config';
import { toAccountStatus } from '../../api/operations/account-status';
import type { Balance, BotReport } from '@trading-bot-api/core/types';

const bot = (overrides: Partial<BotReport>): BotReport => ({
  state: 'running',
  lastHeartbeatAt: '2026-11-21T12:00:00.000Z',
  strategy: null,
  message: null,
  updatedAt: '2026-11-21T12:00:00.000Z',
  ...overrides,
});

const none = { openTradeCount: 0, lastTradeAt: null };

describe('toAccountStatus', () => {
  const now = new Date('2026-11-21T12:05:00.500Z');
  it('is fresh while the heartbeat is within the threshold', () => {
    expect(toAccountStatus('a', bot({}), { openTradeCount: 3, lastTradeAt: '2026-11-21T11:00:00.000Z' }, now, 300)).toMatchObject({
      stale: false,
      heartbeatAgeSeconds: 300,
      openTradeCount: 3,
      lastTradeAt: '2026-11-21T11:00:00.000Z',
    });
  });
  it('is stale when running and silent for longer than the threshold, or never heard from', () => {
    expect(toAccountStatus('a', bot({}), none, now, 299).stale).toBe(true);
    expect(toAccountStatus('a', bot({ lastHeartbeatAt: null }), none, now, 300)).toMatchObject({ stale: true, heartbeatAgeSeconds: null });
  });
  it('is never stale when not running', () => {
    for (const state of ['paused', 'stopped', 'error'] as const) {
      expect(toAccountStatus('a', bot({ state, lastHeartbeatAt: '2020-01-01T00:00:00.000Z' }), none, now, 300).stale).toBe(false);
    }
  });
});

const balance = (accountId: string, currency: string, amount: string, updatedAt: string): Balance => ({
  accountId,
  currency,
  balance: amount,
  unrealizedPL: '-0.0100',
  nav: amount,
  realizedPL: '1',
  marginUsed: '0.0000',
  marginAvailable: amount,
  openTradeCount: 2,
  updatedAt,
});

describe('totalBalances', () => {
  it('sums each currency exactly, never across currencies', () => {
    const totals = totalBalances([
      balance('a', 'USD', '12345678901234567890.1234', '2026-11-21T12:00:00.000Z'),
      balance('b', 'EUR', '10.00', '2026-11-21T11:00:00.000Z'),
      balance('c', 'USD', '0.0001', '2026-11-21T13:00:00.000Z'),
    ]);
    expect(totals.map((t) => t.currency)).toEqual(['EUR', 'USD']);
    expect(totals[1]).toEqual({
      currency: 'USD',
      balance: '12345678901234567890.1235',
      unrealizedPL: '-0.0200',
      nav: '12345678901234567890.1235',
      realizedPL: '2',
      marginUsed: '0.0000',
      marginAvailable: '12345678901234567890.1235',
      openTradeCount: 4,
      accountCount: 2,
    });
  });
  it('reports the oldest update, or null for none', () => {
    expect(oldestUpdate([balance('a', 'USD', '1', '2026-11-21T12:00:00.000Z'), balance('b', 'USD', '1', '2026-11-21T11:00:00.000Z')])).toBe(
      '2026-11-21T11:00:00.000Z',
    );
    expect(oldestUpdate([])).toBeNull();
  });
});

describe('readConfig', () => {
  const env = {
    ACCOUNTS_TABLE: 'a',
    BALANCES_TABLE: 'b',
    TRADES_TABLE: 't',
    API_KEYS_TABLE: 'k',
    LEDGER_TABLE: 'l',
    FLEET_TABLE: 'f',
    AWS_REGION: 'eu-west-1',
    CURSOR_SECRET: 'x'.repeat(32),
    STAGE: 'test',
  };
  it('reads a complete environment with defaults', () => {
    expect(readConfig(env)).toMatchObject({ authMode: 'required', staleAfterSeconds: 300, dynamodb: { maxAttempts: 3 } });
  });
  it('fails fast, naming the variable', () => {
    expect(() => readConfig({ ...env, TRADES_TABLE: undefined })).toThrow('TRADES_TABLE');
    expect(() => readConfig({ ...env, LEDGER_TABLE: undefined })).toThrow('LEDGER_TABLE');
    expect(() => readConfig({ ...env, CURSOR_SECRET: 'short' })).toThrow('CURSOR_SECRET');
    expect(() => readConfig({ ...env, CURSOR_SECRET: '{{resolve:secretsmanager:trading-bot-api/prod/cursor-secret}}' })).toThrow(
      'unresolved',
    );
    expect(() => readConfig({ ...env, STALE_AFTER_SECONDS: '5m' })).toThrow('STALE_AFTER_SECONDS');
    expect(() => readConfig({ ...env, AUTH_MODE: 'maybe' })).toThrow('AUTH_MODE');
    expect(() => readConfig({ ...env, LOG_LEVEL: 'LOUD' })).toThrow('LOG_LEVEL');
    expect(() => readConfig({ ...env, STAGE: undefined })).toThrow('STAGE');
  });
});
