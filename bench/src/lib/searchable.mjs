// Search and statistics read the analytics store, which the server feeds from the sealed log:
// an entry becomes searchable after it is sealed and fed. What waits for that, and what
// measures how long it takes.

/** @import pg from 'pg' */

/** How often a wait below looks again. */
const POLL_MS = 50;

/** @param {number} ms */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @typedef {object} SearchIndexState
 * @property {number} indexedThroughSeq
 * @property {number} sealedThroughSeq
 */

/**
 * The analytics store's state as the server shows it (`GET /v1/logs/search-index`).
 * @param {(path: string) => Promise<unknown>} api
 */
export async function searchIndexState(api) {
  return /** @type {{ data: SearchIndexState }} */ (await api('/v1/logs/search-index')).data;
}

/**
 * Resolves once every entry written so far is searchable: the sealer has emptied its queue
 * (read from the database), then the store holds the chain up to its head.
 * @param {(path: string) => Promise<unknown>} api
 * @param {pg.Client} db the server's database
 */
export async function untilSearchable(api, db) {
  while ((await db.query('SELECT EXISTS (SELECT 1 FROM log_seal_queue) AS queued')).rows[0].queued)
    await pause(POLL_MS);
  const head = Number(
    (await db.query('SELECT coalesce(max(seq), 0)::float8 AS seq FROM log_chain')).rows[0].seq,
  );
  while ((await searchIndexState(api)).indexedThroughSeq < head) await pause(POLL_MS);
  return head;
}

/**
 * Measures how long acknowledged entries take to become searchable while something else
 * loads the server: every `everyMs` it ingests one entry holding a word of its own, and it
 * searches for the words not found yet (oldest first, one query) until each is found. The
 * entries' timestamps are `at(k)` for the k-th; they hold none of the search mix's words.
 * `stop()` waits until every probe was found and gives each one's lag from its
 * acknowledgement to the answer that first held it.
 * @param {(path: string, init?: { method?: string, body?: string }) => Promise<unknown>} api
 * @param {{ everyMs: number, at: (k: number) => string }} options
 */
export function searchableLagProbe(api, { everyMs, at }) {
  /** @type {Map<string, { word: string, ackedAt: number }>} */
  const pending = new Map();
  /** @type {number[]} */
  const lags = [];
  let ingesting = true;
  const ingest = (async () => {
    for (let k = 0; ingesting; k++) {
      const started = performance.now();
      const word = `benchprobe${k}`;
      const acked = /** @type {{ data: { id: string }[] }} */ (
        await api('/v1/logs', {
          method: 'POST',
          body: JSON.stringify({
            entries: [
              {
                event: 'bench.probe',
                actor: { id: 'bench_probe', type: 'service' },
                result: 'success',
                timestamp: at(k),
                metadata: { note: word },
              },
            ],
          }),
        })
      );
      const id = acked.data[0]?.id;
      if (id) pending.set(id, { word, ackedAt: performance.now() });
      await pause(Math.max(0, everyMs - (performance.now() - started)));
    }
  })();
  const search = (async () => {
    while (ingesting || pending.size > 0) {
      // The oldest first: one query holds at most MAX_QUERY_TERMS words.
      const words = [...pending.values()].slice(0, 50).map((p) => p.word);
      if (words.length === 0) {
        await pause(POLL_MS);
        continue;
      }
      const found = /** @type {{ data: { id: string }[] }} */ (
        await api('/v1/logs/search', {
          method: 'POST',
          body: JSON.stringify({ query: words.join(' OR '), limit: 50 }),
        })
      );
      const now = performance.now();
      for (const { id } of found.data) {
        const probe = pending.get(id);
        if (!probe) continue;
        lags.push(now - probe.ackedAt);
        pending.delete(id);
      }
      await pause(POLL_MS);
    }
  })();
  return {
    async stop() {
      ingesting = false;
      await ingest;
      await search;
      return lags;
    },
  };
}
