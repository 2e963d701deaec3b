import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROGRAM = fileURLToPath(new URL('../consumer/program.ts', import.meta.url));
const PACKAGES = ['api-types', 'log-chain', 'api-client'];
const installed = (path: string) =>
  fileURLToPath(new URL(`../node_modules/${path}`, import.meta.url));
const TYPES_NODE = JSON.parse(readFileSync(installed('@types/node/package.json'), 'utf8')).version;

let work: string;
const tarballs = new Map<string, string>();
let server: { url: string; apiKey: string; child: ChildProcess };

/** Runs a command; on failure, the error carries its output. */
async function run(file: string, args: string[], options: { cwd?: string; env?: object } = {}) {
  try {
    return await exec(file, args, {
      cwd: options.cwd ?? work,
      env: { ...process.env, ...options.env },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

async function pack(name: string): Promise<void> {
  const { stdout } = await run('pnpm', ['pack', '--pack-destination', work, '--json'], {
    cwd: join(ROOT, 'packages', name),
  });
  tarballs.set(name, (JSON.parse(stdout) as { filename: string }).filename);
}

/** A fresh project as `npm init -y` makes it (CommonJS): the program, its tsconfigs, the tarballs installed. */
async function createConsumer(): Promise<void> {
  await writeFile(
    join(work, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'commonjs' }),
  );
  for (const file of ['esm.mts', 'cjs.cts', 'bundler.ts'])
    await copyFile(PROGRAM, join(work, file));
  const strict = { strict: true, skipLibCheck: false, target: 'es2022', types: ['node'] };
  await writeFile(
    join(work, 'tsconfig.nodenext.json'),
    JSON.stringify({
      compilerOptions: { ...strict, module: 'nodenext', outDir: 'out', rootDir: '.' },
      files: ['esm.mts', 'cjs.cts'],
    }),
  );
  await writeFile(
    join(work, 'tsconfig.bundler.json'),
    JSON.stringify({
      // The declaration files were checked under nodenext; here only resolution and the program.
      compilerOptions: {
        ...strict,
        skipLibCheck: true,
        module: 'preserve',
        moduleResolution: 'bundler',
        noEmit: true,
      },
      files: ['bundler.ts'],
    }),
  );
  await run('npm', [
    'install',
    '--no-audit',
    '--no-fund',
    '--prefer-offline',
    ...tarballs.values(),
    `@types/node@${TYPES_NODE}`,
  ]);
}

/** The built server (apps/server/dist/main.js) on a fresh embedded database and a port the OS picks. */
async function startServer(): Promise<typeof server> {
  const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const apiKey = `sk_${Array.from({ length: 40 }, () => base62[randomInt(62)]).join('')}`;
  const child = spawn(process.execPath, [join(ROOT, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
      // Every server of a test run would otherwise bind the metrics port 9464.
      SECADMIN_METRICS_PORT: '0',
      SECADMIN_DATA_DIR: join(work, 'server-data'),
      SECADMIN_ADMIN_API_KEY: apiKey,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const started = Date.now();
  for (;;) {
    const line = output.split('\n').find((l) => l.includes('"secadmin listening"'));
    const url = line && (JSON.parse(line) as { url: string }).url.replace('localhost', '127.0.0.1');
    if (
      url &&
      (await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      return { url, apiKey, child };
    if (child.exitCode !== null) throw new Error(`the server exited:\n${output}`);
    // A deadline, not a wait: an embedded server's first start (WASM, migrations) competes with
    // every other package's tests for two cores.
    if (Date.now() - started > 150_000) throw new Error(`the server did not get ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'secadmin-consumer-'));
  // As root, the embedded PostgreSQL's user must pass through it to keep the server's cluster in
  // its data dir, removed with it (else the cluster would live under /var/lib/secadmin).
  await chmod(work, 0o711);
  // The server's start (a fresh embedded database) overlaps packing and installing.
  const starting = startServer();
  starting.catch(() => {});
  await Promise.all(PACKAGES.map(pack));
  await createConsumer();
  server = await starting;
});

afterAll(async () => {
  if (server?.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  }
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each(PACKAGES)('the packed @secadmin/%s', (name) => {
  it('has no problem publint finds', async () => {
    const { stdout } = await run(installed('.bin/publint'), [
      'run',
      '--strict',
      tarballs.get(name) ?? '',
    ]);
    expect(stdout).toContain('All good!');
  });

  it('has no problem attw finds, under node10, node16 from CJS and ESM, and bundler', async () => {
    const { stdout } = await run(installed('.bin/attw'), [tarballs.get(name) ?? '']);
    expect(stdout).toContain('No problems found');
  });
});

describe('a strict program in a fresh CommonJS project, on the installed tarballs', () => {
  it('type-checks under module nodenext, as ESM (.mts) and as CommonJS (.cts)', async () => {
    await run(installed('.bin/tsc'), ['-p', 'tsconfig.nodenext.json']);
  });

  it('type-checks under moduleResolution bundler', async () => {
    await run(installed('.bin/tsc'), ['-p', 'tsconfig.bundler.json']);
  });

  it.each(['esm.mjs', 'cjs.cjs'])('runs as out/%s against a live server', async (file) => {
    const env = { SECADMIN_URL: server.url, SECADMIN_API_KEY: server.apiKey };
    const { stdout } = await run(process.execPath, [join('out', file)], { env });
    expect(stdout).toContain('consumer program: ok');
  });
});
