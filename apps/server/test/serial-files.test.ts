import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** This file: it names what it looks for. */
const ITSELF = 'test/serial-files.test.ts';

/**
 * What makes a test file serial (vitest.config.ts): it measures time, the event loop's delay
 * or latencies, which other files running beside it would distort, or it starts a cluster,
 * a Redis or a load of its own, or it replaces a module, which the parallel group's shared
 * module graph would have loaded already.
 */
const MEASURES = [
  /monitorEventLoopDelay|measureLoopDelay/,
  /performance\.now\(/,
  /\bstart(Replicated)?(Postgres|Redis)\(/,
  /\btraffic\(/,
  /\bvi\.(do)?[mM]ock\(/,
];

async function testFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The files among `files` that measure but would run in the parallel group. */
export function misplaced(files: { path: string; text: string }[]): string[] {
  return files
    .filter(({ path }) => !path.endsWith('.serial.test.ts'))
    .filter(({ text }) => MEASURES.some((pattern) => pattern.test(text)))
    .map(({ path }) => path);
}

describe('the serial group of the test suite', () => {
  it('holds every file that measures time, starts servers of its own or replaces a module', async () => {
    const paths = [...(await testFiles('src')), ...(await testFiles('test'))].filter(
      (path) => path !== ITSELF,
    );
    const files = await Promise.all(
      paths.map(async (path) => ({ path, text: await readFile(join(ROOT, path), 'utf8') })),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(misplaced(files), 'rename them to *.serial.test.ts').toEqual([]);
  });

  it('tells a file that measures from one that does not', () => {
    const measuring = 'const started = performance.now();';
    expect(
      misplaced([
        { path: 'test/a.test.ts', text: measuring },
        { path: 'test/b.serial.test.ts', text: measuring },
        { path: 'test/c.test.ts', text: "it('lists users', () => {});" },
        { path: 'test/d.test.ts', text: 'await measureLoopDelay(server, work);' },
        { path: 'test/e.test.ts', text: "vi.mock('../../lib/password.js', async () => ({}));" },
      ]),
    ).toEqual(['test/a.test.ts', 'test/d.test.ts', 'test/e.test.ts']);
  });
});
