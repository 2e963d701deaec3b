import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecadminClient, type SecadminClient } from '@secadmin/api-client';
import { type ChainEntry, type Checkpoint, entryHash, verifyChain } from '@secadmin/log-chain';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/helpers/server.js';
import { type Config, loadConfig } from '../../../config.js';
import { createLogger } from '../../../logger.js';
import { type RunningServer, startServer } from '../../../server.js';
import { createStore } from '../../../storage/store.js';
import { generateSecret } from '../../api-keys/service.js';
import { signingKeysOn } from '../module.js';
import { signingKeyFromPem } from './signing-key.js';

const newPrivateKeyPem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

interface Instance {
  server: RunningServer;
  client: SecadminClient;
  db: RunningServer['db'];
  sealer: RunningServer['sealer'];
}

/** A data dir and a database, shared by the instances a test starts on it. */
interface Storage {
  config: Config;
  start(signingKey: string, dataDir?: string): Promise<Instance>;
  stop(instance: Instance): Promise<void>;
  cleanup(): Promise<void>;
}

const storages: Storage[] = [];
afterEach(async () => {
  for (const storage of storages.splice(0)) await storage.cleanup();
});

async function storage(): Promise<Storage> {
  const dataDirs = [await mkdtemp(join(tmpdir(), 'secadmin-keys-'))];
  const pg = await createTestDatabase();
  const running: RunningServer[] = [];
  const rootKey = generateSecret();
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir: dataDirs[0] as string,
    databaseUrl: pg.url,
    redisUrl: undefined,
    metricsPort: 0,
    adminApiKey: rootKey,
    secret: generateSecret(),
    downloadUrl: 'http://secadmin.test/downloads',
  };
  const created: Storage = {
    config,
    async start(signingKey, dataDir = config.dataDir) {
      if (!dataDirs.includes(dataDir)) dataDirs.push(dataDir);
      const server = await startServer({ ...config, dataDir, signingKey }, createLogger('silent'));
      running.push(server);
      return {
        server,
        db: server.db,
        sealer: server.sealer,
        client: createSecadminClient({
          baseUrl: server.url,
          apiKey: rootKey,
          retry: { maxRetries: 0 },
        }),
      };
    },
    async stop(instance) {
      running.splice(running.indexOf(instance.server), 1);
      await instance.server.close();
    },
    async cleanup() {
      for (const server of running.splice(0).reverse()) await server.close();
      await pg.drop();
      await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
  storages.push(created);
  return created;
}

async function ingest(server: Instance, n: number): Promise<void> {
  await server.client.POST('/v1/logs', {
    body: {
      entries: Array.from({ length: n }, (_, i) => ({
        event: 'keys.test',
        actor: { type: 'user', id: `u${i}` },
        result: 'success' as const,
      })),
    },
  });
}

/** Everything `verifyChain` needs, as the API serves it. */
async function material(server: Instance) {
  const checkpoints: Checkpoint[] = [];
  for await (const checkpoint of server.client.paginate('/v1/logs/checkpoints', {}))
    checkpoints.push(checkpoint);
  const { data: key } = await server.client.GET('/v1/logs/public-key');
  const ids = await server.db.query<{ id: string }>(
    'SELECT entry_id AS id FROM log_chain ORDER BY seq',
  );
  const entries = await Promise.all(
    ids.map(
      async ({ id }) =>
        (await server.client.GET('/v1/logs/{id}', { params: { path: { id } } })).data
          ?.data as ChainEntry,
    ),
  );
  return {
    entries,
    checkpoints,
    publicKeyPem: key?.data.publicKey as string,
    publicKeys: key?.data.keys ?? [],
  };
}

const verify = async (server: Instance, body: { fromSeq?: number; toSeq?: number } = {}) =>
  (await server.client.POST('/v1/logs/verify', { body })).data?.data;

/** Polls until `sql` returns a row, or fails after a generous deadline. */
async function until(server: Instance, sql: string, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await server.db.query(sql)).length === 0)
    if (Date.now() > deadline) throw new Error(`${what} did not happen in time`);
    else await new Promise((resolve) => setTimeout(resolve, 20));
}

