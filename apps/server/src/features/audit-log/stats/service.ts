import type { components } from '@secadmin/api-types';
import { invalid } from '../../../lib/errors.js';
import { isoMillis } from '../../../lib/time.js';
import type { IndexFreshness } from '../analytics/freshness.js';
import type { StatsField, StatsStore } from '../analytics/stats-store.js';
import { parseRange } from '../range.js';
import type { Scan } from '../scans.js';
import { parseSearchQuery } from '../search/query.js';
import { planBuckets } from './buckets.js';

type LogStatsRequest = components['schemas']['LogStatsRequest'];
type LogStats = components['schemas']['LogStats'];

export class StatsService {
  constructor(
    private readonly scan: Scan,
    private readonly counts: Pick<StatsStore, 'count'>,
    private readonly freshness: IndexFreshness,
  ) {}

  /** `caller`: the principal asking, whose turns at the store are bounded (`Scan`). */
  async stats(request: LogStatsRequest, caller: string) {
    const { from, to } = parseRange(request.from, request.to);
    // The schema requires both; parseRange answers what it was given.
    if (!from || !to) throw invalid(from ? 'to' : 'from', 'is required');
    const query = request.query === undefined ? undefined : parseSearchQuery(request.query);
    const plan = planBuckets(from, to, request.interval ?? 'auto');
    const fields: StatsField[] = request.groupBy ?? [];
    const indexed = await this.freshness.answering();
    const counted = await this.scan(caller, () =>
      this.counts.count({ query, from, to }, plan, fields),
    );
    const buckets = Array.from({ length: plan.count }, (_, i) => ({
      start: isoMillis(new Date(plan.firstStart.getTime() + i * plan.widthMs)),
      count: 0,
    }));
    let total = 0;
    for (const { start, count } of counted.buckets) {
      const bucket = buckets[(start.getTime() - plan.firstStart.getTime()) / plan.widthMs];
      if (bucket) bucket.count = count;
      total += count;
    }
    const stats: LogStats = {
      interval: plan.interval,
      buckets,
      ...(request.groupBy ? { facets: Object.fromEntries(counted.facets) } : {}),
      total,
      totalRelation: 'eq',
    };
    return { stats, indexed };
  }
}
