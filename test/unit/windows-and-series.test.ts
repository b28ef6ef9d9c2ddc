/**
 * The pure parts of API 1.1: time parameters, the predecessor key that makes an exclusive bound a key range,
 * windows of whole periods, the fleet summary, and entity tags.
 */
import fc from 'fast-check';
import { entityTag, noneMatch } from '../../api/http/etag';
import { parseTimeParameter } from '../../api/http/params';
import { ACCOUNT_ID, TRADE_ID } from '@trading-bot-api/core/ids';
import { seriesWindow } from '../../api/operations/window';
import { summarize } from '../../api/operations/account-status';
import { keyBefore, orderKey } from '@trading-bot-api/core/store/trades-table';
import { parseTime, periodsBetween, periodStart, shiftPeriodStart, timestamp } from '@trading-bot-api/core/time';
import type { AccountStatus } from '@trading-bot-api/core/types';
import { propertyRuns } from '../kit/property-runs';

describe('time parameters', () => {
  it('read four-digit years as written, the years 0 to 99 included', () => {
    expect(timestamp(parseTime('0050-06-01T00:00:00Z')!)).toBe('0050-06-01T00:00:00.000Z');
    expect(timestamp(parseTime('0001-01-01T00:00:00+00:00')!)).toBe('0001-01-01T00:00:00.000Z');
  });

  it('must fall between the first and last stored instants', () => {
    expect(parseTimeParameter('0000-01-01T00:00:00Z')).toBe(Date.parse('0000-01-01T00:00:00.000Z'));
    expect(parseTimeParameter('9999-12-31T23:59:59.999Z')).toBe(Date.parse('9999-12-31T23:59:59.999Z'));
    expect(() => parseTimeParameter('9999-12-31T23:59:59-00:01')).toThrow('must fall between');
    expect(() => parseTimeParameter('0000-01-01T00:00:00+00:01')).toThrow('must fall between');
    expect(() => parseTimeParameter('2026-11-22T10:00:00')).toThrow('with a zone');
  });

  it('take the RFC 3339 forms openapi.yaml lists, and say what is wrong with the others', () => {
    const instant = Date.parse('2026-11-01T09:00:00.000Z');
    for (const form of ['2026-11-01T09:00:00Z', '2026-11-01t09:00:00z', '2026-11-01T09:00:00-00:00', '2026-11-01T18:00:00+09:00'])
      expect(parseTimeParameter(form)).toBe(instant);
    expect(parseTimeParameter('2026-11-01T09:00:00.123456789Z') - instant).toBeCloseTo(123.456789, 4);
    expect(() => parseTimeParameter('2026-11-01T09:00:00.1234567890Z')).toThrow('with a zone');
    expect(() => parseTimeParameter('2026-11-01 09:00:00Z')).toThrow('with T (RFC 3339), not a space');
    expect(() => parseTimeParameter('2016-12-31T23:59:60Z')).toThrow('leap second');
    expect(() => parseTimeParameter('2026-11-01T09:00:00+0900')).toThrow('with a zone');
    expect(() => parseTimeParameter('+02026-11-01T09:00:00Z')).toThrow('with a zone');
  });

  it("read a date alone as that day's start in UTC, and refuse a date that does not exist", () => {
    expect(parseTimeParameter('2026-11-27')).toBe(Date.parse('2026-11-27T00:00:00.000Z'));
    expect(parseTimeParameter('0000-01-01')).toBe(Date.parse('0000-01-01T00:00:00.000Z'));
    expect(parseTimeParameter('9999-12-31')).toBe(Date.parse('9999-12-31T00:00:00.000Z'));
    for (const wrong of ['2026-02-30', '2026-11-1', '20261127', '2026-11-27Z', '2026-11'])
      expect(() => parseTimeParameter(wrong)).toThrow('or a date alone (2026-11-01: its start in UTC)');
  });
});

