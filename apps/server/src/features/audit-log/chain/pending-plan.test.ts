import type { Database } from '@secadmin/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlanDatabase, type PlanNode, planRecorder } from '../../../../test/helpers/plans.js';
import { newId } from '../../../lib/ids.js';
import { EntriesRepository } from '../entries/repository.js';
import { monthOf, PartitionsRepository } from '../partitions/repository.js';
import { ChainRepository } from './repository.js';

/** Months of partitions, as a log that keeps three years has; the entries fill the last three. */
const MONTHS = 36;
const ENTRIES = 600;

const all = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(all)];

/** How many times the statement looked into a month of the log (index probes and scans). */
const partitionVisits = (plan: PlanNode) =>
  all(plan)
    .filter((node) => node['Relation Name']?.startsWith('log_entries'))
    .reduce((sum, node) => sum + (node['Actual Loops'] ?? 0), 0);

// It is the plan at many partitions that is guarded here; every chain test runs the same
// statement on a few.
describe('the sealer reads queued entries from their own month (PostgreSQL)', () => {
  let opened: Awaited<ReturnType<typeof openPlanDatabase>>;
  let db: Database;
  let recorder: ReturnType<typeof planRecorder>;
  let chain: ChainRepository;

  beforeAll(async () => {
    opened = await openPlanDatabase();
    db = opened.db;
    const connection = { db: db.prisma, sql: db.query };
    const partitions = new PartitionsRepository(connection);
    const first = Date.UTC(2023, 0, 1);
    for (let m = 0; m < MONTHS; m++) {
      const from = new Date(first);
      from.setUTCMonth(from.getUTCMonth() + m);
      await partitions.create(monthOf(from));
    }
    const last = new Date(first);
    last.setUTCMonth(last.getUTCMonth() + MONTHS - 3);
    await new EntriesRepository(connection).insert(
      Array.from({ length: ENTRIES }, (_, i) => ({
        id: newId('log'),
        timestamp: new Date(last.getTime() + i * 3 * 3_600_000),
        event: 'user.login',
        actorType: 'user',
        result: 'success',
        origin: 'api',
        metadata: { n: i },
      })),
    );
    await db.query('ANALYZE');
    recorder = planRecorder(db, { analyze: true });
    chain = new ChainRepository(recorder.connection);
  }, 120_000);
  afterAll(() => opened?.close());

  it('probes one month per queued entry, however many months the log keeps', async () => {
    recorder.take();
    const { queued } = await chain.pending(ENTRIES, 64 * 1024 * 1024);
    expect(queued).toHaveLength(ENTRIES);
    expect(queued.every((q) => q.entry?.id === q.entryId)).toBe(true);
    const plans = recorder.take();
    expect(plans).toHaveLength(1);
    // By id alone: a probe of every month's index per entry, or a scan of every month.
    expect(partitionVisits(plans[0] as PlanNode)).toBe(ENTRIES);
  });

  it('still finds an entry queued without its timestamp (before it was kept)', async () => {
    await db.query(
      'UPDATE log_seal_queue SET entry_timestamp = NULL WHERE n = (SELECT min(n) FROM log_seal_queue)',
    );
    const { queued } = await chain.pending(ENTRIES, 64 * 1024 * 1024);
    expect(queued).toHaveLength(ENTRIES);
    expect(queued.every((q) => q.entry?.id === q.entryId)).toBe(true);
  });
});
