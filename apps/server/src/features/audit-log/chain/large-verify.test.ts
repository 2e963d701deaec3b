import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { json, raw, startTestServer, type TestServer } from '../../../../test/helpers/server.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { WorkerChainVerifier } from './worker-verifier.js';

/** Entries of the largest metadata (16 KiB serialized), ingested in batches under 10 MiB. */
const ENTRIES = 2000;
const BATCH = 500;
const NOTE_CHARS = 16 * 1024 - 64;

/**
 * Issue 20: `POST /v1/logs/verify` read 2,000 chain rows per statement and checked them in one
 * go; over entries of 16 KiB that held the event loop for about a third of a second. Reads are
 * now bounded in bytes. Issue 41: checked in slices on the event loop, a walk of 51,000 entries
 * still slowed `/healthz` to tens of milliseconds, and a second walk meanwhile was a 503; the
 * checks now run on a worker thread per walk, two walks at once.
 */
describe('verifying a chain of the largest entries', () => {
  let server: TestServer;
  const call = (path: string, body?: unknown) =>
    raw(server, path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${server.rootKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    server = await startTestServer();
    let lastId = '';
    for (let sent = 0; sent < ENTRIES; sent += BATCH) {
      const entries = Array.from({ length: BATCH }, (_, i) => ({
        event: 'document.uploaded',
        actor: { type: 'user', id: `user_${sent + i}` },
        result: 'success',
        metadata: { note: `${sent + i} ${'x'.repeat(NOTE_CHARS)}`.slice(0, NOTE_CHARS) },
      }));
      const res = await call('/v1/logs', { entries });
      expect(res.status).toBe(201);
      lastId = (await json(res)).data.at(-1).id;
    }
    await waitFor(
      'every entry sealed',
      async () => typeof (await json(await call(`/v1/logs/${lastId}`))).data?.seq === 'number',
      120_000,
    );
  }, 240_000);
  afterAll(() => server?.stop());

  it('checks the whole chain on worker threads, two walks at once', async () => {
    const add = WorkerChainVerifier.prototype.add;
    const batches: { thread: number; items: number }[] = [];
    const spy = vi.spyOn(WorkerChainVerifier.prototype, 'add').mockImplementation(function (
      this: WorkerChainVerifier,
      items,
    ) {
      batches.push({ thread: this.threadId, items: items.length });
      return add.call(this, items);
    });
    try {
      const responses = await Promise.all([
        call('/v1/logs/verify', {}),
        call('/v1/logs/verify', {}),
      ]);
      for (const res of responses) {
        expect(res.status).toBe(200);
        expect((await json(res)).data).toMatchObject({ valid: true, checkedEntries: ENTRIES });
      }
    } finally {
      spy.mockRestore();
    }
    const measured = JSON.stringify(batches);
    // Every entry was checked off this (the server's) thread, each walk on a thread of its own.
    expect(new Set(batches.map((batch) => batch.thread)).size, measured).toBe(2);
    expect(
      batches.map((batch) => batch.thread),
      measured,
    ).not.toContain(threadId);
    expect(
      batches.reduce((sum, batch) => sum + batch.items, 0),
      measured,
    ).toBe(2 * ENTRIES);
  }, 120_000);
});
