import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { expect, it } from 'vitest';
import { startPostgres, startRedis } from '../src/index.js';

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

async function redis<T>(url: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url);
  try {
    return await use(client);
  } finally {
    client.disconnect();
  }
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

// Whatever TEST_DATABASE_URL and TEST_REDIS_URL say: this is the path of a machine without them.
it('starts a PostgreSQL and a redis-server of its own, which stop, refuse connections, and start again with their data', async () => {
  const [postgres, redisServer] = await Promise.all([startPostgres(), startRedis()]);
  try {
    await query(postgres.url, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before')`);
    await redis(redisServer.url, (client) => client.set('kept', 'before'));

    await Promise.all([postgres.stop(), redisServer.stop()]);
    expect(await refused(postgres.url)).toBe(true);
    expect(await refused(redisServer.url)).toBe(true);

    await Promise.all([postgres.start(), redisServer.start()]);
    expect(await query(postgres.url, 'SELECT v FROM kept')).toEqual([{ v: 'before' }]);
    expect(await redis(redisServer.url, (client) => client.get('kept'))).toBe('before');
  } finally {
    await Promise.all([postgres.remove(), redisServer.remove()]);
  }
  expect(await refused(postgres.url)).toBe(true);
  expect(await refused(redisServer.url)).toBe(true);
});

/** A process that starts both servers, prints their URLs, and waits to be signalled. */
async function startedElsewhere() {
  const dist = new URL('../dist/index.js', import.meta.url).href;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { startPostgres, startRedis } from ${JSON.stringify(dist)};
       const servers = await Promise.all([startPostgres(), startRedis()]);
       console.log(JSON.stringify(servers.map((s) => s.url)));
       setInterval(() => {}, 1000);`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = await once(child.stdout as NodeJS.ReadableStream, 'data');
  const urls = JSON.parse(String(line)) as string[];
  expect(await Promise.all(urls.map(refused))).toEqual([false, false]);
  return { child, urls };
}

it('stops both when the process that started them is interrupted', async () => {
  const { child, urls } = await startedElsewhere();
  const exited = once(child, 'exit');
  child.kill('SIGINT');
  expect(await exited).toEqual([null, 'SIGINT']);
  expect(await Promise.all(urls.map(refused))).toEqual([true, true]);
});

it('stops both when the process that started them is killed, which runs none of its handlers', async () => {
  const { child, urls } = await startedElsewhere();
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  expect(await exited).toEqual([null, 'SIGKILL']);
  // The watchdog acts once the pipe closes: wait for it, with a deadline only against a hang.
  const deadline = Date.now() + 30_000;
  while (!(await Promise.all(urls.map(refused))).every(Boolean)) {
    if (Date.now() > deadline) throw new Error(`still accepting connections: ${urls}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});
