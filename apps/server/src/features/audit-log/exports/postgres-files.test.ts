import { type Database, openDatabase } from '@secadmin/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../test/helpers/server.js';
import { newId } from '../../../lib/ids.js';
import { createStore } from '../../../storage/store.js';
import { PostgresExportFiles } from './postgres-files.js';
import { ExportsRepository } from './repository.js';

async function content(files: PostgresExportFiles, id: string): Promise<string | undefined> {
  const pieces = await files.read(id);
  if (!pieces) return undefined;
  const buffers: Buffer[] = [];
  for await (const piece of pieces) buffers.push(piece);
  return Buffer.concat(buffers).toString();
}

describe('export files in PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDatabase({ url: database.url, dataDir: '/nonexistent' });
    await db.migrate();
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  it('keep the pieces of an instance that lost its claim apart from the new claimant’s', async () => {
    const store = createStore(db);
    const files = new PostgresExportFiles(store, new ExportsRepository(store.connection));
    const id = newId('exp');
    const stale = await files.create(id);
    await stale.write(Buffer.from('stale 0;'));
    const claimant = await files.create(id);
    await stale.write(Buffer.from('stale 1;'));
    await claimant.write(Buffer.from('new 0;'));
    await claimant.write(Buffer.from('new 1;'));
    expect(await content(files, id)).toBeUndefined();
    await claimant.finish();
    await stale.discard();
    expect(await content(files, id)).toBe('new 0;new 1;');
    expect(await files.usedBytes()).toBe('new 0;new 1;'.length);

    // A later attempt replaces a complete file, like a rename.
    const again = await files.create(id);
    await again.write(Buffer.from('again;'));
    await again.finish();
    expect(await content(files, id)).toBe('again;');
    await files.remove(id);
    expect(await content(files, id)).toBeUndefined();
    expect(await files.usedBytes()).toBe(0);
  });
});
