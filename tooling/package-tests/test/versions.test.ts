import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

/** Every package of the workspace that is published: not `private`. */
const published = readdirSync(join(ROOT, 'packages'))
  .map(
    (dir) =>
      read(`packages/${dir}/package.json`) as { name: string; version: string; private?: boolean },
  )
  .filter((manifest) => !manifest.private);

it('publishes its packages at one version, kept together by changesets', () => {
  expect(published.map(({ name }) => name).sort()).toEqual([
    '@secadmin/api-client',
    '@secadmin/api-types',
    '@secadmin/cli',
    '@secadmin/log-chain',
  ]);
  expect(new Set(published.map(({ version }) => version)).size).toBe(1);
  const { fixed } = read('.changeset/config.json') as { fixed: string[][] };
  expect(fixed.map((group) => [...group].sort())).toContainEqual(
    published.map(({ name }) => name).sort(),
  );
});
