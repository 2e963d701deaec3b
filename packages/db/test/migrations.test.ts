import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { applyMigrations, loadMigrations, openDatabase } from '../src/index.js';
import { freshDataDir, freshPostgres } from './test-databases.js';

const allMigrationNames = async () => (await loadMigrations()).map((m) => m.name);

/** A migration session on one connection, as the migrator takes it. */
const sessionOn = (client: pg.Client) => ({
  query: async <T>(sql: string, params?: unknown[]) =>
    (await client.query(sql, params)).rows as T[],
  exec: async (sql: string) => {
    await client.query(sql);
  },
});

describe('migrations', () => {
  it('apply once on PostgreSQL even when several instances start together', async () => {
    const database = await freshPostgres();
    const dbs = await Promise.all(
      [1, 2, 3].map(() => openDatabase({ url: database.url, dataDir: '/nonexistent' })),
    );
    try {
      const applied = await Promise.all(dbs.map((db) => db.migrate()));
      expect(applied.flat()).toEqual(await allMigrationNames());
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        'SELECT migration_name, finished_at FROM _prisma_migrations',
      );
      await client.end();
      expect(rows).toHaveLength((await allMigrationNames()).length);
      expect(rows.every((row) => row.finished_at !== null)).toBe(true);
      expect(await dbs[0]?.migrate()).toEqual([]);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await database.drop();
    }
  });

  it('mark log entries stored before provenance as ingested, vouching for none', async () => {
    const database = await freshPostgres();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const session = sessionOn(client);
    try {
      const migrations = await loadMigrations();
      const provenance = migrations.findIndex((m) => m.name.endsWith('_log_provenance'));
      await applyMigrations(session, migrations.slice(0, provenance));
      await client.query(
        `INSERT INTO log_entries (id, timestamp, event, actor_id, actor_type, target_id, target_type, result, metadata)
         VALUES ('log_old', now(), 'user.created', 'key_1', 'api_key', 'user_1', 'user', 'success', '{"principal":"service:root"}')`,
      );
      await applyMigrations(session, migrations);
      const { rows } = await client.query(
        'SELECT origin, ingested_by, received_at FROM log_entries',
      );
      expect(rows).toEqual([{ origin: 'api', ingested_by: null, received_at: null }]);
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it('count the entries already sealed per hour, and leave the queued ones to the sealer', async () => {
    const database = await freshPostgres();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const session = sessionOn(client);
    try {
      const migrations = await loadMigrations();
      const counts = migrations.findIndex((m) => m.name.endsWith('_log_entry_counts'));
      await applyMigrations(session, migrations.slice(0, counts));
      await client.query(
        `INSERT INTO log_entries (id, timestamp, event, actor_id, actor_type, target_type, result, origin)
         VALUES ('log_a', '2025-01-01T10:05:00Z', 'user.login', 'ada', 'user', NULL, 'success', 'api'),
                ('log_b', '2025-01-01T10:55:00Z', 'user.login', 'ada', 'user', NULL, 'success', 'api'),
                ('log_c', '2025-01-01T11:00:00Z', 'user.login', NULL, 'user', 'doc', 'success', 'api'),
                ('log_queued', '2025-01-01T10:10:00Z', 'user.login', 'ada', 'user', NULL, 'success', 'api')`,
      );
      await client.query(
        `INSERT INTO log_seal_queue (entry_id, entry_timestamp) VALUES ('log_queued', '2025-01-01T10:10:00Z')`,
      );
      // Up to the migration that dropped the counts (search and statistics moved to the store).
      const store = migrations.findIndex((m) => m.name.endsWith('_search_store'));
      await applyMigrations(session, migrations.slice(0, store));
      const { rows } = await client.query(
        `SELECT to_char(hour AT TIME ZONE 'UTC', 'HH24:MI') AS hour, target_type, n::int AS n
         FROM log_entry_counts ORDER BY hour`,
      );
      expect(rows).toEqual([
        { hour: '10:00', target_type: null, n: 2 },
        { hour: '11:00', target_type: 'doc', n: 1 },
      ]);
      const actors = await client.query(
        `SELECT to_char(day AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') AS day, actor_id, n::int AS n
         FROM log_actor_counts`,
      );
      expect(actors.rows).toEqual([{ day: '2025-01-01 00:00', actor_id: 'ada', n: 2 }]);
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it('move search to the analytics store: the word index and the counts go, the store state starts empty', async () => {
    const database = await freshPostgres();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await applyMigrations(sessionOn(client), await loadMigrations());
      const gone = await client.query(
        `SELECT to_regclass('log_entry_counts') AS entry_counts,
                to_regclass('log_actor_counts') AS actor_counts,
                EXISTS (SELECT 1 FROM information_schema.columns
                        WHERE table_name = 'log_entries' AND column_name = 'search') AS search,
                EXISTS (SELECT 1 FROM information_schema.columns
                        WHERE table_name = 'log_chain' AND column_name = 'counted') AS counted`,
      );
      expect(gone.rows).toEqual([
        { entry_counts: null, actor_counts: null, search: false, counted: false },
      ]);
      const state = await client.query(
        `SELECT id, indexed_through_seq::int AS through, indexed_at, rebuild_live
         FROM search_index_state`,
      );
      expect(state.rows).toEqual([{ id: 1, through: 0, indexed_at: null, rebuild_live: false }]);
      await expect(client.query('INSERT INTO search_index_state (id) VALUES (2)')).rejects.toThrow(
        /search_index_state_one_row/,
      );
    } finally {
      await client.end();
      await database.drop();
    }
  });

  it('apply on the embedded database and are recorded', async () => {
    const { dir, remove } = await freshDataDir();
    const db = await openDatabase({ dataDir: dir });
    try {
      expect(await db.migrate()).toEqual(await allMigrationNames());
      expect(await db.migrate()).toEqual([]);
      await db.ping();
    } finally {
      await db.close();
      await remove();
    }
  });
});
