import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionOn } from '../../../../test/helpers/fixtures.js';
import { json, raw, startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { BACKFILL_MONTHS } from '../partitions/service.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

describe('audit log retention', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const ingest = async (event: string, timestamps: string[]) => {
    const res = await raw(server, '/v1/logs', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        entries: timestamps.map((timestamp) => ({
          event,
          actor: { type: 'system' },
          result: 'success',
          timestamp,
        })),
      }),
    });
    expect(res.status).toBe(201);
  };
  const timestampsOf = async (event: string) => {
    const res = await raw(server, `/v1/logs?events=${event}&limit=100`, {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    return (body.data as { timestamp: string }[]).map((e) => e.timestamp).sort();
  };
  const retentionEntries = async () => {
    const res = await raw(server, '/v1/logs?events=logs.retention.applied&limit=100', {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    return (await json(res)).data as { id: string }[];
  };

  it('at start, removes the entries older than the window and records what it removed', async () => {
    const old = [daysAgo(45), daysAgo(31)];
    const kept = [daysAgo(29), daysAgo(1)];
    await ingest('retention.start_probe', [...old, ...kept]);
    expect(await retentionEntries()).toEqual([]);
    await server.sealer.flush();

    server = await server.restart({ logRetentionDays: 30 });
    // A month that ended before the cutoff is dropped whole and recorded on its own, so the two
    // entries are one record or two, depending on today's date: what they add up to is fixed.
    const read = async (id: string) => {
      const res = await raw(server, `/v1/logs/${id}`, {
        headers: { authorization: `Bearer ${server.rootKey}` },
      });
      return (await json(res)).data;
    };
    let records: { metadata: { removedEntries: number; cutoff: string } }[] = [];
    const total = () => records.reduce((sum, r) => sum + r.metadata.removedEntries, 0);
    for (let i = 0; total() < 2 && i < 400; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      records = await Promise.all((await retentionEntries()).map((e) => read(e.id)));
    }
    expect(await timestampsOf('retention.start_probe')).toEqual(kept.sort());
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(total()).toBe(2);
    for (const entry of records) {
      expect(entry).toMatchObject({
        event: 'logs.retention.applied',
        origin: 'service',
        actor: { type: 'service' },
        target: { type: 'audit_log' },
        result: 'success',
        metadata: { retentionDays: 30 },
      });
      expect(Date.parse(entry.metadata.cutoff)).toBeGreaterThan(Date.parse(old[1] as string));
      expect(Date.parse(entry.metadata.cutoff)).toBeLessThan(Date.parse(kept[0] as string));
    }
    // A run of the chain over them holds the kept entries; the removed ones' seqs have none.
    const removed = await server.db.query<{ seq: number }>(
      'SELECT seq::float8 AS seq FROM log_chain WHERE removed_at IS NOT NULL ORDER BY seq',
    );
    expect(removed).toHaveLength(2);
    const first = (removed[0] as { seq: number }).seq;
    const run = await raw(server, `/v1/logs/chain?fromSeq=${first}&toSeq=${first + 99}`, {
      headers: { authorization: `Bearer ${server.rootKey}` },
    });
    const runEvents = ((await json(run)).data as { seq: number; event: string }[]).filter(
      (e) => e.event === 'retention.start_probe',
    );
    expect(runEvents).toHaveLength(2);
    for (const { seq } of removed) expect(runEvents.map((e) => e.seq)).not.toContain(seq);

    // The removed entries' chain rows stay, marked: the chain still verifies across them.
    await server.sealer.flush();
    const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
    expect(data?.data).toMatchObject({ valid: true });
    const marked = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM log_chain WHERE removed_at IS NOT NULL',
    );
    expect(marked[0]?.n).toBe(2);
  });

  const recordedCounts = async () =>
    (
      await server.db.query<{ n: number }>(
        `SELECT (metadata->>'removedEntries')::int AS n FROM log_entries
         WHERE event = 'logs.retention.applied' ORDER BY n DESC`,
      )
    ).map((row) => row.n);
  const verify = async () => {
    await server.sealer.flush();
    const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
    return data?.data;
  };

  it('removes in batches, one record per batch, and writes none when nothing is old enough', async () => {
    // Older than the months a backfill gets partitions for: these stay in the default
    // partition, which retention empties row by row (a month of its own is dropped whole).
    const longAgo = (BACKFILL_MONTHS + 2) * 31;
    const many = Array.from({ length: 1000 }, (_, i) => daysAgo(longAgo + i / 1000));
    for (let i = 0; i < 6; i++) await ingest('retention.batch_probe', many);
    await server.sealer.flush();
    const retention = retentionOn(server.db, 30);
    const before = await recordedCounts();

    const run = await retention.apply();
    expect(run.removedEntries).toBe(6000);
    expect(await timestampsOf('retention.batch_probe')).toEqual([]);
    // BATCH is 5,000: two batches, each recorded in its own transaction.
    expect(await recordedCounts()).toEqual([...before, 5000, 1000].sort((a, b) => b - a));

    expect((await retention.apply()).removedEntries).toBe(0);
    expect(await recordedCounts()).toHaveLength(before.length + 2);
    expect(await verify()).toMatchObject({ valid: true });
    const queued = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM log_seal_queue',
    );
    expect(queued[0]?.n).toBe(0);
  });

  it('leaves unsealed entries and its own records, and verify counts every marked row', async () => {
    // An entry with no chain row (never sealed): retention must not remove it.
    await server.db.query(
      `INSERT INTO log_entries (id, timestamp, event, actor_type, result, origin)
       VALUES ('log_retention_unsealed', now() - interval '90 days', 'retention.unsealed_probe',
               'system', 'success', 'api')`,
    );
    await ingest('retention.late_probe', [daysAgo(1)]);
    await server.sealer.flush();
    const records = (await recordedCounts()).length;
    const retention = retentionOn(server.db, 30);

    // 60 days from now, everything sealed so far is older than the window.
    const run = await retention.apply(new Date(Date.now() + 60 * DAY_MS));
    expect(run.removedEntries).toBeGreaterThan(0);
    expect(await timestampsOf('retention.late_probe')).toEqual([]);
    const unsealed = await server.db.query(
      "SELECT 1 FROM log_entries WHERE id = 'log_retention_unsealed'",
    );
    expect(unsealed).toHaveLength(1);
    expect((await recordedCounts()).length).toBeGreaterThan(records);
    expect(await verify()).toMatchObject({ valid: true });
    await server.db.query("DELETE FROM log_entries WHERE id = 'log_retention_unsealed'");

    // A database writer deletes an entry and marks its row removed, with no record of it.
    await ingest('retention.tamper_probe', [daysAgo(1)]);
    await server.sealer.flush();
    await server.db.query(
      `WITH gone AS (DELETE FROM log_entries WHERE event = 'retention.tamper_probe' RETURNING id)
       UPDATE log_chain SET removed_at = now() WHERE entry_id IN (SELECT id FROM gone)`,
    );
    const result = await verify();
    expect(result).toMatchObject({ valid: false });
    expect(result?.reason).toMatch(/marked removed/);
  });

  it('removes an ingested lookalike of its record like any other old entry', async () => {
    await ingest('logs.retention.applied', [daysAgo(60)]);
    await server.sealer.flush();
    const retention = retentionOn(server.db, 30);

    const run = await retention.apply();
    expect(run.removedEntries).toBe(1);
    const lookalikes = await server.db.query(
      `SELECT 1 FROM log_entries WHERE event = 'logs.retention.applied' AND origin = 'api'`,
    );
    expect(lookalikes).toEqual([]);
    expect(await recordedCounts()).toContain(1);
  });
});
