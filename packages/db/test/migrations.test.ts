import { fork } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { DataDirLockedError, openDatabase } from '../src/index.js';
import { freshDataDir, freshPostgres } from './test-databases.js';

describe('migrations', () => {
  it('apply once on PostgreSQL even when several instances start together', async () => {
    const database = await freshPostgres();
    const dbs = await Promise.all(
      [1, 2, 3].map(() => openDatabase({ url: database.url, dataDir: '/nonexistent' })),
    );
    try {
      const applied = await Promise.all(dbs.map((db) => db.migrate()));
      expect(applied.flat()).toEqual(['20261125210000_init']);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        'SELECT migration_name, finished_at FROM _prisma_migrations',
      );
      await client.end();
      expect(rows).toHaveLength(1);
      expect(rows[0].finished_at).not.toBeNull();
      expect(await dbs[0]?.migrate()).toEqual([]);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
      await database.drop();
    }
  });

  it('apply on the embedded database and are recorded', async () => {
    const { dir, remove } = await freshDataDir();
    const db = await openDatabase({ dataDir: dir });
    try {
      expect(await db.migrate()).toEqual(['20261125210000_init']);
      expect(await db.migrate()).toEqual([]);
      await db.ping();
    } finally {
      await db.close();
      await remove();
    }
  });
});

describe('the embedded data dir lock', () => {
  it('refuses a second process while the first holds the data dir', async () => {
    const { dir, remove } = await freshDataDir();
    const db = await openDatabase({ dataDir: dir });
    try {
      const script = join(dir, 'second.mjs');
      await writeFile(
        script,
        `import { openDatabase } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
         try { await openDatabase({ dataDir: ${JSON.stringify(dir)} }); process.exit(0); }
         catch (e) { console.log(e.name + ': ' + e.message); process.exit(3); }`,
      );
      const child = fork(script, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
      let out = '';
      child.stdout?.on('data', (c) => {
        out += c;
      });
      const [code] = await once(child, 'exit');
      expect(code).toBe(3);
      expect(out).toContain('DataDirLockedError');
      expect(out).toContain(`${process.pid}`);
    } finally {
      await db.close();
    }
    // Released on close: it opens again.
    const again = await openDatabase({ dataDir: dir });
    await again.close();
    await remove();
  });

  it('takes over a lock left by a dead process', async () => {
    const { dir, remove } = await freshDataDir();
    await writeFile(join(dir, 'db.lock'), '999999');
    const db = await openDatabase({ dataDir: dir });
    await db.close();
    await remove();
    expect(DataDirLockedError).toBeDefined();
  });
});
