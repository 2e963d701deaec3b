import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureCluster } from '../src/cluster-creation.js';
import { embeddedPaths, openDatabase } from '../src/index.js';
import { freshDataDir } from './test-databases.js';

const removals: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const remove of removals.splice(0)) await remove();
});

async function dataDir(): Promise<string> {
  const { dir, remove } = await freshDataDir();
  removals.push(remove);
  return dir;
}

describe('the embedded cluster', () => {
  it('is never replaced when its PG_VERSION is missing: the start is refused, saying what to check', async () => {
    const dir = await dataDir();
    const { cluster, log } = embeddedPaths(dir);
    await mkdir(join(cluster, 'base'), { recursive: true });
    await writeFile(join(cluster, 'base', 'data'), 'rows');
    const refused = await openDatabase({ dataDir: dir }).then(
      (db) => db.close(),
      (error: Error) => error.message,
    );
    expect(refused).toContain(`${cluster} has no PG_VERSION`);
    expect(refused).toContain(log);
    expect(await readdir(cluster)).toEqual(['base']);
    expect(await readdir(join(cluster, 'base'))).toEqual(['data']);
  });

  it('leaves no staging directory when initdb fails', async () => {
    const dir = await dataDir();
    const paths = embeddedPaths(dir);
    const failed = await ensureCluster(paths, '/bin/false', undefined).catch(
      (error: Error) => error.message,
    );
    expect(failed).toContain('initdb failed');
    expect(await readdir(dir)).toEqual([]);
  });
});
