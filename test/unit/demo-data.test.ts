/**
 * The demo's data tells one believable story: its history ends when `npm start` loads it; a bot that is not running
 * opened nothing since it last reported, and a stopped one is flat and silent since; each account's balance history
 * runs over its trades, with unrealized P&L and margin only while a trade is open; every amount has its currency's
 * places; every trade of an instrument lies on that instrument's one price path with a plausible daily range; and
 * the demo bot's prices carry on from the last seeded price; the first account's broker account, mirrored, differs
 * from it by one close and one manual order.
 */
import { decimalScale, decimalSign, sumDecimals } from '@trading-bot-api/core/decimal';
import { reconcile } from '@trading-bot-api/core/reconciliation';
import { demoDataset, INSTRUMENTS, MIRRORED_TRADES, PricePaths, placesOf, random } from '../../scripts/demo/dataset';
import { nextPrice } from '../../scripts/demo/demo-bot';

const NOW = new Date('2026-11-23T10:00:00.000Z');
const HOUR = 3_600_000;
const dataset = demoDataset(NOW);
const volatilityOf = (name: string) => INSTRUMENTS.find((instrument) => instrument.name === name)!.dailyVolatility;
const tradesOf = (accountId: string) => dataset.trades.filter((trade) => trade.accountId === accountId);
/** The account's snapshots, oldest first: its history, then its last balance. */
const snapshotsOf = ({ balance, history }: (typeof dataset.accounts)[number]) => [...history, { ...balance, time: balance.updatedAt }];
const at = (time: string | null) => (time === null ? Infinity : Date.parse(time));

it('ends its history at the moment it is loaded: the newest trade, the last balance and the equity series reach now', () => {
  const newestOpen = Math.max(...dataset.trades.map((trade) => Date.parse(trade.openTime)));
  expect(NOW.getTime() - newestOpen).toBeLessThan(HOUR);
  for (const { bot, balance, history } of dataset.accounts) {
    // A stopped bot's last balance is the one it recorded when it stopped (below); every other reaches now.
    const end = bot.state === 'stopped' ? Date.parse(bot.lastHeartbeatAt!) : NOW.getTime();
    expect(end - Date.parse(balance.updatedAt)).toBeLessThan(60_000);
    // A snapshot every 6 hours: the last is at most 6 hours older, so the equity chart has no gap before the live demo.
    expect(Date.parse(balance.updatedAt) - Date.parse(history.at(-1)!.time)).toBeLessThanOrEqual(6 * HOUR);
  }
});

it('has a bot that is not running open nothing after it last reported, and a stopped one flat and silent since', () => {
  const states = Object.fromEntries(dataset.accounts.map(({ account, bot }) => [account.id, bot.state]));
  // The demo shows each state, and the ones not running reported hours ago.
  expect(states).toEqual({
    'primary-usd': 'running',
    'euro-swing': 'paused',
    'sterling-carry': 'running',
    'gold-desk': 'stopped',
    'paper-sandbox': 'error',
  });
  for (const { account, bot, balance, history } of dataset.accounts) {
    if (bot.state === 'running') continue;
    const reported = Date.parse(bot.lastHeartbeatAt!);
    expect(NOW.getTime() - reported).toBeGreaterThanOrEqual(2 * HOUR);
    expect(tradesOf(account.id).filter((trade) => Date.parse(trade.openTime) > reported)).toEqual([]);
    if (bot.state !== 'stopped') continue;
    expect(NOW.getTime() - reported).toBe(4 * HOUR);
    expect(tradesOf(account.id).length).toBeGreaterThan(0);
    expect(tradesOf(account.id).filter((trade) => trade.status === 'open' || at(trade.closeTime) > reported)).toEqual([]);
    expect(balance).toMatchObject({ openTradeCount: 0, unrealizedPL: '0.00', marginUsed: '0.00' });
    expect([...history.map((snapshot) => snapshot.time), balance.updatedAt].filter((time) => Date.parse(time) > reported)).toEqual([]);
  }
});

it('shows no unrealized P&L or margin before an account’s first trade opened, nor while none is open', () => {
  for (const entry of dataset.accounts) {
    const trades = tradesOf(entry.account.id);
    const firstOpen = Math.min(...trades.map((trade) => at(trade.openTime)));
    const snapshots = snapshotsOf(entry);
    // The history starts before the first trade, at the deposit: flat until then.
    expect(Date.parse(snapshots[0].time)).toBeLessThan(firstOpen);
    const idle = snapshots.filter(
      (snapshot) =>
        !trades.some((trade) => at(trade.openTime) <= Date.parse(snapshot.time) && at(trade.closeTime) > Date.parse(snapshot.time)),
    );
    expect(idle.length).toBeGreaterThan(0);
    expect(idle.filter((snapshot) => decimalSign(snapshot.unrealizedPL) !== 0 || decimalSign(snapshot.marginUsed) !== 0)).toEqual([]);
    // While trades are open, the account shows them: most of the time an open position moves the NAV.
    const busy = snapshots.filter((snapshot) => !idle.includes(snapshot));
    if (trades.length) expect(busy.filter((snapshot) => decimalSign(snapshot.unrealizedPL) !== 0).length).toBeGreaterThan(busy.length / 2);
  }
});