// Each test starts up to three servers, which takes seconds on loaded cores.
describe('checkpoint signing keys', { timeout: 120_000 }, () => {
  it('registers the first key before any checkpoint; a server with another key refuses to start (M3)', async () => {
    const on = await storage();
    const keyA = newPrivateKeyPem();
    const keyB = newPrivateKeyPem();
    const [fingerprintA, fingerprintB] = await Promise.all(
      [keyA, keyB].map(async (pem) => (await signingKeyFromPem(pem, 'key')).fingerprint),
    );
    const first = await on.start(keyA);
    expect(await first.db.query('SELECT 1 FROM log_checkpoints')).toEqual([]);
    const { data: key } = await first.client.GET('/v1/logs/public-key');
    expect(key?.data).toMatchObject({
      fingerprint: fingerprintA,
      keys: [{ fingerprint: fingerprintA, fromSeq: 1, rotation: null }],
    });

    const refusal = `the audit-log signing key ${fingerprintB} is not the active key of this database: it is not registered, and ${fingerprintA} signs checkpoints from seq 1 on.`;
    // A second instance beside the first, with a data dir of its own.
    await expect(on.start(keyB, await mkdtemp(join(tmpdir(), 'secadmin-keys-')))).rejects.toThrow(
      refusal,
    );
  });

  it('refuses the two keys of two instances starting together on a fresh database (M3)', async () => {
    const on = await storage();
    const starts = await Promise.allSettled(
      [newPrivateKeyPem(), newPrivateKeyPem()].map(async (key) =>
        on.start(key, await mkdtemp(join(tmpdir(), 'secadmin-keys-'))),
      ),
    );
    expect(starts.map((start) => start.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = starts.find((start) => start.status === 'rejected');
    expect((rejected as PromiseRejectedResult).reason.message).toMatch(
      /is not the active key of this database: it is not registered/,
    );
  });

  it('hands the chain to a new key: verify is valid across the rotation, online and offline', async () => {
    const on = await storage();
    const keyA = newPrivateKeyPem();
    const keyB = newPrivateKeyPem();
    const [signerA, signerB] = await Promise.all([
      signingKeyFromPem(keyA, 'a'),
      signingKeyFromPem(keyB, 'b'),
    ]);
    const old = await on.start(keyA);
    await ingest(old, 5);
    await old.sealer.flush();
    await ingest(old, 3);
    await old.sealer.flush();
    await ingest(old, 2);
    // Sealed but not checkpointed: the rotation checkpoints the head with the old key.
    await until(old, 'SELECT 1 FROM log_chain WHERE seq = 10', 'sealing seq 10');

    const rotated = await signingKeysOn(createStore(old.db)).rotate(signerA, signerB);
    expect(rotated).toEqual({
      fromSeq: 11,
      previous: signerA.fingerprint,
      fingerprint: signerB.fingerprint,
    });
    // An instance still holding the old key signs no checkpoint any more.
    await ingest(old, 1);
    await expect(old.sealer.flush()).rejects.toThrow(
      `this instance's signing key ${signerA.fingerprint} is not the active key (${signerB.fingerprint})`,
    );
    await on.stop(old);
    await expect(on.start(keyA)).rejects.toThrow(
      `it was rotated out at seq 11, and ${signerB.fingerprint} signs checkpoints from seq 11 on`,
    );

    const current = await on.start(keyB);
    await ingest(current, 4);
    await current.sealer.flush();
    expect(await verify(current)).toMatchObject({
      valid: true,
      checkedEntries: 15,
      lastCheckpointSeq: 15,
      uncoveredEntries: 0,
    });
    const checkpoints = await current.db.query<{ seq: number }>(
      'SELECT seq::int AS seq FROM log_checkpoints ORDER BY seq',
    );
    expect(checkpoints.map((c) => c.seq)).toEqual([5, 8, 10, 15]);

    const offline = await material(current);
    expect(offline.publicKeys.map((k) => k.fromSeq)).toEqual([1, 11]);
    for (const expectedKey of [signerA.publicKeyPem, signerA.fingerprint, signerB.fingerprint])
      expect(await verifyChain({ ...offline, expectedKey })).toMatchObject({
        valid: true,
        checkedEntries: 15,
        uncoveredEntries: 0,
        pinnedKey: expectedKey === signerB.fingerprint ? signerB.fingerprint : signerA.fingerprint,
      });
  });

  it('refuses a forged rotation record, online and offline', async () => {
    const on = await storage();
    const keyA = newPrivateKeyPem();
    const signerA = await signingKeyFromPem(keyA, 'a');
    const server = await on.start(keyA);
    await ingest(server, 3);
    await server.sealer.flush();
    // A database writer lists a key of its own, "signed" by itself in both places.
    const forger = await signingKeyFromPem(newPrivateKeyPem(), 'forger');
    const message = `secadmin-key-rotation:v1:4:${signerA.fingerprint}:${forger.fingerprint}`;
    await server.db.query(
      `INSERT INTO signing_keys (fingerprint, public_key, from_seq, previous_key_signature, new_key_signature)
       VALUES ($1, $2, 4, $3, $3)`,
      [forger.fingerprint, forger.publicKeyPem, forger.sign(message)],
    );
    const reason = `the rotation to key ${forger.fingerprint} at seq 4 is not signed by both ${signerA.fingerprint} and ${forger.fingerprint}`;
    expect(await verify(server)).toMatchObject({ valid: false, reason });
    expect(
      await verifyChain({ ...(await material(server)), expectedKey: signerA.fingerprint }),
    ).toMatchObject({ valid: false, reason });
  });

  it('walks a range on to its checkpoint, and says a range no checkpoint covers is not valid (L1)', async () => {
    const on = await storage();
    const server = await on.start(newPrivateKeyPem());
    await ingest(server, 10);
    await server.sealer.flush();
    // Rewrite seq 5 and re-hash it, as a database writer would: the range 3–5 holds no
    // checkpoint of its own.
    const [row] = await server.db.query<{ id: string; prevHash: string }>(
      'SELECT entry_id AS id, prev_hash AS "prevHash" FROM log_chain WHERE seq = 5',
    );
    const { data } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: row?.id as string } },
    });
    const forged = { ...(data?.data as ChainEntry), event: 'keys.forged' };
    await server.db.query('UPDATE log_entries SET event = $2 WHERE id = $1', [
      forged.id,
      forged.event,
    ]);
    await server.db.query('UPDATE log_chain SET hash = $1 WHERE seq = 5', [
      entryHash(row?.prevHash as string, forged),
    ]);
    expect(await verify(server, { fromSeq: 3, toSeq: 5 })).toMatchObject({
      valid: false,
      firstInvalidSeq: 6,
      reason: 'prevHash of seq 6 is not the hash of seq 5',
    });

    // Entries sealed after the newest checkpoint: nothing vouches for them.
    await ingest(server, 2);
    await until(server, 'SELECT 1 FROM log_chain WHERE seq = 12', 'sealing seq 12');
    expect(await verify(server, { fromSeq: 11, toSeq: 12 })).toEqual({
      valid: false,
      checkedEntries: 2,
      lastCheckpointSeq: 10,
      reason: 'no checkpoint covers seq 11–12: no signature vouches for these entries',
    });
  });
});
