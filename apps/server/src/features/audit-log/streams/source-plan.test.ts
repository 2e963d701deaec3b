import type { Database } from '@secadmin/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlanDatabase, type PlanNode, planRecorder } from '../../../../test/helpers/plans.js';
import { newId } from '../../../lib/ids.js';
import { EntriesRepository } from '../entries/repository.js';
import { SealedEntries } from './source.js';

const ENTRIES = 3_000;
const BATCH = 1_000;

const all = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(all)];

/** How many entries the statement looked up (its probes into the log's partitions). */
const entriesRead = (plan: PlanNode) =>
  Math.max(
    ...all(plan)
      .filter((node) => node['Relation Name']?.startsWith('log_entries'))
      .map((node) => node['Actual Loops'] ?? 0),
  );

// The plan is what is guarded here; every log-stream test runs the same statement.
describe('a log stream reads a batch of sealed entries (PostgreSQL)', () => {
  let opened: Awaited<ReturnType<typeof openPlanDatabase>>;
  let db: Database;
  let recorder: ReturnType<typeof planRecorder>;

  beforeAll(async () => {
    opened = await openPlanDatabase();
    db = opened.db;
    const ids = Array.from({ length: ENTRIES }, () => newId('log'));
    const connection = { db: db.prisma, sql: db.query };
    await new EntriesRepository(connection).insert(
      ids.map((id, i) => ({
        id,
        timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000),
        event: i % 2 === 0 ? 'user.login' : 'user.logout',
        actorType: 'user',
        result: 'success',
        origin: 'api',
        metadata: { i },
      })),
    );
    await db.query(
      `INSERT INTO log_chain (seq, entry_id, hash, prev_hash, sealed_at, canonical_version)
       SELECT i, (ARRAY[${ids.map((_, i) => `$${i + 1}`).join(', ')}])[i], md5(i::text), md5((i - 1)::text),
              now(), 2
       FROM generate_series(1, ${ENTRIES}) AS i`,
      ids,
    );
    await db.query('ANALYZE');
    recorder = planRecorder(db, { analyze: true });
  }, 120_000);
  afterAll(() => opened?.close());

  it('looks up only the entries of the batch, in seq order, from the chain', async () => {
    const source = new SealedEntries(recorder.connection);
    const { entries } = await source.between(1, ENTRIES, {}, BATCH);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: BATCH }, (_, i) => i + 1));
    const [plan] = recorder.take();
    expect(entriesRead(plan as PlanNode)).toBe(BATCH);
  });

  it('with a filter, looks up the entries it passes over and no more', async () => {
    const source = new SealedEntries(recorder.connection);
    const { entries } = await source.between(1, ENTRIES, { events: ['user.login'] }, BATCH / 2);
    expect(entries).toHaveLength(BATCH / 2);
    expect(entries.every((e) => JSON.parse(e.json).event === 'user.login')).toBe(true);
    const [plan] = recorder.take();
    // Every other entry matches: the batch's 500 and the 499 between them.
    expect(entriesRead(plan as PlanNode)).toBe(BATCH - 1);
  });
});
