import type { Database } from '@secadmin/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPlanDatabase, type PlanNode, planRecorder } from '../../../../test/helpers/plans.js';
import type { LogOrigin } from '../origin.js';
import { monthOf, PartitionsRepository } from '../partitions/repository.js';
import { parseSearchQuery } from './query.js';
import { SearchRepository } from './repository.js';

// The plans guarded here are those at scale: a database of its own, seeded big enough for the
// planner to care (every other search test runs the same SQL on a small log).
const ROWS = 60_000;

/**
 * Words: zephyr in 1 of 4 entries (more than 10,000), quasar 1 of 40, falcon 1 of 37,
 * pulsar 12, magnetar 2, xylophonist none; a phrase in 1 of 13; 2,000 actors with about 30
 * entries each and a service account in 1 of 50; about 60 entries per IP; 1 of 11 fails.
 */
const SEED = `
INSERT INTO log_entries (id, timestamp, event, actor_id, actor_email, actor_type, target_id,
  target_type, ip, user_agent, city, country, result, metadata, origin)
SELECT 'log_' || lpad(i::text, 26, '0'), timestamptz '2026-01-01' + i * interval '1 second',
  (ARRAY['user.login', 'user.logout', 'user.password_reset.failed', 'file.download',
    'policy.updated', 'session.expired'])[i % 6 + 1],
  CASE WHEN i % 50 = 0 THEN 'svc_backup' ELSE 'user_' || (i % 2000) END,
  CASE WHEN i % 50 = 0 THEN NULL ELSE 'emp' || (i % 2000) || '@corp.example' END,
  CASE WHEN i % 50 = 0 THEN 'service' ELSE 'user' END,
  'res_' || (i % 777), 'document', '10.1.' || ((i / 7) % 4) || '.' || (i % 251),
  (ARRAY['Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0', 'curl/8.5.0'])[i % 2 + 1],
  (ARRAY['Berlin', 'Paris', 'Osaka'])[i % 3 + 1], (ARRAY['DE', 'FR', 'JP'])[i % 3 + 1],
  CASE WHEN i % 11 = 0 THEN 'failure' ELSE 'success' END,
  jsonb_build_object('requestNo', i, 'note', concat_ws(' ',
    CASE WHEN i % 4 = 0 THEN 'zephyr' END, CASE WHEN i % 40 = 3 THEN 'quasar' END,
    CASE WHEN i % 37 = 0 THEN 'falcon' END, CASE WHEN i % 5003 = 5 THEN 'pulsar' END,
    CASE WHEN i IN (1234, 56789) THEN 'magnetar' END,
    CASE WHEN i % 13 = 0 THEN 'suspicious login pattern' ELSE 'routine' END)),
  'api'
FROM generate_series(0, $1::int - 1) AS i`;

/** Queries with few hits: the inverted index alone must answer them. */
const RARE = [
  'xylophonist',
  'magnetar',
  'pulsar',
  'pulsar OR magnetar',
  'actor:emp42@corp.example',
  'ip:10.1.0.42 zephyr',
  'ip:10.1.2.3',
  'result:failure magnetar',
  'event:file.download pulsar',
];

/** Queries with many hits: found among the newest entries, counted up to the bound. */
const COMMON = [
  'zephyr',
  'zephyr -quasar',
  '"suspicious login pattern"',
  'zephyr OR falcon',
  'event:user.login -zephyr',
  'actor:svc_backup',
  'result:failure',
];

/** Every node of a plan, with whether a Limit stops it early (no Sort or the like between). */
function nodes(plan: PlanNode, bounded = false): { node: PlanNode; bounded: boolean }[] {
  const type = plan['Node Type'];
  const stillBounded =
    type === 'Limit' || (bounded && ['Subquery Scan', 'Result', 'Gather'].includes(type));
  return [
    { node: plan, bounded: stillBounded },
    ...(plan.Plans ?? []).flatMap((child) => nodes(child, stillBounded)),
  ];
}

/**
 * The log is partitioned by month: the seeded rows fill January 2026's partition, and the
 * plans checked are those of its scans (the other, empty partitions cost nothing). Its
 * indexes are the parent's, named after the partition.
 */
