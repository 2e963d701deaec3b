import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchVerificationMaterial, type LogEntry, verifyExport } from '@secadmin/api-client';
import {
  type ChainEntry,
  checkpointMessage,
  entryHash,
  GENESIS_HASH,
  redactionsDigest,
  verifyChain,
} from '@secadmin/log-chain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKey,
  createPolicy,
  createUser,
  failure,
  uniqueEmail,
} from '../../../../test/helpers/fixtures.js';
import {
  json,
  localDownload,
  raw,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { createLogger } from '../../../logger.js';
import { startServer } from '../../../server.js';

/** The stored columns of log_entries. */
const ENTRY_COLUMNS =
  'id, timestamp, event, actor_id, actor_email, actor_email_redacted, actor_type, target_id, target_type, ip, user_agent, city, country, region, lat, lng, result, trace_id, metadata, origin, ingested_by, received_at, digests, salts';

describe('the audit-log hash chain', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  const sql = <T>(text: string, params?: unknown[]) => server.db.query<T>(text, params);
  const entry = async (id: string) => {
    const { data } = await server.client.GET('/v1/logs/{id}', { params: { path: { id } } });
    return data?.data as ChainEntry;
  };
  const verify = async (body: { fromSeq?: number; toSeq?: number } = {}) =>
    (await server.client.POST('/v1/logs/verify', { body })).data?.data;
  const ingest = async (n: number, tag: string) => {
    const { data } = await server.client.POST('/v1/logs', {
      body: {
        entries: Array.from({ length: n }, (_, i) => ({
          event: 'chain.test',
          actor: { type: 'user', id: `u-${tag}-${i}`, email: `u${i}@example.com` },
          target: { type: 'doc', id: `d-${tag}-${i}` },
          result: 'success' as const,
          metadata: { i, tag, nested: { list: [1, 2.5, 'x'] } },
        })),
      },
    });
    await server.sealer.flush();
    return Promise.all((data?.data ?? []).map((ack) => entry(ack.id)));
  };
  const idAt = async (seq: number) =>
    (await sql<{ id: string }>('SELECT entry_id AS id FROM log_chain WHERE seq = $1', [seq]))[0]
      ?.id as string;
  /** Runs `tamper`, checks what verify says, then undoes it so the next test starts intact. */
  async function tampered(
    tamper: () => Promise<void>,
    undo: () => Promise<void>,
    expected: Record<string, unknown>,
  ) {
    await tamper();
    try {
      expect(await verify()).toMatchObject({ valid: false, ...expected });
    } finally {
      await undo();
    }
    expect(await verify()).toMatchObject({ valid: true });
  }

  it('seals every entry with a gapless seq, hash, digests and salts, and signs checkpoints', async () => {
    const entries = await ingest(25, 'a');
    const seqs = entries.map((e) => e.seq as number).sort((a, b) => a - b);
    expect((seqs[24] as number) - (seqs[0] as number)).toBe(24);
    const first = entries[0] as ChainEntry;
    expect(first.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.prevHash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(first.digests).sort()).toEqual([
      'actor.email',
      'metadata.i',
      'metadata.nested',
      'metadata.tag',
      'target.id',
    ]);
    expect(Object.keys(first.salts).sort()).toEqual(Object.keys(first.digests).sort());
    const head = (await sql<{ n: number }>('SELECT count(*)::int AS n FROM log_chain'))[0]?.n;
    expect(await verify()).toEqual({
      valid: true,
      checkedEntries: head,
      lastCheckpointSeq: head,
      uncoveredEntries: 0,
    });

    const { data: key } = await server.client.GET('/v1/logs/public-key');
    expect(key?.data.algorithm).toBe('Ed25519');
    expect(key?.data.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const { data: page } = await server.client.GET('/v1/logs/checkpoints', {
      params: { query: { limit: 1 } },
    });
    expect(page?.data[0]).toMatchObject({ seq: head });
    const all = await server.client.paginate('/v1/logs/checkpoints', {});
    const listed: { seq: number }[] = [];
    for await (const checkpoint of all) listed.push(checkpoint);
    expect(listed.map((c) => c.seq)).toEqual([...listed.map((c) => c.seq)].sort((a, b) => b - a));

    // What the API shows verifies offline with the same package, entry by entry.
    const chain = await Promise.all(
      Array.from({ length: head as number }, async (_, i) => entry(await idAt(i + 1))),
    );
    expect(
      await verifyChain({
        entries: chain,
        checkpoints: listed as never,
        publicKeyPem: key?.data.publicKey as string,
      }),
    ).toMatchObject({ valid: true, checkedEntries: head });
  });

  it('names the first bad seq of a changed field, a removed entry or chain row, and a swap', async () => {
    await ingest(10, 'b');
    const seq =
      Number((await sql<{ n: string }>('SELECT max(seq)::text AS n FROM log_chain'))[0]?.n) - 5;
    const id = await idAt(seq);
    const before = await entry(id);

    await tampered(
      () => sql('UPDATE log_entries SET event = $2 WHERE id = $1', [id, 'chain.forged']).then(),
      () => sql('UPDATE log_entries SET event = $2 WHERE id = $1', [id, before.event]).then(),
      { firstInvalidSeq: seq, reason: `hash of seq ${seq} does not match its content` },
    );
    await tampered(
      () =>
        sql(`UPDATE log_entries SET metadata = jsonb_set(metadata, '{i}', '99') WHERE id = $1`, [
          id,
        ]).then(),
      () =>
        sql(
          `UPDATE log_entries SET metadata = jsonb_set(metadata, '{i}', $2::jsonb) WHERE id = $1`,
          [id, JSON.stringify(before.metadata?.i)],
        ).then(),
      { firstInvalidSeq: seq, reason: 'metadata.i does not match its digest' },
    );
    await tampered(
      () =>
        sql('UPDATE log_entries SET actor_email = $2 WHERE id = $1', [id, 'x@example.com']).then(),
      () =>
        sql('UPDATE log_entries SET actor_email = $2 WHERE id = $1', [
          id,
          before.actor.email,
        ]).then(),
      { firstInvalidSeq: seq },
    );

    await tampered(
      async () => {
        await sql(
          `CREATE TABLE removed_entry AS SELECT ${ENTRY_COLUMNS} FROM log_entries WHERE id = $1`,
          [id],
        );
        await sql('DELETE FROM log_entries WHERE id = $1', [id]);
      },
      async () => {
        await sql(
          `INSERT INTO log_entries (${ENTRY_COLUMNS}) SELECT ${ENTRY_COLUMNS} FROM removed_entry`,
        );
        await sql('DROP TABLE removed_entry');
      },
      { firstInvalidSeq: seq, reason: `seq ${seq} is missing` },
    );
    await tampered(
      async () => {
        await sql('CREATE TABLE removed_link AS SELECT * FROM log_chain WHERE seq = $1', [seq]);
        await sql('DELETE FROM log_chain WHERE seq = $1', [seq]);
      },
      async () => {
        await sql('INSERT INTO log_chain SELECT * FROM removed_link');
        await sql('DROP TABLE removed_link');
      },
      { firstInvalidSeq: seq, reason: `seq ${seq} is missing` },
    );
    const swap = async () => {
      const [a, b] = [await idAt(seq), await idAt(seq + 1)];
      await sql(`UPDATE log_chain SET entry_id = 'swapping' WHERE seq = $1`, [seq]);
      await sql('UPDATE log_chain SET entry_id = $2 WHERE seq = $1', [seq + 1, a]);
      await sql('UPDATE log_chain SET entry_id = $2 WHERE seq = $1', [seq, b]);
    };
    await tampered(swap, swap, { firstInvalidSeq: seq });
  });

  it('finds a metadata key added as "[redacted]", an added salt and removed metadata (L2)', async () => {
    await ingest(4, 'shape');
    const seq =
      Number((await sql<{ n: string }>('SELECT max(seq)::text AS n FROM log_chain'))[0]?.n) - 2;
    const id = await idAt(seq);
    const [before] = await sql<{ metadata: string; salts: string }>(
      'SELECT metadata::text AS metadata, salts::text AS salts FROM log_entries WHERE id = $1',
      [id],
    );
    const restore = async () => {
      await sql('UPDATE log_entries SET metadata = $2::jsonb, salts = $3::jsonb WHERE id = $1', [
        id,
        before?.metadata,
        before?.salts,
      ]);
    };
    await tampered(
      () =>
        sql(
          `UPDATE log_entries SET metadata = metadata || '{"approvedBy":"[redacted]"}' WHERE id = $1`,
          [id],
        ).then(),
      restore,
      { firstInvalidSeq: seq, reason: 'metadata.approvedBy is not committed by a digest' },
    );
    await tampered(
      () =>
        sql(`UPDATE log_entries SET salts = salts || $2::jsonb WHERE id = $1`, [
          id,
          JSON.stringify({ 'metadata.ghost': '0'.repeat(32) }),
        ]).then(),
      restore,
      { firstInvalidSeq: seq, reason: 'metadata.ghost has a salt but no digest' },
    );
    // The metadata object emptied, its salts removed: it looked redacted until now.
    await tampered(
      () =>
        sql(
          `UPDATE log_entries SET metadata = '{}',
             salts = salts - ARRAY['metadata.i', 'metadata.tag', 'metadata.nested'] WHERE id = $1`,
          [id],
        ).then(),
      restore,
      {
        firstInvalidSeq: seq,
        reason: expect.stringMatching(/^metadata\.\w+ has a digest but no field$/),
      },
    );
    await tampered(
      () =>
        sql(
          `UPDATE log_entries SET metadata = 'null',
             salts = salts - ARRAY['metadata.i', 'metadata.tag', 'metadata.nested'] WHERE id = $1`,
          [id],
        ).then(),
      restore,
      { firstInvalidSeq: seq, reason: 'metadata is null' },
    );
  });

  it('finds a chain whose newest entries were cut off below a signed checkpoint (L3)', async () => {
    await ingest(4, 'head');
    const head = Number(
      (await sql<{ n: string }>('SELECT max(seq)::text AS n FROM log_chain'))[0]?.n,
    );
    const [signed] = await sql<{ n: number }>('SELECT max(seq)::float8 AS n FROM log_checkpoints');
    expect(signed?.n).toBe(head);
    await tampered(
      async () => {
        await sql('CREATE TABLE cut_links AS SELECT * FROM log_chain WHERE seq >= $1', [head - 1]);
        await sql(
          `CREATE TABLE cut_entries AS SELECT ${ENTRY_COLUMNS} FROM log_entries
           WHERE id IN (SELECT entry_id FROM cut_links)`,
        );
        await sql('DELETE FROM log_chain WHERE seq >= $1', [head - 1]);
        await sql('DELETE FROM log_entries WHERE id IN (SELECT entry_id FROM cut_links)');
      },
      async () => {
        await sql(
          `INSERT INTO log_entries (${ENTRY_COLUMNS}) SELECT ${ENTRY_COLUMNS} FROM cut_entries`,
        );
        await sql('INSERT INTO log_chain SELECT * FROM cut_links');
        await sql('DROP TABLE cut_entries');
        await sql('DROP TABLE cut_links');
      },
      {
        firstInvalidSeq: head - 1,
        reason: `seq ${head - 1} is missing: checkpoint ${head} is signed, but the chain ends at seq ${head - 2}`,
      },
    );
  });

  it('verifies an entry sent with a metadata value "[redacted]": it is a value, not a redaction', async () => {
    const { data } = await server.client.POST('/v1/logs', {
      body: {
        entries: [
          {
            event: 'chain.literal',
            actor: { type: 'user' },
            result: 'success',
            metadata: { x: '[redacted]' },
          },
        ],
      },
    });
    await server.sealer.flush();
    const sent = await entry(data?.data[0]?.id as string);
    expect(sent.metadata).toEqual({ x: '[redacted]' });
    expect(sent.salts['metadata.x']).toBeDefined();
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('refuses a range that ends before it starts, naming body.toSeq', async () => {
    const res = await raw(server, '/v1/logs/verify', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fromSeq: 5, toSeq: 2 }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.details).toEqual([
      { field: 'body.toSeq', message: 'must not be below fromSeq' },
    ]);
  });

  it('reads a run of the chain by seq, each entry as GET shows it, for keys that may read entries', async () => {
    const entries = await ingest(5, 'run');
    const seqs = entries.map((e) => e.seq as number).sort((a, b) => a - b);
    const [first, last] = [seqs[0] as number, seqs[4] as number];
    const run = async (query: string, secret = server.rootKey) => {
      const res = await raw(server, `/v1/logs/chain?${query}`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      return { status: res.status, body: await json(res) };
    };
    const read = await run(`fromSeq=${first}&toSeq=${last}`);
    expect(read.status).toBe(200);
    expect(read.body.data.map((e: ChainEntry) => e.seq)).toEqual(seqs);
    for (const e of read.body.data) expect(e).toEqual(await entry(e.id));
    // The run chains: each entry's hash, recomputed, is the next one's prevHash.
    for (const [i, e] of (read.body.data as ChainEntry[]).entries()) {
      expect(entryHash(e.prevHash as string, e)).toBe(e.hash);
      if (i > 0) expect(e.prevHash).toBe(read.body.data[i - 1].hash);
    }
    expect((await run(`fromSeq=${last + 1000}&toSeq=${last + 1099}`)).body.data).toEqual([]);
    for (const [query, field] of [
      ['fromSeq=5&toSeq=2', 'query.toSeq'],
      ['fromSeq=1&toSeq=101', 'query.toSeq'],
      ['fromSeq=0&toSeq=1', 'query.fromSeq'],
      ['toSeq=3', 'query.fromSeq'],
      ['fromSeq=1', 'query.toSeq'],
      ['fromSeq=x&toSeq=3', 'query.fromSeq'],
      ['fromSeq=1.5&toSeq=3', 'query.fromSeq'],
      ['fromSeq=1&toSeq=9007199254740992', 'query.toSeq'],
    ] as const) {
      const refused = await run(query);
      expect(refused.status, query).toBe(400);
      expect(
        refused.body.error.details.map((d: { field: string }) => d.field),
        query,
      ).toContain(field);
    }
    // Each entry is read as GET /v1/logs/{id} reads it (logs:read on logs/<id>).
    const keyWith = async (
      name: string,
      rules: readonly { effect: 'allow' | 'deny'; resources: readonly string[] }[],
    ) => {
      const principal = `service:chain-run-${name}`;
      const key = await createKey(server.client, principal);
      for (const [i, rule] of rules.entries())
        await createPolicy(server.client, {
          name: `chain run ${name} ${i}`,
          principals: [principal],
          actions: ['logs:read'],
          effect: rule.effect,
          resources: [...rule.resources],
        });
      return key.secret;
    };
    const range = `fromSeq=${first}&toSeq=${last}`;
    const hidden = (entries[2] as ChainEntry).id;
    for (const [name, rules] of [
      ['verify-only', []],
      ['logs-only', [{ effect: 'allow', resources: ['logs'] }]],
      [
        'one-denied',
        [
          { effect: 'allow', resources: ['*'] },
          { effect: 'deny', resources: [`logs/${hidden}`] },
        ],
      ],
      ['one-allowed', [{ effect: 'allow', resources: [`logs/${hidden}`] }]],
    ] as const) {
      const secret = await keyWith(name, rules);
      const refused = await run(range, secret);
      expect(refused.status, name).toBe(403);
      expect(JSON.stringify(refused.body), name).not.toContain('u-run-');
    }
    const reader = await keyWith('reader', [{ effect: 'allow', resources: ['logs/*'] }]);
    const allowed = await run(range, reader);
    expect(allowed.status).toBe(200);
    expect(allowed.body.data).toEqual(read.body.data);
  });

  it('seals entries written before the chain, committing their fields as they are then', async () => {
    const id = `log_01kbyyyyyyyyyyyyyyyyyyyyp0`;
    await sql(
      `INSERT INTO log_entries (id, timestamp, event, actor_type, actor_email, result, metadata, origin)
       VALUES ($1, now(), 'legacy.entry', 'user', 'old@example.com', 'success', '{"a":[1]}', 'api')`,
      [id],
    );
    // What the migration does for the entries it finds.
    await sql('INSERT INTO log_seal_queue (entry_id) VALUES ($1)', [id]);
    await server.sealer.flush();
    const sealed = await entry(id);
    expect(sealed.seq).toEqual(expect.any(Number));
    expect(Object.keys(sealed.digests).sort()).toEqual(['actor.email', 'metadata.a']);
    expect(await verify()).toMatchObject({ valid: true });
  });

  it('finds a forged entry with a recomputed hash: by its checkpoint, or its bad signature', async () => {
    const [sample] = await ingest(1, 'c');
    const headSeq = sample?.seq as number;
    const forgedId = `log_01kbzzzzzzzzzzzzzzzzzzzzp0`;
    await sql(
      `INSERT INTO log_entries (id, timestamp, event, actor_type, result, metadata, origin, digests, salts)
       VALUES ($1, now(), 'user.deleted', 'api_key', 'success', '{}', 'service', '{}', '{}')`,
      [forgedId],
    );
    const forged = {
      ...(await entry(forgedId)),
      seq: headSeq + 1,
      prevHash: sample?.hash as string,
    };
    const hash = entryHash(forged.prevHash, forged);
    await sql(
      'INSERT INTO log_chain (seq, entry_id, hash, prev_hash, sealed_at) VALUES ($1, $2, $3, $4, now())',
      [headSeq + 1, forgedId, hash, forged.prevHash],
    );
    const bogus = sign(
      null,
      Buffer.from(checkpointMessage(headSeq + 1, hash)),
      generateKeyPairSync('ed25519').privateKey,
    ).toString('base64');
    await sql(
      'INSERT INTO log_checkpoints (seq, hash, signature, created_at) VALUES ($1, $2, $3, now())',
      [headSeq + 1, hash, bogus],
    );
    expect(await verify()).toMatchObject({
      valid: false,
      firstInvalidSeq: headSeq + 1,
      reason: `checkpoint ${headSeq + 1} has an invalid signature`,
    });
    // Rewriting an entry that a checkpoint covers, and every hash after it, is found by
    // that checkpoint (the first seq after the previous good checkpoint is named).
    const covered = headSeq - 3;
    const id = await idAt(covered);
    await sql('UPDATE log_entries SET result = $2 WHERE id = $1', [id, 'failure']);
    for (let s = covered; s <= headSeq; s++) {
      const e = await entry(await idAt(s));
      const prev = (
        await sql<{ hash: string }>('SELECT hash FROM log_chain WHERE seq = $1', [s - 1])
      )[0]?.hash as string;
      await sql('UPDATE log_chain SET hash = $2, prev_hash = $3 WHERE seq = $1', [
        s,
        entryHash(prev, { ...e, prevHash: prev }),
        prev,
      ]);
    }
    const [{ previous, next } = { previous: null, next: null }] = await sql<{
      previous: number | null;
      next: number | null;
    }>(
      `SELECT (SELECT max(seq)::float8 FROM log_checkpoints WHERE seq < $1) AS previous,
                (SELECT min(seq)::float8 FROM log_checkpoints WHERE seq >= $1) AS next`,
      [covered],
    );
    expect(await verify()).toMatchObject({
      valid: false,
      firstInvalidSeq: (previous ?? 0) + 1,
      reason: `checkpoint ${next} does not match the entries' hash at seq ${next}`,
    });
  });
});

describe('a second instance on the same PostgreSQL', () => {
  it('refuses to start with a signing key of its own, naming the key the database registered', async () => {
    const first = await startTestServer();
    const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-second-'));
    try {
      await first.client.POST('/v1/logs', {
        body: { entries: [{ event: 'chain.keys', actor: { type: 'system' }, result: 'success' }] },
      });
      await first.sealer.flush();
      const second = startServer(
        { ...first.config, dataDir, signingKey: undefined },
        createLogger('silent'),
      );
      await expect(second).rejects.toThrow(
        /signing key SHA256:[0-9a-f]{64} \(just generated into .*signing-key\.pem\) is not the active key of this database: it is not registered, and SHA256:[0-9a-f]{64} signs checkpoints from seq 1 on/,
      );
      // The first instance goes on signing with its own key.
      expect((await first.client.POST('/v1/logs/verify', { body: {} })).data?.data).toMatchObject({
        valid: true,
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      await first.stop();
    }
  });
});

describe('redaction and the chain', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('keeps the chain valid and leaves the email in no table', async () => {
    const email = uniqueEmail('Chain');
    const user = await createUser(server.client, { email });
    await server.client.POST('/v1/logs', {
      body: {
        entries: [
          {
            event: 'user.login',
            actor: { id: user.id, email, type: 'user' },
            result: 'success',
            metadata: { note: `signed in as ${email}`, kept: 1 },
          },
          {
            event: 'admin.view',
            actor: { id: 'admin', type: 'user' },
            target: { id: user.id, type: 'user' },
            result: 'success',
            metadata: { who: { email } },
          },
        ],
      },
    });
    const found = async () =>
      (await server.client.POST('/v1/logs/search', { body: { query: `"${email}"` } })).data?.meta
        .totalHits;
    await server.searchable();
    expect(await found()).toBe(2);
    await server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } });
    // The search store took the redaction over before the deletion answered.
    expect(await found()).toBe(0);
    await server.sealer.flush();

    expect(await server.client.POST('/v1/logs/verify', { body: {} })).toMatchObject({
      data: { data: { valid: true } },
    });
    const needle = email.toLowerCase();
    // The client sent an Idempotency-Key with the POST /v1/users: its kept response showed
    // the email until the user was deleted.
    const tables = await server.db.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'log_entries',
        'log_chain',
        'log_seal_queue',
        'log_checkpoints',
        'idempotency_keys',
      ]),
    );
    for (const { name } of tables) {
      const rows = await server.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM "${name}" AS t WHERE strpos(lower(t::text), $1) > 0`,
        [needle],
      );
      expect({ table: name, rows: rows[0]?.n }).toEqual({ table: name, rows: 0 });
    }
    await server.searchable();
    expect(await found()).toBe(0);
  });

  it('verifies a real redaction, also over a range its user.deleted entry lies outside, and fails a field removed without a record (issue 41)', async () => {
    const email = uniqueEmail('Record');
    const user = await createUser(server.client, { email });
    const { data } = await server.client.POST('/v1/logs', {
      body: {
        entries: [
          { event: 'user.login', actor: { id: user.id, email, type: 'user' }, result: 'success' },
          {
            event: 'app.open',
            actor: { id: 'x', email: 'x@example.com', type: 'user' },
            target: { id: 'doc-1', type: 'doc' },
            result: 'success',
          },
        ],
      },
    });
    await server.sealer.flush();
    const [redacted, stripped] = (data?.data ?? []).map((e) => e.id) as [string, string];
    await server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } });
    await server.sealer.flush();
    const seqOf = async (id: string) =>
      (await server.client.GET('/v1/logs/{id}', { params: { path: { id } } })).data?.data
        .seq as number;
    const verify = async (body: { fromSeq?: number; toSeq?: number }) =>
      (await server.client.POST('/v1/logs/verify', { body })).data?.data;
    const seq = await seqOf(redacted);
    expect(await verify({})).toMatchObject({ valid: true });
    // The range ends before the user.deleted entry: its record is proven to a checkpoint.
    expect(await verify({ fromSeq: seq, toSeq: seq })).toMatchObject({
      valid: true,
      redactedFields: 1,
    });

    // Someone with the database strips another entry's email and target id as a redaction would.
    await server.db.query(
      `UPDATE log_entries SET actor_email = NULL, actor_email_redacted = true, target_id = NULL,
         salts = salts - 'actor.email' - 'target.id' WHERE id = $1`,
      [stripped],
    );
    expect(await verify({})).toMatchObject({
      valid: false,
      firstInvalidSeq: await seqOf(stripped),
      reason: `actor.email of entry ${stripped} (seq ${await seqOf(stripped)}) is absent, and no redaction record names it`,
    });
  });

  it('above 1,000 altered entries, names their count and digest, and lists them at GET /v1/logs/{id}/redactions (issue 41)', async () => {
    const email = uniqueEmail('Many');
    const user = await createUser(server.client, { email });
    const own = (i: number) => ({
      event: 'user.many',
      actor: { id: user.id, email, type: 'user' },
      result: 'success' as const,
      metadata: { i },
    });
    const ids: string[] = [];
    for (const count of [1000, 1]) {
      const { data } = await server.client.POST('/v1/logs', {
        body: { entries: Array.from({ length: count }, (_, i) => own(ids.length + i)) },
      });
      ids.push(...(data?.data ?? []).map((e) => e.id));
    }
    await server.sealer.flush();
    await server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } });
    await server.sealer.flush();
    const { data: listed } = await server.client.GET('/v1/logs', {
      params: { query: { events: ['user.deleted'], origin: 'service', limit: 50 } },
    });
    const deletion = listed?.data.find((e) => e.target?.id === user.id)?.id as string;
    const { data: entry } = await server.client.GET('/v1/logs/{id}', {
      params: { path: { id: deletion } },
    });
    const { data: list } = await server.client.GET('/v1/logs/{id}/redactions', {
      params: { path: { id: deletion } },
    });
    const records = list?.data.records ?? [];
    expect(records).toHaveLength(1001);
    expect(records.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(records.every((r) => r.fields.join() === 'actor.email')).toBe(true);
    expect(entry?.data.metadata).toMatchObject({
      redactedEntries: 1001,
      redactions: { count: 1001, sha256: redactionsDigest(records) },
    });
    expect(list?.data).toMatchObject({
      id: deletion,
      count: 1001,
      sha256: redactionsDigest(records),
    });
    // The server's verify takes the list from the stored records, checked against the digest
    // (the walk goes on to the next checkpoint, through more of the altered entries).
    const first = records[0]?.seq as number;
    const verified = (
      await server.client.POST('/v1/logs/verify', { body: { fromSeq: first, toSeq: first } })
    ).data?.data;
    expect(verified?.valid).toBe(true);
    expect(verified?.redactedFields).toBe(verified?.checkedEntries);
    const notDeletion = server.client.GET('/v1/logs/{id}/redactions', {
      params: { path: { id: ids[0] as string } },
    });
    expect(await failure(notDeletion)).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('serves JSON exports that verify offline, and their tampering is found offline too', async () => {
    const { data } = await server.client.POST('/v1/logs', {
      body: {
        entries: Array.from({ length: 5 }, (_, i) => ({
          event: 'export.chain',
          actor: { type: 'user', email: `e${i}@example.com` },
          result: 'success' as const,
          timestamp: `2025-03-01T00:00:0${i}.000Z`,
          metadata: { i },
        })),
      },
    });
    expect(data?.data).toHaveLength(5);
    await server.sealer.flush();
    const { data: created } = await server.client.POST('/v1/logs/export', {
      body: { from: '2025-03-01T00:00:00Z', to: '2025-03-02T00:00:00Z', format: 'json' },
    });
    let downloadUrl: string | undefined;
    for (let i = 0; i < 200 && !downloadUrl; i++) {
      const { data: state } = await server.client.GET('/v1/logs/export/{exportId}', {
        params: { path: { exportId: created?.data.exportId as string } },
      });
      downloadUrl = state?.data.downloadUrl;
      if (!downloadUrl) await new Promise((r) => setTimeout(r, 50));
    }
    const exported = (await (
      await fetch(localDownload(server, downloadUrl as string))
    ).json()) as ChainEntry[];
    expect(exported).toHaveLength(5);
    const { data: key } = await server.client.GET('/v1/logs/public-key');
    const checkpoints: { seq: number; hash: string; signature: string }[] = [];
    for await (const c of server.client.paginate('/v1/logs/checkpoints', {})) checkpoints.push(c);
    const offline = (entries: ChainEntry[]) =>
      verifyChain({ entries, checkpoints, publicKeyPem: key?.data.publicKey as string });
    expect(await offline(exported)).toMatchObject({ valid: true, checkedEntries: 5 });
    const changed = structuredClone(exported);
    const target = changed[2] as ChainEntry;
    (target.metadata as Record<string, unknown>).i = 7;
    expect(await offline(changed)).toMatchObject({ valid: false, firstInvalidSeq: target.seq });
    expect(await offline(exported.filter((e) => e !== exported[1]))).toMatchObject({
      valid: false,
      firstInvalidSeq: exported[1]?.seq,
    });
  });
});

describe('a JSON export and its redactions (issue 41)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('is one array of the entries, whose redacted ones carry the proof once, so the client verifies it; a field stripped from the file fails', async () => {
    const email = uniqueEmail('Export');
    const user = await createUser(server.client, { email });
    const day = { from: '2025-04-01T00:00:00Z', to: '2025-04-02T00:00:00Z' };
    const { data } = await server.client.POST('/v1/logs', {
      body: {
        entries: [
          ...Array.from({ length: 2 }, (_, i) => ({
            event: 'export.redact',
            actor: { id: user.id, email, type: 'user' as const },
            result: 'success' as const,
            timestamp: `2025-04-01T00:00:0${i}.000Z`,
          })),
          ...Array.from({ length: 3 }, (_, i) => ({
            event: 'export.redact',
            actor: { id: `other-${i}`, email: `other${i}@example.com`, type: 'user' as const },
            target: { id: `doc-${i}`, type: 'doc' },
            result: 'success' as const,
            timestamp: `2025-04-01T00:00:0${i + 2}.000Z`,
          })),
        ],
      },
    });
    await server.sealer.flush();
    await server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } });
    await server.sealer.flush();

    // The export holds the day's entries; the user.deleted entry lies outside it.
    const { data: created } = await server.client.POST('/v1/logs/export', {
      body: { ...day, format: 'json' },
    });
    const done = await server.client.exports.wait(created?.data.exportId as string, {
      intervalMs: 20,
    });
    expect(done).toMatchObject({ status: 'completed', totalRecords: 5 });
    const file = (await (
      await fetch(localDownload(server, done.downloadUrl as string))
    ).json()) as LogEntry[];
    // One JSON array of the entries, and nothing else in it.
    expect(Array.isArray(file)).toBe(true);
    expect(file).toHaveLength(5);
    const ids = data?.data.map((e) => e.id) as string[];
    expect(file.map((e) => e.id)).toEqual([...ids].reverse());

    // Newest first: the user's newer entry carries the deletion's proof, the older one names it.
    const [newer, older] = [file[3] as LogEntry, file[4] as LogEntry];
    expect(file.slice(0, 3).some((e) => 'redactedBy' in e || 'redactionProofs' in e)).toBe(false);
    const proof = newer.redactionProofs?.[0];
    expect(newer.redactionProofs).toHaveLength(1);
    expect(proof?.entry).toMatchObject({ event: 'user.deleted', origin: 'service' });
    expect(newer.redactedBy).toEqual([proof?.entry.id]);
    expect(older.redactedBy).toEqual([proof?.entry.id]);
    expect('redactionProofs' in older).toBe(false);

    const material = await fetchVerificationMaterial(server.client);
    const expectedKey = (await server.client.logs.getPublicKey()).fingerprint;
    expect(await verifyExport(file, material, { expectedKey })).toMatchObject({
      valid: true,
      checkedEntries: 5,
      redactedFields: 2,
    });
    // Without the proof the file carries, the redacted email cannot be told from a stripped one.
    const unproven = file.map(({ redactionProofs: _, ...entry }) => entry);
    expect(await verifyExport(unproven, material, { expectedKey })).toMatchObject({
      valid: false,
      firstInvalidSeq: older.seq,
    });

    const stripped = structuredClone(file);
    for (const entry of stripped.slice(0, 3)) {
      entry.actor.email = null;
      delete entry.target?.id;
      delete entry.salts['actor.email'];
      delete entry.salts['target.id'];
    }
    const victim = stripped[2] as LogEntry;
    expect(await verifyExport(stripped, material, { expectedKey })).toMatchObject({
      valid: false,
      firstInvalidSeq: victim.seq,
      reason: `actor.email of entry ${victim.id} (seq ${victim.seq}) is absent, and no redaction record names it`,
    });
  });
  it('signs a checkpoint at a deletion, which its proof carries to a verifier whose checkpoints predate it; a proof that reaches no checkpoint fails', async () => {
    const email = uniqueEmail('Fresh');
    const user = await createUser(server.client, { email });
    const day = { from: '2025-05-01T00:00:00Z', to: '2025-05-02T00:00:00Z' };
    await server.client.POST('/v1/logs', {
      body: {
        entries: [
          {
            event: 'export.fresh',
            actor: { id: user.id, email, type: 'user' as const },
            result: 'success' as const,
            timestamp: '2025-05-01T00:00:00.000Z',
          },
        ],
      },
    });
    await server.sealer.flush();
    // Fetched before the deletion: its checkpoints stop before it.
    const material = await fetchVerificationMaterial(server.client);
    const expectedKey = (await server.client.logs.getPublicKey()).fingerprint;
    await server.client.DELETE('/v1/users/{id}', { params: { path: { id: user.id } } });
    // An entry right after the deletion: it may be sealed in the same batch.
    await server.client.POST('/v1/logs', {
      body: { entries: [{ event: 'after.deletion', actor: { type: 'user' }, result: 'success' }] },
    });

    const { data: created } = await server.client.POST('/v1/logs/export', {
      body: { ...day, format: 'json' },
    });
    const done = await server.client.exports.wait(created?.data.exportId as string, {
      intervalMs: 20,
    });
    const file = (await (
      await fetch(localDownload(server, done.downloadUrl as string))
    ).json()) as LogEntry[];
    expect(file).toHaveLength(1);
    const proof = file[0]?.redactionProofs?.[0];
    const deletionSeq = proof?.entry.seq as number;
    expect(material.checkpoints.every((c) => c.seq < deletionSeq)).toBe(true);
    // Signed at the deletion itself: no entry lies between it and its signature.
    expect(proof?.following).toEqual([]);
    expect(proof?.checkpoint?.seq).toBe(deletionSeq);
    expect(await verifyExport(file, material, { expectedKey })).toMatchObject({
      valid: true,
      redactedFields: 1,
    });

    // What a forger who stripped the email would write: a user.deleted entry of their own, at a
    // seq no checkpoint signs, that links to nothing.
    const made = { ...(proof?.entry as ChainEntry), seq: deletionSeq + 1_000 };
    made.hash = entryHash(made.prevHash as string, made);
    const forged = [
      { ...file[0], redactionProofs: [{ entry: made, following: [] }] },
    ] as unknown as LogEntry[];
    const now = await fetchVerificationMaterial(server.client);
    expect(await verifyExport(forged, now, { expectedKey })).toMatchObject({
      valid: false,
      reason: `entries[0].redactionProofs[0]: seq ${made.seq} is not proven: the entries given after it end at seq ${made.seq}, before any signed checkpoint`,
    });
  });
});

describe('the first checkpoint', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  it('is signed as soon as a fresh chain seals its first entries, not after the timed interval', async () => {
    const { response } = await server.client.POST('/v1/logs', {
      body: { entries: [{ event: 'chain.first', actor: { type: 'user' }, result: 'success' }] },
    });
    expect(response.status).toBe(201);
    // No flush: the running sealer alone must make the chain's entries covered.
    await waitFor('a covered, valid chain', async () => {
      const { data } = await server.client.POST('/v1/logs/verify', { body: {} });
      return data?.data.valid === true && (data.data.lastCheckpointSeq ?? 0) >= 1;
    });
  });
});

describe('a chain sealed as v1 and continued as v2', () => {
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ signingKey });
  });
  afterAll(() => server?.stop());

  const sql = <T>(text: string, params?: unknown[]) => server.db.query<T>(text, params);
  const ingest = async (tag: string) => {
    await server.client.POST('/v1/logs', {
      body: {
        entries: Array.from({ length: 3 }, (_, i) => ({
          event: 'chain.versions',
          actor: { type: 'user', id: `u-${tag}-${i}`, email: `v${i}@example.com` },
          target: { type: 'doc', id: `d-${tag}-${i}` },
          result: 'success' as const,
          metadata: { i, tag },
        })),
      },
    });
    await server.sealer.flush();
  };
  const chain = async () => {
    const ids = await sql<{ id: string }>('SELECT entry_id AS id FROM log_chain ORDER BY seq');
    return Promise.all(
      ids.map(
        async ({ id }) =>
          (await server.client.GET('/v1/logs/{id}', { params: { path: { id } } })).data
            ?.data as ChainEntry,
      ),
    );
  };

  it('verifies the v1 entries under v1 and the later ones under v2, on the server and offline', async () => {
    await ingest('old');
    // What a server before v2 sealed: every row v1, and one checkpoint at its head.
    let prevHash = GENESIS_HASH;
    for (const e of await chain()) {
      const hash = entryHash(prevHash, { ...e, prevHash, canonicalVersion: 1 });
      await sql(
        'UPDATE log_chain SET hash = $2, prev_hash = $3, canonical_version = 1 WHERE seq = $1',
        [e.seq, hash, prevHash],
      );
      prevHash = hash;
    }
    const head = (await chain()).length;
    const privateKey = createPrivateKey(signingKey);
    await sql('DELETE FROM log_checkpoints');
    await sql(
      'INSERT INTO log_checkpoints (seq, hash, signature, created_at) VALUES ($1, $2, $3, now())',
      [
        head,
        prevHash,
        sign(null, Buffer.from(checkpointMessage(head, prevHash)), privateKey).toString('base64'),
      ],
    );

    await ingest('new');
    const entries = await chain();
    expect(entries.map((e) => e.canonicalVersion)).toEqual([
      ...Array<number>(head).fill(1),
      ...Array<number>(entries.length - head).fill(2),
    ]);
    expect(entries[head]?.prevHash).toBe(prevHash);
    expect((await server.client.POST('/v1/logs/verify', { body: {} })).data?.data).toEqual({
      valid: true,
      checkedEntries: entries.length,
      lastCheckpointSeq: entries.length,
      uncoveredEntries: 0,
    });
    const checkpoints: { seq: number; hash: string; signature: string }[] = [];
    for await (const c of server.client.paginate('/v1/logs/checkpoints', {})) checkpoints.push(c);
    const { data: key } = await server.client.GET('/v1/logs/public-key');
    const offline = (given: ChainEntry[]) =>
      verifyChain({ entries: given, checkpoints, publicKeyPem: key?.data.publicKey as string });
    expect(await offline(entries)).toMatchObject({ valid: true, checkedEntries: entries.length });
    // An export made before v2 has no canonicalVersion: its entries are v1.
    const older = entries.map((e) =>
      e.canonicalVersion === 1 ? (({ canonicalVersion: _, ...rest }) => rest)(e) : e,
    );
    expect(await offline(older)).toMatchObject({ valid: true });
    // A v2 entry passed off as v1, or the other way round, does not match its hash.
    for (const [seq, version] of [
      [head, 2],
      [head + 1, 1],
    ] as const) {
      const relabeled = entries.map((e) =>
        e.seq === seq ? { ...e, canonicalVersion: version } : e,
      );
      expect(await offline(relabeled)).toMatchObject({ valid: false, firstInvalidSeq: seq });
    }
  });
});
