import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

async function run(file: string, args: string[], cwd: string) {
  try {
    return await exec(file, args, { cwd, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

const lines = (text: string) => text.split('\n').filter(Boolean);

/** The selectors of the README's `pnpm --filter "<selector>" build` commands. */
const selectors = [
  ...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/^pnpm --filter "([^"]+)" build$/gm),
].map((m) => m[1] as string);

/** The packages (their folders, relative to the root) a selector builds, as pnpm selects them. */
async function selected(selector: string): Promise<string[]> {
  const { stdout } = await run(
    'pnpm',
    ['list', '--filter', selector, '--depth', '-1', '--json'],
    ROOT,
  );
  return (JSON.parse(stdout) as { path: string }[]).map((p) => relative(ROOT, p.path));
}

/** Files under the package's src/ that git ignores: a fresh clone lacks them. */
async function ignoredSources(dir: string): Promise<string[]> {
  const { stdout } = await run(
    'git',
    ['ls-files', '--others', '--ignored', '--exclude-standard', '--', `${dir}/src`],
    ROOT,
  );
  return lines(stdout);
}

/**
 * A copy of the root where `dir` holds only what a clone has (tracked files, and new ones not
 * ignored), with its installed node_modules; everything else is a link to the real one.
 */
async function cloneLike(dir: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'secadmin-fresh-build-'));
  let real = ROOT;
  let copy = root;
  for (const segment of dir.split(sep)) {
    for (const entry of await readdir(real))
      if (entry !== segment) await symlink(join(real, entry), join(copy, entry));
    real = join(real, segment);
    copy = join(copy, segment);
    await mkdir(copy);
  }
  const { stdout } = await run(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', dir],
    ROOT,
  );
  for (const file of lines(stdout)) {
    if (!existsSync(join(ROOT, file))) continue; // deleted, not yet committed
    await mkdir(dirname(join(root, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(root, file));
  }
  await symlink(join(ROOT, dir, 'node_modules'), join(root, dir, 'node_modules'));
  return root;
}

it('finds the README’s build commands', () => {
  expect(selectors).toContain('@secadmin/api-client...');
});

const copies: string[] = [];
afterAll(async () => {
  for (const copy of copies) await rm(copy, { recursive: true, force: true });
});

describe.each(selectors)(
  'the README’s `pnpm --filter "%s" build`, from a fresh clone',
  (selector) => {
    // A package without ignored sources builds from a clone as it does here; one with them must
    // write them in its own build script, since `pnpm --filter` runs no turbo `generate` task.
    it('builds each selected package whose sources git ignores with its build script alone', async () => {
      const packages = await selected(selector);
      expect(packages.length).toBeGreaterThan(0);
      for (const dir of packages) {
        const ignored = await ignoredSources(dir);
        if (ignored.length === 0) continue;
        const copy = await cloneLike(dir);
        copies.push(copy);
        for (const file of ignored) expect(existsSync(join(copy, file))).toBe(false);
        // npm, not pnpm: pnpm would first check (and repair) the copy's install.
        await run('npm', ['run', 'build'], join(copy, dir));
        for (const file of ignored) expect(existsSync(join(copy, file)), file).toBe(true);
      }
    });
  },
);
