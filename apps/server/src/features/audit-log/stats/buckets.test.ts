import { describe, expect, it } from 'vitest';
import { Invalid } from '../../../lib/errors.js';
import { MAX_BUCKETS, planBuckets } from './buckets.js';

const at = (iso: string) => new Date(iso);
const MINUTE = 60_000;
const DAY = 86_400_000;
const plan = (from: string, to: string, interval: Parameters<typeof planBuckets>[2]) => {
  const p = planBuckets(at(from), at(to), interval);
  return { interval: p.interval, first: p.firstStart.toISOString(), count: p.count };
};

describe('planBuckets', () => {
  it('aligns the first bucket to the UTC boundary holding from, the last to the one holding the instant before to', () => {
    expect(plan('2026-03-10T10:07:30Z', '2026-03-10T11:00:00Z', '15m')).toEqual({
      interval: '15m',
      first: '2026-03-10T10:00:00.000Z',
      count: 4,
    });
    // `to` on a boundary opens no bucket; a millisecond past it does.
    expect(plan('2026-03-10T10:00:00Z', '2026-03-10T11:00:00Z', '1h').count).toBe(1);
    expect(plan('2026-03-10T10:00:00Z', '2026-03-10T11:00:00.001Z', '1h').count).toBe(2);
    expect(plan('2026-03-10T10:00:00Z', '2026-03-10T10:00:00.001Z', '1d')).toEqual({
      interval: '1d',
      first: '2026-03-10T00:00:00.000Z',
      count: 1,
    });
    expect(plan('2026-03-10T05:59:59.999Z', '2026-03-10T06:00:00.001Z', '6h')).toEqual({
      interval: '6h',
      first: '2026-03-10T00:00:00.000Z',
      count: 2,
    });
  });

  it('aligns to UTC, not to local time, across a DST change and before 1970', () => {
    // Europe and the US change clocks on these dates; UTC buckets do not notice.
    expect(plan('2026-03-29T00:30:00+01:00', '2026-03-30T00:00:00Z', '1d')).toEqual({
      interval: '1d',
      first: '2026-03-28T00:00:00.000Z',
      count: 2,
    });
    expect(plan('2026-11-01T01:30:00-04:00', '2026-11-01T12:00:00Z', '6h').first).toBe(
      '2026-11-01T00:00:00.000Z',
    );
    expect(plan('1969-12-31T23:59:30Z', '1970-01-01T00:00:30Z', '1m')).toEqual({
      interval: '1m',
      first: '1969-12-31T23:59:00.000Z',
      count: 2,
    });
    expect(plan('0001-01-01T00:00:00Z', '0001-01-01T00:10:00Z', '5m')).toEqual({
      interval: '5m',
      first: '0001-01-01T00:00:00.000Z',
      count: 2,
    });
  });

  it('auto: the narrowest interval giving at most 200 buckets', () => {
    const from = '2026-03-10T00:00:00Z';
    const plusMinutes = (m: number) => new Date(at(from).getTime() + m * MINUTE).toISOString();
    expect(plan(from, plusMinutes(200), 'auto')).toMatchObject({ interval: '1m', count: 200 });
    expect(plan(from, plusMinutes(201), 'auto')).toMatchObject({ interval: '5m', count: 41 });
    // Unaligned, 200 minutes touch 201 one-minute buckets.
    expect(plan('2026-03-10T00:00:30Z', '2026-03-10T03:20:30Z', 'auto')).toMatchObject({
      interval: '5m',
      count: 41,
    });
    expect(plan(from, plusMinutes(200 * 60), 'auto')).toMatchObject({ interval: '1h', count: 200 });
    expect(plan(from, plusMinutes(200 * 60 + 1), 'auto')).toMatchObject({ interval: '6h' });
    const plusDays = (d: number) => new Date(at(from).getTime() + d * DAY).toISOString();
    expect(plan(from, plusDays(50), 'auto')).toMatchObject({ interval: '6h', count: 200 });
    expect(plan(from, plusDays(200), 'auto')).toMatchObject({ interval: '1d', count: 200 });
    expect(plan(from, plusDays(201), 'auto')).toMatchObject({ interval: '1d', count: 201 });
    expect(plan(from, plusDays(MAX_BUCKETS), 'auto')).toMatchObject({ count: MAX_BUCKETS });
    expect(() => plan(from, plusDays(MAX_BUCKETS + 1), 'auto')).toThrow(Invalid);
  });

  it('refuses an interval giving more than 10,000 buckets, naming the interval', () => {
    const from = '2026-03-10T00:00:00Z';
    const to = (minutes: number) => new Date(at(from).getTime() + minutes * MINUTE).toISOString();
    expect(plan(from, to(MAX_BUCKETS), '1m').count).toBe(MAX_BUCKETS);
    let thrown: unknown;
    try {
      plan(from, to(MAX_BUCKETS + 1), '1m');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Invalid);
    expect((thrown as Invalid).problems).toEqual([
      { field: 'interval', message: expect.stringContaining('10001 buckets') },
    ]);
  });
});
