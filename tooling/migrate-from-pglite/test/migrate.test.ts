import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import {
  applyMigrations,
  clusterHomeOf,
  loadMigrations,
  removeClusterHome,
  startEmbeddedPostgres,
} from '@secadmin/db';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { pgliteSide, postgresSide } from '../src/sides.js';
import { type CopySide, copyPartitions, copySequences, quote } from '../src/tables.js';

const run = promisify(execFile);
const SERVER = fileURLToPath(new URL('../../../apps/server/dist/main.js', import.meta.url));
const TOOL = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

// 0700: as root, the embedded server's user cannot reach the data dirs in it, whose clusters are
// then kept under /var/lib/secadmin (the tool must move the one it builds there too).
const root = await mkdtemp(join(tmpdir(), 'secadmin-pglite-'));
afterAll(async () => {
  for (const name of await readdir(root)) await removeClusterHome(join(root, name));
  await rm(root, { recursive: true, force: true });
});

interface Server {
  url: string;
  key: string;
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** The built server on the embedded database of `dataDir`; resolves once /readyz answers. */
async function startServer(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      SECADMIN_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      SECADMIN_METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c) => {
    output += c;
  });
  child.stderr?.on('data', (c) => {
    output += c;
  });
  const exited = once(child, 'exit');
  for (;;) {
    const url = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
    if (
      url &&
      (await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      const key = (await readFile(join(dataDir, 'root-api-key'), 'utf8')).trim();
      return {
        url,
        key,
        child,
        output: () => output,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(server: Server, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: unknown };
  if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data as never;
}

/** The migrations PGlite data dirs were made with: the newer ones came after it was removed. */
const PGLITE_ERA_LAST = '20261127120000_log_entry_counts';

/**
 * The rows of `from`'s tables into the same tables of `to`, in the columns both have: the
 * source is at the current schema, the PGlite database at an older one.
 */
async function copyCommonRows(from: CopySide, to: CopySide): Promise<void> {
  const tables = `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'`;
  const columns = `SELECT attname AS name FROM pg_attribute
    WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''`;
  const names = async (side: CopySide, sql: string, params?: unknown[]) =>
    (await side.query<{ name: string }>(sql, params)).map((r) => r.name);
  const theirTables = new Set(await names(to, tables));
  for (const table of await names(from, tables)) {
    if (!theirTables.has(table)) continue;
    const theirs = new Set(await names(to, columns, [`public.${quote(table)}`]));
    const shared = (await names(from, columns, [`public.${quote(table)}`])).filter((c) =>
      theirs.has(c),
    );
    const rows = await from.copyOut(
      `SELECT ${shared.map(quote).join(', ')} FROM ONLY ${quote(table)}`,
    );
    await to.query(`DELETE FROM ONLY ${quote(table)}`);
    await to.copyIn(table, shared, rows);
  }
}

/**
 * A data dir as the PGlite era left it: its database in `<dir>/db`, made by PGlite with the
 * migrations of that era (so the tool has newer ones to apply), holding the rows the server
 * wrote into `source` (its embedded PostgreSQL), and the source's secrets.
 */
async function pgliteDataDir(source: string, dir: string): Promise<void> {
  await mkdir(dir, { mode: 0o700 });
  for (const file of ['root-api-key', 'secret', 'signing-key.pem'])
    await cp(join(source, file), join(dir, file));
  const pglite = await PGlite.create(join(dir, 'db'));
  const server = await startEmbeddedPostgres(source, quiet);
  const client = new pg.Client({ connectionString: server.url });
  try {
    await client.connect();
    const migrations = await loadMigrations();
    await applyMigrations(
      {
        query: async <T>(sql: string, params?: unknown[]) =>
          (await pglite.query<T>(sql, params)).rows,
        exec: async (sql) => void (await pglite.exec(sql)),
      },
      migrations.slice(0, migrations.findIndex((m) => m.name === PGLITE_ERA_LAST) + 1),
    );
    // The era's chain rows say whether statistics counted them; the current schema dropped it.
    await pglite.query('ALTER TABLE log_chain ALTER COLUMN counted SET DEFAULT true');
    await pglite.query('BEGIN');
    const from = postgresSide(client);
    const to = pgliteSide(pglite);
    await copyPartitions(from, to);
    await copyCommonRows(from, to);
    await copySequences(from, to);
    await pglite.query('COMMIT');
  } finally {
    await client.end();
    await server.stop();
    await pglite.close();
  }
}

it('moves a PGlite data dir to the embedded PostgreSQL: the rows as they were, a chain that verifies, the old files kept aside', async () => {
  // Rows the server wrote itself: users, a policy, 1,100 entries sealed with two checkpoints.
  const source = join(root, 'source');
  let server = await startServer(source);
  const users: { id: string }[] = [];
  for (let i = 0; i < 3; i++)
    users.push(await call(server, '/v1/users', { email: `u${i}@example.com`, name: `User ${i}` }));
  const policy: { id: string } = await call(server, '/v1/policies', {
    name: 'readers',
    effect: 'allow',
    principals: ['*'],
    actions: ['users:read'],
    resources: ['users'],
  });
  for (let batch = 0; batch < 11; batch++)
    await call(server, '/v1/logs', {
      entries: Array.from({ length: 100 }, (_, i) => ({
        event: 'user.login',
        actor: { id: `user_${batch}_${i}`, type: 'user' },
        result: 'success',
        metadata: { n: batch * 100 + i, at: '2026-01-01T00:00:00.123456Z' },
      })),
    });
  let checkpoints: { seq: number }[] = [];
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    checkpoints = await call(server, '/v1/logs/checkpoints');
    if (checkpoints.some((c) => c.seq >= 1_000)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(checkpoints.some((c) => c.seq >= 1_000)).toBe(true);
  // Every entry sealed (the 1,100 and the creations of the users and the policy) before the copy.
  const written = 1_100 + users.length + 1;
  let before: { valid: boolean; checkedEntries: number } = { valid: false, checkedEntries: 0 };
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; ) {
    before = await call(server, '/v1/logs/verify', {});
    if (before.checkedEntries >= written) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(before).toMatchObject({ valid: true, checkedEntries: written });
  await server.stop();

  const dataDir = join(root, 'data');
  await pgliteDataDir(source, dataDir);

  // The service refuses it, naming the command.
  const refused = await startServer(dataDir).catch((error: Error) => error);
  expect((refused as Error).message).toContain(`pnpm db:migrate-from-pglite --data-dir ${dataDir}`);

  const { stdout } = await run(process.execPath, [TOOL, '--data-dir', dataDir]);
  const newer = (await loadMigrations())
    .map((m) => m.name)
    .filter((name) => name > PGLITE_ERA_LAST);
  expect(stdout).toContain(`newer migrations applied: ${newer.join(', ')}`);
  const cluster =
    process.getuid?.() === 0
      ? join(await clusterHomeOf(dataDir), 'postgres')
      : join(dataDir, 'postgres');
  expect(stdout).toContain(`in the cluster ${cluster};`);
  expect((await readdir(dataDir)).sort()).toEqual(
    [
      'db.pglite',
      'postgres',
      'postgres-password',
      'root-api-key',
      'secret',
      'signing-key.pem',
    ].sort(),
  );

  server = await startServer(dataDir);
  try {
    const listed: { id: string }[] = await call(server, '/v1/users?limit=10');
    expect(listed.map((u) => u.id).sort()).toEqual(users.map((u) => u.id).sort());
    expect(((await call(server, `/v1/policies/${policy.id}`)) as { name: string }).name).toBe(
      'readers',
    );
    const after: { valid: boolean; checkedEntries: number } = await call(
      server,
      '/v1/logs/verify',
      {},
    );
    expect(after).toMatchObject({ valid: true, checkedEntries: before.checkedEntries });
    // The copied checkpoints as they were; the restarted server may sign the entries after them.
    const newest = Math.max(...checkpoints.map((c) => c.seq));
    const kept: { seq: number }[] = await call(server, '/v1/logs/checkpoints');
    expect(kept.filter((c) => c.seq <= newest)).toEqual(checkpoints);
    // The sequences follow the copied rows: a new entry gets the next seq and still verifies.
    await call(server, '/v1/logs', {
      entries: [
        { event: 'after.migration', actor: { id: 'ops', type: 'user' }, result: 'success' },
      ],
    });
    await call(server, '/v1/users', { email: 'new@example.com', name: 'New' });
  } finally {
    await server.stop();
  }
});
