import { EquityHistory } from '../../scripts/support/opening-balance';

it('an opening snapshot, then one per day with closes at its last close, the realized P&L summed exactly', () => {
  const history = new EquityHistory();
  history.add({ status: 'closed', openTime: '2026-11-02T10:00:00Z', closeTime: '2026-11-02T23:59:59.999Z', realizedPL: '0.1' });
  history.add({ status: 'closed', openTime: '2026-11-01T10:00:00.000Z', closeTime: '2026-11-02T01:00:00Z', realizedPL: '0.2' });
  history.add({ status: 'open', openTime: '2026-10-31T00:00:00Z', closeTime: null, realizedPL: '0' });
  history.add({ status: 'closed', openTime: '2026-11-03T10:00:00Z', closeTime: '2026-11-04T00:00:00Z', realizedPL: '-1000.30' });
  expect(history.snapshots('1000').map(({ time, balance, nav }) => [time, balance, nav])).toEqual([
    ['2026-10-31T00:00:00.000Z', '1000', '1000'],
    ['2026-11-02T23:59:59.999Z', '1000.3', '1000.3'],
    ['2026-11-04T00:00:00.000Z', '0.00', '0.00'],
  ]);
  expect(new EquityHistory().snapshots('5')).toEqual([]);
});
