// Log streams on PostgreSQL: delivery throughput to a local receiver (batches of 1,000), the
// lag from an entry's acknowledgement to its receipt under a steady ingest, and the ingest
// rate with 3 active streams vs none (streams must not slow ingest).
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { latencies } from '../lib/measure.mjs';
import { freshDatabase, startSecadmin } from '../lib/processes.mjs';

/** @import { Row } from '../lib/measure.mjs' */

const STREAM_ENV = { SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS: '1', SECADMIN_STREAM_POLL_MS: '100' };

/**
 * The receiver's own work, in a worker thread: a SIEM is not the client that ingests, so
 * parsing what arrives must not hold up the client's next request. It counts entries into a
 * shared counter and keeps, per entry, when it arrived.
 */
const RECEIVER = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const count = new Int32Array(workerData.counter);
const arrivals = [];
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    for (const e of message.entries ?? []) arrivals.push({ receivedAt: e.receivedAt, at });
    Atomics.add(count, 0, (message.entries ?? []).length);
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => parentPort.postMessage({ arrivals }));
`;

/** A receiver on 127.0.0.1 in a worker thread (see RECEIVER). */
async function startReceiver() {
  const counter = new SharedArrayBuffer(4);
  const entries = new Int32Array(counter);
  const worker = new Worker(RECEIVER, { eval: true, workerData: { counter } });
  /** @type {{ port: number }} */
  const { port } = await new Promise((resolve) => worker.once('message', resolve));
  return {
    url: `http://127.0.0.1:${port}/hook`,
    entries: () => Atomics.load(entries, 0),
    /** @returns {Promise<{ receivedAt: string, at: number }[]>} */
    arrivals: async () => {
      worker.postMessage('arrivals');
      return (await new Promise((resolve) => worker.once('message', resolve))).arrivals;
    },
    close: () => worker.terminate(),
  };
}

/** @param {number} n @param {string} tag */
const batch = (n, tag) =>
  JSON.stringify({
    entries: Array.from({ length: n }, (_, i) => ({
      event: 'bench.stream',
      actor: { id: `user_${i % 500}`, type: 'user' },
      target: { id: `doc_${i}`, type: 'document' },
      result: 'success',
      metadata: { tag, i },
    })),
  });

/** @param {() => boolean | Promise<boolean>} check @param {number} timeoutMs @param {string} what */
async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`log-streams bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** @param {{ smoke: boolean, adminUrl: string }} options @returns {Promise<Row[]>} */
export async function logStreamCases({ smoke, adminUrl }) {
  const total = smoke ? 2_000 : 100_000;
  const database = await freshDatabase(adminUrl);
  const server = await startSecadmin({ databaseUrl: database.url, env: STREAM_ENV });
  const receivers = [];
  try {
    // Throughput: a paused stream sees the whole log sealed, then is resumed and timed.
    const sink = await startReceiver();
    receivers.push(sink);
    const created = /** @type {any} */ (
      await server.api('/v1/log-streams', {
        method: 'POST',
        body: JSON.stringify({
          name: 'throughput',
          destination: { type: 'webhook', url: sink.url },
          filter: { events: ['bench.*'] },
          batchSize: 1000,
        }),
      })
    ).data;
    await server.api(`/v1/log-streams/${created.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'paused' }),
    });
    for (let i = 0; i < total; i += 1000)
      await server.api('/v1/logs', { method: 'POST', body: batch(1000, 'throughput') });
    await until(
      async () =>
        /** @type {any} */ (await server.api(`/v1/log-streams/${created.id}`)).data.lagEntries >=
        total,
      600_000,
      'the log to be sealed',
    );
    const started = performance.now();
    await server.api(`/v1/log-streams/${created.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'active' }),
    });
    await until(() => sink.entries() >= total, 600_000, 'every entry delivered');
    const perSecond = total / ((performance.now() - started) / 1000);

    // Ingest with no stream active (the throughput stream is paused again), then with 3.
    await server.api(`/v1/log-streams/${created.id}`, {
      method: 'PATCH',
      body: JSON.stringify({ status: 'paused' }),
    });
    const rounds = smoke ? 3 : 40;
    const ingestRate = async () => {
      const t = performance.now();
      for (let i = 0; i < rounds; i++)
        await server.api('/v1/logs', { method: 'POST', body: batch(1000, 'ingest') });
      return (rounds * 1000) / ((performance.now() - t) / 1000);
    };
    const without = await ingestRate();
    const lagSink = await startReceiver();
    receivers.push(lagSink);
    for (let i = 0; i < 3; i++)
      await server.api('/v1/log-streams', {
        method: 'POST',
        body: JSON.stringify({
          name: `steady ${i}`,
          destination: { type: 'webhook', url: i === 0 ? lagSink.url : sink.url },
          filter: { events: ['bench.*'] },
          batchSize: 1000,
        }),
      });
    const withStreams = await ingestRate();

    // Lag: what the 3 streams received of the ingest above, from acknowledgement to receipt.
    const expected = rounds * 1000;
    await until(() => lagSink.entries() >= expected, 600_000, 'the lag stream to catch up');
    const lag = latencies(
      (await lagSink.arrivals()).map(({ receivedAt, at }) => at - Date.parse(receivedAt)),
    );
    const ratio = withStreams / without;
    return [
      {
        case: `log stream delivery, ${total.toLocaleString('en')} sealed entries, batches of 1,000, webhook on 127.0.0.1 (PostgreSQL)`,
        peer: '—',
        secadmin: `${Math.round(perSecond).toLocaleString('en')} entries/s`,
        peerFigure: '—',
        ratio: null,
        target: '≥ 20,000 entries/s',
        met: perSecond >= 20_000,
        detail: { total, perSecond },
      },
      {
        case: 'log stream lag, acknowledgement to receipt, while ingesting 1,000-entry batches back to back',
        peer: '—',
        secadmin: `p50 ${Math.round(lag.p50Ms)} ms, p99 ${Math.round(lag.p99Ms)} ms`,
        peerFigure: '—',
        ratio: null,
        target: 'p99 < 5 s',
        met: lag.p99Ms < 5000,
        detail: { lag },
      },
      {
        case: 'ingest rate with 3 active log streams vs none (1,000-entry batches, one client)',
        peer: 'no stream',
        secadmin: `${Math.round(withStreams).toLocaleString('en')} entries/s`,
        peerFigure: `${Math.round(without).toLocaleString('en')} entries/s`,
        ratio,
        target: '≥ 0.9×',
        met: ratio >= 0.9,
        detail: { withStreams, without },
      },
    ];
  } finally {
    for (const r of receivers) await r.close();
    await server.stop();
    await database.drop();
  }
}
