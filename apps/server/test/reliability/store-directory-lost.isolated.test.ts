import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeClusterHome } from '@secadmin/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { spawnServer } from '../helpers/process.js';
import { createTestDatabase, json } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const KEY = generateSecret();
const SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function api(url: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${url}${path}`, { ...init, headers });
  return { status: res.status, body: await json(res) };
}

/**
 * The embedded store's directory (`<data dir>/clickhouse`) deleted while the service runs (a
 * cleanup script, a volume remounted): the store is derived, so the service fills it again from
 * PostgreSQL, by itself or on `POST /v1/logs/search-index/rebuild`, without a restart.
 */
describe('the embedded store’s directory deleted while the service runs', {
  timeout: 120_000,
}, () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'secadmin-store-lost-'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
    for (const name of await readdir(dataDir)) await removeClusterHome(join(dataDir, name));
    await rm(dataDir, { recursive: true, force: true });
  });

  // Skipped, open (issue 43's note): the embedded engine keeps serving the deleted files it has
  // open (a count still finds the old rows) and refuses to drop a table whose directory is gone
  // (error 1001 on rename), so the feeder cannot refill the table in place; recovering needs the
  // engine's session closed and opened again on the empty directory, which the store does not do
  // yet. A restart recovers (search-store.test.ts: "fills the store again when its data is lost").
  it.skip('is filled again, and search finds every entry, without a restart', async () => {
    const env = {
      DATABASE_URL: database.url,
      SECADMIN_SIGNING_KEY: SIGNING_KEY,
      SECADMIN_DATA_DIR: join(dataDir, 'a'),
      SECADMIN_ADMIN_API_KEY: KEY,
    };
    const server = await spawnServer(env);
    try {
      const entries = Array.from({ length: 5 }, () => ({
        event: 'probe.dir_lost',
        actor: { type: 'user', id: 'u' },
        result: 'success',
      }));
      const ingest = async () =>
        expect(
          (await api(server.url, '/v1/logs', { method: 'POST', body: JSON.stringify({ entries }) }))
            .status,
        ).toBe(201);
      const found = async () => {
        const { status, body } = await api(server.url, '/v1/logs/search', {
          method: 'POST',
          body: JSON.stringify({ query: 'event:probe.dir_lost' }),
        });
        return status === 200 ? body.meta.totalHits : undefined;
      };
      await ingest();
      await waitFor('the entries to be found', async () => (await found()) === 5);
      await rm(join(dataDir, 'a', 'clickhouse'), { recursive: true, force: true });
      await ingest();
      expect(
        (await api(server.url, '/v1/logs/search-index/rebuild', { method: 'POST' })).status,
      ).toBe(202);
      await waitFor('every entry to be found again', async () => (await found()) === 10, 60_000);
    } finally {
      await server.dispose();
    }
  });
});