it('spans each account’s equity history over its trades: from a day before the first opened to its last balance', () => {
  for (const entry of dataset.accounts) {
    const trades = tradesOf(entry.account.id);
    const snapshots = snapshotsOf(entry);
    const first = Date.parse(snapshots[0].time);
    // An account opened a day before its first trade (one that never traded, a day before its bot last reported).
    const firstActivity = trades.length ? Math.min(...trades.map((trade) => at(trade.openTime))) : Date.parse(entry.bot.lastHeartbeatAt!);
    expect(Date.parse(entry.account.createdAt)).toBe(firstActivity - 24 * HOUR);
    expect(first - Date.parse(entry.account.createdAt)).toBeGreaterThanOrEqual(0);
    expect(first - Date.parse(entry.account.createdAt)).toBeLessThan(6 * HOUR);
    // A snapshot every 6 hours from then on, to the last balance: nothing weeks before the trades, nothing missing.
    const gaps = snapshots.slice(1).map((snapshot, i) => Date.parse(snapshot.time) - Date.parse(snapshots[i].time));
    expect(gaps.filter((gap) => gap <= 0 || gap > 6 * HOUR)).toEqual([]);
    const lastEvent = Math.max(...trades.map((trade) => Math.max(at(trade.openTime), trade.closeTime === null ? 0 : at(trade.closeTime))));
    expect(Date.parse(entry.balance.updatedAt)).toBeGreaterThanOrEqual(trades.length ? lastEvent : 0);
  }
  // The account with the most trades has weeks of them, and its history covers all of them.
  const primary = dataset.accounts[0];
  expect(Date.parse(primary.history[0].time)).toBeLessThan(NOW.getTime() - 60 * 24 * HOUR);
});

it('writes each account’s amounts with its currency’s places: every close’s realized P&L, the marks, the balances', () => {
  for (const entry of dataset.accounts) {
    const places = placesOf(entry.account.currency);
    expect(places).toBe(2);
    const trades = tradesOf(entry.account.id);
    const closed = trades.filter((trade) => trade.status === 'closed');
    const open = trades.filter((trade) => trade.status === 'open');
    expect(closed.filter((trade) => decimalScale(trade.realizedPL) !== places)).toEqual([]);
    expect(open.filter((trade) => decimalScale(trade.unrealizedPL) !== places)).toEqual([]);
    // What nobody realized or holds is "0", as the writer stores a figure a bot leaves out (the demo bot's opens).
    expect(open.filter((trade) => trade.realizedPL !== '0')).toEqual([]);
    expect(closed.filter((trade) => trade.unrealizedPL !== '0')).toEqual([]);
    const amounts = snapshotsOf(entry).flatMap(({ balance, unrealizedPL, nav, marginUsed, marginAvailable }) => [
      balance,
      unrealizedPL,
      nav,
      marginUsed,
      marginAvailable,
    ]);
    expect(amounts.filter((amount) => decimalScale(amount) !== places)).toEqual([]);
    // The account's realized P&L is the writer's sum of its closes ("0" for none), so it has the same places.
    expect(entry.balance.realizedPL).toBe(sumDecimals(['0', ...closed.map((trade) => trade.realizedPL)]));
    expect(decimalScale(entry.balance.realizedPL)).toBe(closed.length ? places : 0);
    // The last balance's unrealized P&L is its open trades' marks.
    expect(entry.balance.unrealizedPL).toBe(sumDecimals(['0.00', ...open.map((trade) => trade.unrealizedPL)]));
  }
});

it('is the same story whenever it is loaded: only the times move, by exactly the difference', () => {
  const later = demoDataset(new Date(NOW.getTime() + 86_400_000 * 3 + 1234));
  expect(later.trades.length).toBe(dataset.trades.length);
  const shift = (time: string | null) => (time === null ? null : new Date(Date.parse(time) + 86_400_000 * 3 + 1234).toISOString());
  expect(later.trades).toEqual(
    dataset.trades.map((trade) => ({ ...trade, openTime: shift(trade.openTime), closeTime: shift(trade.closeTime) })),
  );
  expect(demoDataset(NOW)).toEqual(dataset);
});