describe('keyBefore: the exclusive upper bound of a key range', () => {
  // Every id the alphabet allows (packages/core/src/ids.ts), `all` included: the key order does not depend on which
  // are reserved.
  const id = fc.stringMatching(TRADE_ID);
  const account = fc.stringMatching(ACCOUNT_ID);
  const time = fc.integer({ min: Date.parse('2020-01-01'), max: Date.parse('2030-01-01') }).map(timestamp);
  const key = fc.record({ openTime: time, id, accountId: account }).map(orderKey);

  it('sorts below its key and above every key that sorts below it', () => {
    fc.assert(
      fc.property(key, key, (a, b) => {
        // Within the keys the table can hold, `b <= keyBefore(a)` exactly when `b < a` (as DynamoDB and JS order them).
        expect(b <= keyBefore(a)).toBe(b < a);
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  it('works for a bare time too (a window’s end): a trade opened at that time sorts above it', () => {
    fc.assert(
      fc.property(time, key, (end, b) => {
        expect(b <= keyBefore(end)).toBe(b.slice(0, 24) < end);
      }),
      { numRuns: propertyRuns(2000) },
    );
  });
});

describe('periods', () => {
  it('hours, days, weeks and months shift and count', () => {
    const start = Date.parse('2026-01-31T00:00:00Z');
    expect(timestamp(shiftPeriodStart(periodStart(start, 'month'), 'month', 1))).toBe('2026-02-01T00:00:00.000Z');
    expect(timestamp(shiftPeriodStart(Date.parse('2026-01-01T00:00:00Z'), 'month', -12))).toBe('2025-01-01T00:00:00.000Z');
    expect(timestamp(periodStart(Date.parse('2026-03-29T01:59:59.999Z'), 'hour'))).toBe('2026-03-29T01:00:00.000Z');
    expect(periodsBetween(Date.parse('2025-11-01T00:00:00Z'), Date.parse('2026-03-01T00:00:00Z'), 'month')).toBe(4);
    expect(periodsBetween(Date.parse('2025-12-29T00:00:00Z'), Date.parse('2026-01-12T00:00:00Z'), 'week')).toBe(2);
    expect(periodsBetween(Date.parse('2026-03-28T21:00:00Z'), Date.parse('2026-03-31T21:00:00Z'), 'hour')).toBe(72);
    expect(timestamp(periodStart(Date.parse('0050-03-15T00:00:00Z'), 'month'))).toBe('0050-03-01T00:00:00.000Z');
  });
});

describe('seriesWindow', () => {
  const now = new Date('2026-11-22T10:15:00.000Z');
  const at = (text: string) => Date.parse(text);
  const iso = (window: { from: number; to: number; starts: number[] }) => [
    timestamp(window.from),
    timestamp(window.to),
    window.starts.length,
  ];

  it('defaults to the periods ending with the current one', () => {
    expect(iso(seriesWindow('day', {}, now, 30, 366))).toEqual(['2026-10-24T00:00:00.000Z', '2026-11-23T00:00:00.000Z', 30]);
    expect(iso(seriesWindow('week', {}, now, 12, 366))).toEqual(['2026-08-31T00:00:00.000Z', '2026-11-23T00:00:00.000Z', 12]);
    expect(iso(seriesWindow('month', {}, now, 12, 366))).toEqual(['2025-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', 12]);
    expect(iso(seriesWindow('hour', {}, now, 168, 1000))).toEqual(['2026-11-15T11:00:00.000Z', '2026-11-22T11:00:00.000Z', 168]);
  });

  it('widens to whole periods, keeps bounds already on them, and counts from `to` without `from`', () => {
    expect(iso(seriesWindow('day', { from: at('2026-11-01T12:00:00Z'), to: at('2026-11-03T00:00:00.001Z') }, now, 30, 366))).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-04T00:00:00.000Z',
      3,
    ]);
    expect(iso(seriesWindow('month', { to: at('2026-03-01T00:00:00Z') }, now, 12, 366))).toEqual([
      '2025-03-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      12,
    ]);
    expect(iso(seriesWindow('day', { from: at('2026-11-20T00:00:00Z') }, now, 30, 366))).toEqual([
      '2026-11-20T00:00:00.000Z',
      '2026-11-23T00:00:00.000Z',
      3,
    ]);
  });

  it('refuses from at or after to (given or default), and too many points', () => {
    expect(() => seriesWindow('day', { from: at('2026-11-02T00:00:00Z'), to: at('2026-11-01T00:00:00Z') }, now, 30, 366)).toThrow(
      'from: must be earlier than to',
    );
    expect(() => seriesWindow('day', { from: at('2027-01-01T00:00:00Z') }, now, 30, 366)).toThrow(
      'from: must be earlier than to (which defaults',
    );
    expect(() => seriesWindow('day', { from: at('2025-01-01T00:00:00Z'), to: at('2026-01-03T00:00:00Z') }, now, 30, 366)).toThrow(
      'from: makes a window of 367 days; at most 366',
    );
    expect(iso(seriesWindow('day', { from: at('2025-01-01T00:00:00Z'), to: at('2026-01-02T00:00:00Z') }, now, 30, 366))[2]).toBe(366);
  });

  it('refuses a window that four-digit years cannot write, naming the bound that made it', () => {
    // Counted back 90 days from the first instant; widened past the last; a week that began in the year -1.
    expect(() => seriesWindow('day', { to: at('0000-01-01T00:00:00Z') }, now, 90, 366)).toThrow(
      'to: makes the window start before 0000-01-01T00:00:00.000Z (counted back 90 days)',
    );
    expect(() => seriesWindow('day', { from: at('9999-12-01T00:00:00Z'), to: at('9999-12-31T23:59:59Z') }, now, 30, 366)).toThrow(
      'to: makes the window end after 9999-12-31T23:59:59.999Z (moved forward to the end of its day)',
    );
    expect(() => seriesWindow('week', { from: at('0000-01-01T00:00:00Z'), to: at('0000-02-01T00:00:00Z') }, now, 12, 366)).toThrow(
      'from: makes the window start before 0000-01-01T00:00:00.000Z (moved back to the start of its week)',
    );
    // Inside them, the edges themselves are fine.
    expect(iso(seriesWindow('day', { from: at('0000-01-01T00:00:00Z'), to: at('0000-01-03T00:00:00Z') }, now, 30, 366))).toEqual([
      '0000-01-01T00:00:00.000Z',
      '0000-01-03T00:00:00.000Z',
      2,
    ]);
    expect(iso(seriesWindow('month', { from: at('9999-01-01T00:00:00Z'), to: at('9999-12-01T00:00:00Z') }, now, 12, 366))[1]).toBe(
      '9999-12-01T00:00:00.000Z',
    );
  });
});

it('summarize counts states, a stale bot as stale and not as running: the counts add up to the total', () => {
  const status = (state: AccountStatus['state'], stale = false) => ({ state, stale }) as AccountStatus;
  expect(summarize([status('running'), status('running', true), status('paused'), status('error'), status('error')])).toEqual({
    total: 5,
    running: 1,
    paused: 1,
    stopped: 0,
    error: 2,
    stale: 1,
  });
  expect(summarize([])).toEqual({ total: 0, running: 0, paused: 0, stopped: 0, error: 0, stale: 0 });
});

describe('entity tags', () => {
  it('equal bodies have equal strong tags, different bodies different ones', () => {
    expect(entityTag('{"a":1}')).toBe(entityTag('{"a":1}'));
    expect(entityTag('{"a":1}')).not.toBe(entityTag('{"a":2}'));
    expect(entityTag('{}')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it('If-None-Match: the tag, its weak form, a list holding it, or *', () => {
    const tag = entityTag('body');
    for (const header of [tag, `W/${tag}`, `"a", ${tag}`, ` ${tag} `, '*']) expect(noneMatch(header, tag)).toBe(true);
    for (const header of [undefined, '', '"a"', tag.slice(1), `${tag}x`]) expect(noneMatch(header, tag)).toBe(false);
  });
});
