/**
 * The demo's data tells one believable story: its history ends when `npm start` loads it, every trade of an
 * instrument lies on that instrument's one price path with a plausible daily range, and the demo bot's prices carry
 * on from the last seeded price.
 */
import { demoDataset, INSTRUMENTS, PricePaths, random } from '../../scripts/support/dataset';
import { nextPrice } from '../../scripts/support/demo-bot';

const NOW = new Date('2026-11-23T10:00:00.000Z');
const dataset = demoDataset(NOW);
const volatilityOf = (name: string) => INSTRUMENTS.find((instrument) => instrument.name === name)!.dailyVolatility;

it('ends its history at the moment it is loaded: the newest trade, the last balance and the equity series reach now', () => {
  const newestOpen = Math.max(...dataset.trades.map((trade) => Date.parse(trade.openTime)));
  expect(NOW.getTime() - newestOpen).toBeLessThan(3_600_000);
  for (const { balance, history } of dataset.accounts) {
    expect(NOW.getTime() - Date.parse(balance.updatedAt)).toBeLessThan(60_000);
    // A snapshot every 6 hours: the last is at most 6 hours old, so the equity chart has no gap before the live demo.
    expect(NOW.getTime() - Date.parse(history.at(-1)!.time)).toBeLessThanOrEqual(6 * 3_600_000);
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