it('keeps each instrument’s prices on a day within a range that market has on a busy day', () => {
  const byDay = new Map<string, number[]>();
  for (const trade of dataset.trades) {
    for (const [price, time] of [
      [trade.openPrice, trade.openTime],
      [trade.closePrice, trade.closeTime],
    ] as const) {
      if (price === null || time === null) continue;
      const key = `${trade.instrument} ${time.slice(0, 10)}`;
      byDay.set(key, [...(byDay.get(key) ?? []), Number(price)]);
    }
  }
  const tooWide = [...byDay]
    .map(([key, prices]) => ({ key, range: (Math.max(...prices) - Math.min(...prices)) / Math.min(...prices) }))
    .filter(({ key, range }) => range > 4 * volatilityOf(key.split(' ')[0]));
  expect(tooWide).toEqual([]);
});

it('marks the open trades at the price where the demo bot starts, so its first closes are small', () => {
  const paths = new PricePaths(NOW.getTime(), 1);
  for (const instrument of INSTRUMENTS) expect(paths.at(instrument, NOW.getTime())).toBe(instrument.price);
  const open = dataset.trades.filter((trade) => trade.status === 'open');
  expect(open.length).toBeGreaterThan(3);
  // Each open trade's unrealized P&L is its move since it opened: well under 1 % of its value.
  const large = open.filter(
    (trade) =>
      Math.abs(Number(trade.unrealizedPL)) >
      (Number(trade.units) * Number(trade.openPrice) * 0.01) / (trade.instrument === 'USD_JPY' ? 150 : 1),
  );
  expect(large).toEqual([]);
});

it('walks the demo bot’s prices from the anchor price with a plausible daily range', () => {
  const next = random(20261122);
  for (const instrument of INSTRUMENTS) {
    let price = BigInt(Math.round(instrument.price * 10 ** instrument.scale));
    for (let day = 0; day < 3; day++) {
      let low = price;
      let high = price;
      for (let tick = 0; tick < 43_200; tick++) {
        price = nextPrice(instrument, price, 2, next);
        if (price < low) low = price;
        if (price > high) high = price;
      }
      expect({ instrument: instrument.name, day, range: Number(high - low) / Number(low) < 4 * instrument.dailyVolatility }).toEqual({
        instrument: instrument.name,
        day,
        range: true,
      });
    }
  }
});

it('mirrors the first account’s broker account: its newest trades matched but one close the broker lacks, and one manual order', () => {
  const mirror = dataset.mirror!;
  expect([mirror.reconcileWith, mirror.account.id, mirror.balance.nav]).toEqual([
    'primary-usd',
    'primary-usd-broker',
    dataset.accounts[0].balance.nav,
  ]);
  const found = reconcile({
    trades: tradesOf('primary-usd'),
    fills: mirror.fills,
    balances: { bot: dataset.accounts[0].balance, exchange: mirror.balance },
  });
  const named = tradesOf('primary-usd').filter((trade) => trade.orderIds);
  expect(named).toHaveLength(MIRRORED_TRADES);
  expect([found.matched, found.unchecked]).toEqual([MIRRORED_TRADES - 1, tradesOf('primary-usd').length - MIRRORED_TRADES]);
  const unfilled = named.find((trade) => trade.status === 'closed')!;
  expect(found.differences.map(({ kind, tradeId, orderId }) => ({ kind, tradeId, orderId }))).toEqual([
    { kind: 'missing_on_exchange', tradeId: unfilled.id, orderId: unfilled.orderIds![1] },
    { kind: 'missing_in_bot', tradeId: null, orderId: '7099999' },
  ]);
});

it("prices the demo's currencies into USD from its broker feed, on the instruments' paths: daily, then every 6 hours for a week, and now", () => {
  const { rates } = dataset.mirror!;
  const times = rates.map((entry) => Date.parse(entry.time));
  const firstOpening = Math.min(...dataset.accounts.map(({ account }) => Date.parse(account.createdAt!)));
  expect(times).toEqual([...times].sort((a, b) => a - b));
  // Each day's 18:00 from the first account's opening (so every daily equity point has its day's prices), then 6-hourly.
  expect(times[0] - firstOpening).toBeLessThanOrEqual(24 * HOUR);
  const weekAgo = NOW.getTime() - 7 * 24 * HOUR;
  expect(times.filter((time) => time < weekAgo).every((time) => new Date(time).getUTCHours() === 18)).toBe(true);
  const gaps = (list: number[]) => list.slice(1).map((time, i) => time - list[i]);
  const [daily, recent] = [times.filter((time) => time < weekAgo), times.slice(0, -1).filter((time) => time >= weekAgo)];
  expect(new Set(gaps(daily))).toEqual(new Set([24 * HOUR]));
  expect(new Set(gaps(recent))).toEqual(new Set([6 * HOUR]));
  expect(recent[0] - weekAgo).toBeLessThan(6 * HOUR);
  // Now: the prices where the demo bot's walk starts, so a reporting total does not jump when it takes over.
  expect(rates.at(-1)).toEqual({
    exchange: 'oanda',
    time: NOW.toISOString(),
    prices: [
      { base: 'EUR', quote: 'USD', price: '1.08420' },
      { base: 'GBP', quote: 'USD', price: '1.26710' },
    ],
  });
});
