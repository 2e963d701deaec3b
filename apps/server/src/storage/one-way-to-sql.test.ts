import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/**
 * The README's server map: a repository runs plain SQL through its connection's `sql` only.
 * Prisma's raw queries would leave a transaction's connection (and keep their parameters).
 */
describe('plain SQL', () => {
  it("goes through a connection's sql, never Prisma's $queryRaw or $executeRaw", async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const text = await readFile(file, 'utf8');
      if (/\.\$(query|execute)Raw(Unsafe)?\b/.test(text)) offenders.push(relative(SRC, file));
    }
    expect(offenders).toEqual([]);
  });
});