const SEEDED = monthOf(new Date('2026-01-01T00:00:00Z'));
const onLog = (plan: PlanNode) =>
  nodes(plan).filter(({ node }) => node['Relation Name'] === SEEDED.name);
/**
 * What a plan joins the chain's rows to: the other input of the lowest node with two inputs,
 * one of which reads `log_chain` (seen through a subquery's scan or a hash join's table).
 */
function joinedToChain(plan: PlanNode): PlanNode | undefined {
  const readsChain = (node: PlanNode) =>
    nodes(node).some(({ node: n }) => n['Relation Name'] === 'log_chain');
  const join = nodes(plan)
    .map(({ node }) => node)
    .findLast((node) => node.Plans?.length === 2 && node.Plans.some(readsChain));
  let other = join?.Plans?.find((child) => !readsChain(child));
  while (other && ['Subquery Scan', 'Hash'].includes(other['Node Type'])) other = other.Plans?.[0];
  return other;
}
const indexesOf = (plan: PlanNode) =>
  nodes(plan).map(({ node }) => node['Index Name']?.replace(SEEDED.name, 'log_entries'));

describe('search plans on a log big enough for the planner to care (PostgreSQL)', () => {
  let opened: Awaited<ReturnType<typeof openPlanDatabase>>;
  let db: Database;
  /** Records the plans of the statements a search runs, in order. */
  let recorder: ReturnType<typeof planRecorder>;
  let search: SearchRepository;

  beforeAll(async () => {
    opened = await openPlanDatabase();
    db = opened.db;
    await new PartitionsRepository({ db: db.prisma, sql: db.query }).create(SEEDED);
    await db.query(SEED, [ROWS]);
    await db.query('VACUUM ANALYZE log_entries');
    recorder = planRecorder(db, { analyze: false });
    search = new SearchRepository(recorder.connection);
  }, 120_000);
  afterAll(() => opened?.close());

  /** The plans of one search: its page statements, then its bounded count. */
  async function searchPlans(text: string, origin?: LogOrigin) {
    const query = parseSearchQuery(text);
    recorder.take();
    await search.search(query, { origin }, undefined, 51);
    const page = recorder.take();
    const total = await search.count(query, { origin }, false);
    return { page, count: recorder.take()[0] as PlanNode, total };
  }

  it.each(RARE)('answers the rare query %s from the inverted index alone', async (text) => {
    const { page, count, total } = await searchPlans(text);
    expect(total).toBeLessThan(100);
    // The newest entries first, then the whole log through the inverted index.
    for (const plan of [page.at(-1) as PlanNode, count]) {
      const scans = onLog(plan);
      expect(scans.map(({ node }) => node['Node Type'])).toEqual(['Bitmap Heap Scan']);
      expect(scans[0]?.node.Filter).toBeUndefined();
      expect(indexesOf(plan)).toContain('log_entries_search_idx');
    }
  });

  it.each(COMMON)('never scans the whole log for the common query %s', async (text) => {
    const { page, count, total } = await searchPlans(text);
    expect(total).toBeGreaterThan(500);
    for (const plan of [...page, count]) {
      for (const { node, bounded } of onLog(plan)) {
        if (node['Node Type'] === 'Seq Scan') expect(bounded).toBe(true);
      }
    }
  });

  // A plan that joins every hit to its chain row before sorting them cannot put the sort under
  // the join without parallel workers: for a rare word it walked the whole log newest first.
  it.each([...RARE, ...COMMON])('reads chain rows for one page of hits only: %s', async (text) => {
    const { page } = await searchPlans(text);
    for (const plan of page) expect(joinedToChain(plan)?.['Node Type']).toBe('Limit');
  });

  it('serves a page of a common query from the newest entries, newest first', async () => {
    const { page } = await searchPlans('zephyr');
    expect(page).toHaveLength(1);
    expect(
      onLog(page[0] as PlanNode).map(({ node }) => indexesOf(node).find((name) => name)),
    ).toEqual(['log_entries_timestamp_id_idx']);
  });
});
