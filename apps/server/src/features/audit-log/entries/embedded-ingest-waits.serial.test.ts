import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureLoopDelay } from '../../../../test/helpers/event-loop-delay.js';
import {
  json,
  postText,
  startTestServer,
  type TestServer,
} from '../../../../test/helpers/server.js';

/** The most entries one ingest takes, and a body just under its 10 MiB limit. */
const ENTRIES = 1000;
const BODY_BYTES = 10 * 1024 * 1024 - 64 * 1024;

function largeIngest(): string {
  const noteChars = Math.floor(BODY_BYTES / ENTRIES) - 200;
  const entries = Array.from({ length: ENTRIES }, (_, i) => ({
    event: 'document.uploaded',
    actor: { type: 'user', id: `user_${i}` },
    result: 'success',
    metadata: { note: `${i} ${'lorem ipsum '.repeat(noteChars / 12)}`.slice(0, noteChars) },
  }));
  return JSON.stringify({ entries });
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
};

/**
 * Issue 20: the embedded database has one connection and runs its statements on the event
 * loop. While a 10 MiB batch commits, other requests that need the database wait for its
 * transaction (docs/operations.md says so, and that concurrent writers belong on
 * PostgreSQL); `/healthz` and the event loop do not, and the wait of a database read ends
 * with the ingest: it is never a failure.
 */
describe('a 10 MiB ingest on the embedded database', () => {
  let server: TestServer;
  let userId = '';
  beforeAll(async () => {
    server = await startTestServer();
    const { data } = await server.client.POST('/v1/users', {
      body: { email: 'reader@example.com', name: 'Reader' },
    });
    userId = data?.data.id as string;
  });
  afterAll(() => server?.stop());

  /** Reads of a user, one after another, while `work` runs: their latencies. */
  async function readsDuring(work: () => Promise<void>): Promise<number[]> {
    const reads: number[] = [];
    let working = true;
    const reader = (async () => {
      while (working) {
        const started = performance.now();
        const res = await server.client.GET('/v1/users/{id}', { params: { path: { id: userId } } });
        if (res.response.status !== 200) throw new Error(`read answered ${res.response.status}`);
        reads.push(performance.now() - started);
      }
    })();
    try {
      await work();
    } finally {
      working = false;
      await reader;
    }
    return reads;
  }

  it('keeps /healthz answering, and database reads wait no longer than the ingest', async () => {
    let idleReads: number[] = [];
    const idle = await measureLoopDelay(server, async () => {
      idleReads = await readsDuring(async () => {
        for (let i = 0; i < 20; i++) {
          const res = await server.client.GET('/v1/logs', { params: { query: { limit: 1 } } });
          expect(res.response.status).toBe(200);
        }
      });
    });
    const body = largeIngest();
    let ingestMs = 0;
    let reads: number[] = [];
    const busy = await measureLoopDelay(server, async () => {
      reads = await readsDuring(async () => {
        const started = performance.now();
        const res = await postText(server, '/v1/logs', body);
        ingestMs = performance.now() - started;
        const answer = await json(res);
        expect(res.status, JSON.stringify(answer).slice(0, 300)).toBe(201);
        expect(answer.data).toHaveLength(ENTRIES);
      });
    });
    const measured = JSON.stringify({
      ingestMs: Math.round(ingestMs),
      idle: { ...idle, readP99Ms: p99(idleReads), reads: idleReads.length },
      busy: {
        ...busy,
        readP99Ms: p99(reads),
        readMaxMs: Math.max(...reads),
        reads: reads.length,
      },
    });
    console.log(measured);
    expect(busy.healthRequests, measured).toBeGreaterThan(0);
    expect(busy.loopMaxMs, measured).toBeLessThan(idle.loopMaxMs + 100);
    expect(busy.healthP99Ms, measured).toBeLessThan(idle.healthP99Ms + 100);
    expect(reads.length, measured).toBeGreaterThan(0);
    // A read that came while the batch was stored waited for its transaction, and no longer.
    expect(Math.max(...reads), measured).toBeLessThan(ingestMs + p99(idleReads) + 100);
  }, 180_000);
});
