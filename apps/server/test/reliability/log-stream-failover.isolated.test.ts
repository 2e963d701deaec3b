import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { type ServerProcess, spawnServer } from '../helpers/process.js';
import { type Received, startReceiver } from '../helpers/receiver.js';
import { createTestDatabase, json } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const KEY = generateSecret();
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const STREAMS = 3;
const ENTRIES = 600;
// biome-ignore lint/suspicious/noExplicitAny: messages are inspected as JSON
type Json = any;

async function api(url: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await json(res) };
}

/** The deliverer's lease owner, from its start-up line. */
function ownerOf(server: ServerProcess): string | undefined {
  for (const line of server.output().split('\n'))
    if (line.includes('log-stream deliverer started')) return JSON.parse(line).owner;
  return undefined;
}

/**
 * Two real server processes on one PostgreSQL: each stream is delivered by one of them, one
 * request at a time; `kill -9` of the instance delivering a stream, mid-request, loses
 * nothing: the other takes the stream over once the lease runs out and sends the same range
 * again under the same webhook-id.
 */
describe('log streams across instances and kill -9', { timeout: 180_000 }, () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'secadmin-streams-'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers each stream from one instance at a time, and survives the death of that instance', async () => {
    const env = (name: string) => ({
      DATABASE_URL: database.url,
      SECADMIN_SIGNING_KEY: SIGNING_KEY,
      SECADMIN_SECRET: SECRET,
      SECADMIN_DATA_DIR: join(dataDir, name),
      SECADMIN_ADMIN_API_KEY: KEY,
      SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS: '1',
      SECADMIN_STREAM_LEASE_MS: '1000',
      SECADMIN_STREAM_POLL_MS: '25',
      SECADMIN_STREAM_RETRY_BASE_MS: '20',
      SECADMIN_STREAM_RETRY_MAX_MS: '100',
    });
    const a = await spawnServer(env('a'));
    servers.push(a);
    const b = await spawnServer(env('b'));
    servers.push(b);

    let stallOnce: string | undefined;
    let stalled: Received | undefined;
    const receiver = await startReceiver(
      (request) => {
        const stream = JSON.parse(request.body).stream as string;
        if (stallOnce === stream && !stalled) {
          stalled = request;
          return 'stall';
        }
        return { status: 204 };
      },
      { delayMs: 5 },
    );
    try {
      const ids: string[] = [];
      for (let i = 0; i < STREAMS; i++) {
        const created = await api(a.url, '/v1/log-streams', {
          name: `failover ${i}`,
          destination: { type: 'webhook', url: receiver.url },
          filter: { events: ['failover.*'] },
          batchSize: 50,
        });
        expect(created.status).toBe(201);
        ids.push(created.body.data.id);
      }
      stallOnce = ids[0];
      for (let batch = 0; batch < ENTRIES / 200; batch++) {
        const entries = Array.from({ length: 200 }, (_, i) => ({
          event: 'failover.entry',
          actor: { type: 'service', id: `b${batch}-${i}` },
          result: 'success',
        }));
        expect((await api(batch % 2 ? b.url : a.url, '/v1/logs', { entries })).status).toBe(201);
      }
      await waitFor('the stalled request', () => stalled !== undefined, 30_000);
      const [row] = await database.query<{ lease_owner: string }>(
        'SELECT lease_owner FROM log_streams WHERE id = $1',
        [ids[0]],
      );
      const holder = ownerOf(a) === row?.lease_owner ? a : b;
      const survivor = holder === a ? b : a;
      const killedAt = Date.now();
      await holder.kill9();
      servers.splice(servers.indexOf(holder), 1);

      const entriesOf = (id: string) =>
        receiver.received
          .map((r) => ({ r, m: JSON.parse(r.body) as Json }))
          .filter(({ m }) => m.stream === id && m.type === 'audit_log.entries');
      await waitFor(
        'every entry on every stream',
        () =>
          ids.every(
            (id) =>
              new Set(entriesOf(id).flatMap(({ m }) => m.entries.map((e: Json) => e.seq))).size >=
              ENTRIES,
          ),
        60_000,
      );
      // The stream of the dead instance went on within the lease (plus a poll), on the survivor.
      const resumed = entriesOf(ids[0] as string).find(({ r }) => r.at > killedAt);
      expect(resumed).toBeDefined();
      const [after] = await database.query<{ lease_owner: string }>(
        'SELECT lease_owner FROM log_streams WHERE id = $1',
        [ids[0]],
      );
      expect(after?.lease_owner).toBe(ownerOf(survivor));

      for (const id of ids) {
        const messages = entriesOf(id);
        const seen = new Map<string, string>();
        let highest = 0;
        for (const { r, m } of messages) {
          const webhookId = String(r.headers['webhook-id']);
          const range = `${m.range.fromSeq}-${m.range.toSeq}`;
          expect(webhookId).toBe(`msg_${id}_${m.range.fromSeq}_${m.range.toSeq}`);
          if (seen.has(webhookId)) {
            // A duplicate: only the same range again, under the same webhook-id.
            expect(seen.get(webhookId)).toBe(range);
            continue;
          }
          seen.set(webhookId, range);
          for (const e of m.entries) {
            expect(e.seq).toBeGreaterThan(highest);
            highest = e.seq;
          }
        }
        const firsts = [...seen.values()].map((r) => r.split('-').map(Number) as [number, number]);
        for (let i = 1; i < firsts.length; i++)
          expect(firsts[i]?.[0]).toBe((firsts[i - 1]?.[1] ?? 0) + 1);
      }
      expect(receiver.mostOpenPerStream()).toBe(1);
      const status = await api(survivor.url, `/v1/log-streams/${ids[0]}`);
      expect(status.body.data.lagEntries).toBeGreaterThanOrEqual(0);
    } finally {
      await receiver.close();
    }
  });
});

const SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
// Instances share SECADMIN_SECRET: it is the key of the streams' stored secrets.
const SECRET = generateSecret();
