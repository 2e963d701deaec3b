import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** This file: it names what it looks for. */
const ITSELF = 'test/suite-rules.test.ts';

/**
 * What a test must not assert: how long something took. What must be fast is a `pnpm bench`
 * row; a test asserts what makes it so (the work is bounded, the loop turns, the order of
 * events). A deadline that only fails a hung test (`Date.now() + timeout`, a test's timeout) is
 * none of these.
 */
const WALL_CLOCK: [rule: string, pattern: RegExp][] = [
  ['measures event-loop delay', /monitorEventLoopDelay|measureLoopDelay|eventLoopUtilization/],
  ['reads performance.now() (count turns or work instead)', /performance\.now\(\)/],
  ['asserts on a difference of clock readings', /expect\([^;]*\.now\(\)\s*-/],
  [
    'keeps a duration of clock readings',
    /\b\w*(ms|elapsed|duration|took|latenc\w*)\s*=\s*(Date|performance)\.now\(\)\s*-/i,
  ],
  [
    'promises a duration in a test title',
    /\b(it|test|describe)(\.each\([^)]*\))?\(\s*['"`][^'"`]*\bwithin [\d_,.]+ ?(ms|s|seconds?|milliseconds?|minutes?)\b/,
  ],
];

/** What needs a module graph of its own: a replaced module, which the parallel group's shared graph would have loaded already. */
const REPLACES_A_MODULE = /\bvi\.(do)?[mM]ock\(/;
/** What starts a cluster or load of its own, to be stopped under it. */
const STARTS_ITS_OWN = /\bstart(Replicated)?(Postgres|Redis)\(|\btraffic\(/;

async function files(dir: string, suffix: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(suffix))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

interface SourceFile {
  path: string;
  text: string;
}

/** Each file of `files` that breaks a rule, with the rules it breaks. */
export function breaches(files: SourceFile[]): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const { path, text } of files) {
    const rules = WALL_CLOCK.filter(([, pattern]) => pattern.test(text)).map(([rule]) => rule);
    if (path.endsWith('.test.ts')) {
      const isolated = path.endsWith('.isolated.test.ts');
      if (path.endsWith('.serial.test.ts'))
        rules.push('is named *.serial.test.ts: no group runs such files any more');
      if (!isolated && REPLACES_A_MODULE.test(text))
        rules.push('replaces a module: name it *.isolated.test.ts');
      if (!isolated && STARTS_ITS_OWN.test(text))
        rules.push('starts a cluster or load of its own: name it *.isolated.test.ts');
    }
    if (rules.length > 0) found[path] = rules;
  }
  return found;
}

describe('the rules of the test suite', () => {
  it('no test file or helper measures time; files of their own graph or clusters are isolated', async () => {
    const paths = [...(await files('src', '.test.ts')), ...(await files('test', '.ts'))].filter(
      (path) => path !== ITSELF,
    );
    const sources = await Promise.all(
      paths.map(async (path) => ({ path, text: await readFile(join(ROOT, path), 'utf8') })),
    );
    expect(sources.length).toBeGreaterThan(50);
    expect(breaches(sources)).toEqual({});
  });

  it('tells each breach from what is allowed', () => {
    const allowed = [
      'const deadline = Date.now() + 10_000;',
      'if (Date.now() > deadline) throw new Error("timed out");',
      'const old = new Date(Date.now() - 45 * DAY_MS);',
      "it('answers at once', async () => {});",
      'expect(error.message).toMatch(/did not answer within 1 s/);',
      'vi.spyOn(performance, "now").mockImplementation(() => clock);',
    ];
    for (const text of allowed) expect(breaches([{ path: 'test/a.test.ts', text }])).toEqual({});
    const measuring = [
      'const delay = monitorEventLoopDelay({ resolution: 10 });',
      'const started = performance.now();',
      'expect(Date.now() - started).toBeGreaterThanOrEqual(190);',
      'const elapsedMs = Date.now() - started;',
      "it('exits within 10 s', async () => {});",
      "it.each(['a'])('answers %s within 100 ms', async () => {});",
    ];
    for (const text of measuring)
      expect(Object.keys(breaches([{ path: 'test/a.test.ts', text }])), text).toEqual([
        'test/a.test.ts',
      ]);
    expect(
      breaches([
        { path: 'test/b.serial.test.ts', text: '' },
        { path: 'test/c.test.ts', text: "vi.mock('../../lib/password.js');" },
        { path: 'test/d.test.ts', text: 'const postgres = await startPostgres();' },
        { path: 'test/e.isolated.test.ts', text: "vi.mock('../../lib/password.js');" },
        { path: 'test/f.isolated.test.ts', text: 'const redis = await startRedis();' },
      ]),
    ).toEqual({
      'test/b.serial.test.ts': ['is named *.serial.test.ts: no group runs such files any more'],
      'test/c.test.ts': ['replaces a module: name it *.isolated.test.ts'],
      'test/d.test.ts': ['starts a cluster or load of its own: name it *.isolated.test.ts'],
    });
  });
});
