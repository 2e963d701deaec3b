// A streaming replica (DATABASE_READ_URL) while the audit log's ingest runs at full speed:
// how far its replay falls behind the primary, in time and in WAL, and what a replica costs
// the ingest rate. The pair is started here (pg_basebackup, as the replica test does).
import { startReplicatedPostgres } from '@secadmin/test-infra';
import pg from 'pg';
import { latencies } from '../lib/measure.mjs';
import { freshDatabase, startSecadmin } from '../lib/processes.mjs';
import { ingestInBatches } from './audit-log.mjs';

/** @import { Row } from '../lib/measure.mjs' */

const SAMPLE_EVERY_MS = 50;

/**
 * The replica's lag as its primary reports it (pg_stat_replication), every SAMPLE_EVERY_MS
 * until `stop` settles: replay_lag in ms (PostgreSQL's null, nothing left to replay, counts as
 * 0) and the WAL bytes written on the primary and not yet replayed.
 * @param {pg.Client} primary
 * @param {Promise<unknown>} stop
 */
async function sampleLag(primary, stop) {
  /** @type {{ ms: number, bytes: number }[]} */
  const samples = [];
  let stopped = false;
  const done = () => {
    stopped = true;
  };
  stop.then(done, done);
  while (!stopped) {
    const { rows } = await primary.query(
      `SELECT coalesce(extract(epoch FROM replay_lag) * 1000, 0)::float8 AS ms,
              pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 AS bytes
       FROM pg_stat_replication`,
    );
    const [row] = rows;
    if (!row) throw new Error('the replica is not streaming from the primary');
    samples.push(row);
    await new Promise((r) => setTimeout(r, SAMPLE_EVERY_MS));
  }
  return samples;
}

/**
 * `total` entries ingested into a fresh database of the primary `adminUrl`, by a server that
 * reads from the replica on `replicaPort` when given; what `during` measures meanwhile, and
 * the ingest rate.
 * @template T
 * @param {string} adminUrl
 * @param {string | undefined} replicaPort
 * @param {number} total
 * @param {(primary: pg.Client, ingest: Promise<unknown>) => Promise<T>} during
 */
async function ingestInto(adminUrl, replicaPort, total, during) {
  const database = await freshDatabase(adminUrl);
  /** @type {Awaited<ReturnType<typeof startSecadmin>> | undefined} */
  let server;
  const primary = new pg.Client({ connectionString: database.url });
  try {
    const replicaUrl = new URL(database.url);
    if (replicaPort) replicaUrl.port = replicaPort;
    server = await startSecadmin({
      databaseUrl: database.url,
      env: replicaPort ? { DATABASE_READ_URL: replicaUrl.href } : {},
    });
    await primary.connect();
    const started = performance.now();
    let ended = started;
    const ingest = ingestInBatches(server.api)(total).then(() => {
      ended = performance.now();
    });
    const measured = await during(primary, ingest);
    await ingest;
    return { measured, rate: total / ((ended - started) / 1000) };
  } finally {
    await primary.end().catch(() => {});
    await server?.stop();
    await database.drop();
  }
}

/** @param {{ smoke: boolean }} options */
export async function readReplicaCases({ smoke }) {
  const total = smoke ? 3000 : 200_000;
  const pair = await startReplicatedPostgres();
  try {
    const withReplica = await ingestInto(
      pair.primary.url,
      new URL(pair.replica.url).port,
      total,
      sampleLag,
    );
    // The same ingest with the replica stopped: what replaying on this machine costs.
    await pair.replica.stop();
    const alone = await ingestInto(pair.primary.url, undefined, total, async () => {});
    const ms = withReplica.measured.map((s) => s.ms);
    const lag = latencies(ms);
    const mb = Math.max(...withReplica.measured.map((s) => s.bytes)) / 1024 ** 2;
    const perSecond = (/** @type {number} */ rate) =>
      `${Math.round(rate).toLocaleString('en')} entries/s`;
    /** @type {Row[]} */
    const rows = [
      {
        case: `read replica's replay lag while ingesting ${total.toLocaleString('en')} entries (batches of 1,000, 4 in flight)`,
        peer: 'the same ingest with the replica stopped',
        secadmin: `p50 ${lag.p50Ms.toFixed(0)} ms, p99 ${lag.p99Ms.toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms; at most ${mb.toFixed(1)} MB of WAL behind; ingest ${perSecond(withReplica.rate)}`,
        peerFigure: `ingest ${perSecond(alone.rate)}`,
        ratio: withReplica.rate / alone.rate,
        target: '— (measured, issue 27)',
        met: true,
        detail: { samples: ms.length },
      },
    ];
    return rows;
  } finally {
    await pair.remove();
  }
}
