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
 * a Redis or a load of its own.
 */
const MEASURES = [
  /monitorEventLoopDelay|measureLoopDelay/,
  /performance\.now\(/,
  /\bstart(Replicated)?(Postgres|Redis)\(/,
  /\btraffic\(/,
];
/** What needs a module graph of its own: a replaced module, which the parallel group's shared graph would have loaded already. */
const REPLACES_A_MODULE = /\bvi\.(do)?[mM]ock\(/;

async function testFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/**
 * The files among `files` that measure but would not run alone, or replace a module but would
 * share the parallel group's module graph.
 */
export function misplaced(files: { path: string; text: string }[]): string[] {
  const serial = (path: string) => path.endsWith('.serial.test.ts');
  const ownGraph = (path: string) => serial(path) || path.endsWith('.isolated.test.ts');
  return files
    .filter(
      ({ path, text }) =>
        (!serial(path) && MEASURES.some((pattern) => pattern.test(text))) ||
        (!ownGraph(path) && REPLACES_A_MODULE.test(text)),
    )
    .map(({ path }) => path);
}

describe('the serial group of the test suite', () => {
  it('holds every file that measures time or starts clusters; a file that replaces a module has a graph of its own', async () => {
    const paths = [...(await testFiles('src')), ...(await testFiles('test'))].filter(
      (path) => path !== ITSELF,
    );
    const files = await Promise.all(
      paths.map(async (path) => ({ path, text: await readFile(join(ROOT, path), 'utf8') })),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(
      misplaced(files),
      'rename them to *.serial.test.ts (or *.isolated.test.ts if they only replace a module)',
    ).toEqual([]);
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
        { path: 'test/f.isolated.test.ts', text: "vi.mock('../../lib/password.js');" },
        { path: 'test/g.isolated.test.ts', text: measuring },
      ]),
    ).toEqual(['test/a.test.ts', 'test/d.test.ts', 'test/e.test.ts', 'test/g.isolated.test.ts']);
  });
});
