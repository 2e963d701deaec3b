import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ClickHouseClient,
  ClickHouseError,
  ClickHouseLogLevel,
  createClient,
} from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickHouseHttp, startClickHouseHttp } from '../src/index.js';

/** Whether `pid` runs: a zombie (ended, not yet reaped by its parent) does not. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
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

/** Waits until `check` holds, with a deadline only against a hang. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not: ${what}`);
    await sleep(50);
  }
}

/**
 * Waits until the server's process has ended and its port is closed (a killed process's
 * threads close its files after its main thread shows as a zombie).
 */
function gone({ pid, url }: ClickHouseHttp): Promise<void> {
  return until(`${pid} gone`, async () => !running(pid) && (await refused(url)));
}

/** The client's rejection, with ClickHouse's code and error name. */
async function rejection(promise: Promise<unknown>): Promise<ClickHouseError> {
  const error = await promise.then(
    () => expect.unreachable('resolved'),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(ClickHouseError);
  return error as ClickHouseError;
}

// The client logs each failed request; the tests expect some.
const silent = { log: { level: ClickHouseLogLevel.OFF } };

describe('a ClickHouse HTTP interface on chdb, through @clickhouse/client', () => {
  let server: ClickHouseHttp;
  let client: ClickHouseClient;
  beforeAll(async () => {
    server = await startClickHouseHttp();
    client = createClient({ url: server.url, ...silent });
    await client.command({ query: 'CREATE DATABASE audit' });
    await client.command({
      query: `CREATE TABLE audit.entries (id String, n UInt64, tags Array(String), day Date)
              ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY id`,
    });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  it('answers ping, and a request only with its password', async () => {
    expect(await client.ping()).toEqual({ success: true });
    expect(await client.ping({ select: true })).toEqual({ success: true });

    const wrong = createClient({ url: server.url.replace(/:[^:@]+@/, ':wrong@'), ...silent });
    try {
      // As ClickHouse's /ping, which asks for no credentials; a query does.
      expect(await wrong.ping()).toEqual({ success: true });
      const error = await rejection(wrong.query({ query: 'SELECT 1' }));
      expect(error).toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
      expect(error.message).toMatch(/^default: Authentication failed/);
    } finally {
      await wrong.close();
    }

    const anonymous = await fetch(`http://${new URL(server.url).host}/?query=SELECT%201`);
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers.get('x-clickhouse-exception-code')).toBe('516');
    expect(await anonymous.text()).toMatch(
      /^Code: 516\. DB::Exception: default: Authentication failed/,
    );
  });

  it('inserts JSONEachRow rows and binds query parameters in the engine', async () => {
    const rows = [
      { id: "it's \\ a\ttab", n: 1, tags: ["o'clock", 'plain'], day: '2024-01-05' },
      { id: 'b', n: 2, tags: [], day: '2024-02-05' },
      { id: 'c', n: 3, tags: ['back\\slash'], day: '2024-02-06' },
    ];
    await client.insert({ table: 'audit.entries', values: rows, format: 'JSONEachRow' });

    const query = `SELECT id, n, tags FROM audit.entries
                   WHERE id = {id:String} OR n = {n:UInt64} OR hasAny(tags, {tags:Array(String)})
                   ORDER BY n`;
    const query_params = { id: rows[0]?.id, n: 2, tags: ['back\\slash', 'none'] };
    const eachRow = await client.query({ query, query_params, format: 'JSONEachRow' });
    expect(await eachRow.json()).toEqual(rows.map(({ id, n, tags }) => ({ id, n, tags })));

    const json = await client.query({
      query: 'SELECT count() AS c FROM audit.entries WHERE hasAny(tags, {tags:Array(String)})',
      query_params: { tags: ["o'clock"] },
      format: 'JSON',
    });
    expect(await json.json()).toMatchObject({
      meta: [{ name: 'c', type: 'UInt64' }],
      data: [{ c: 1 }],
      rows: 1,
    });

    const compact = await client.query({
      query: 'SELECT id, n FROM audit.entries WHERE n > {n:UInt64} ORDER BY n',
      query_params: { n: 1 },
      format: 'JSONCompactEachRow',
    });
    expect(await compact.json()).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
  });

  it("uses the URL's database and settings for one request only", async () => {
    const inAudit = createClient({
      url: `${server.url}/audit`,
      clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
      ...silent,
    });
    try {
      const result = await inAudit.query({
        query: 'SELECT currentDatabase() AS db, toUInt64(7) AS big',
        format: 'JSONEachRow',
      });
      expect(await result.json()).toEqual([{ db: 'audit', big: '7' }]);
      // A request's own SET and USE end with it, as without a ClickHouse session.
      await inAudit.command({ query: 'USE system' });
      const after = await inAudit.query({ query: 'SELECT currentDatabase() AS db' });
      expect(await after.json()).toMatchObject({ data: [{ db: 'audit' }] });
    } finally {
      await inAudit.close();
    }

    const elsewhere = await client.query({
      query: 'SELECT currentDatabase() AS db, toUInt64(7) AS big',
      format: 'JSONEachRow',
    });
    expect(await elsewhere.json()).toEqual([{ db: 'default', big: 7 }]);

    const unknown = await rejection(
      client.query({ query: 'SELECT 1', clickhouse_settings: { no_such_setting: 1 } as never }),
    );
    expect(unknown).toMatchObject({ code: '115', type: 'UNKNOWN_SETTING' });
  });

  it("rejects a failing statement with ClickHouse's code and message", async () => {
    const unknownTable = await rejection(client.query({ query: 'SELECT * FROM audit.nothing' }));
    expect(unknownTable).toMatchObject({ code: '60', type: 'UNKNOWN_TABLE' });
    expect(unknownTable.message).toContain('audit.nothing');

    const syntax = await rejection(client.command({ query: 'SELEKT 1' }));
    expect(syntax).toMatchObject({ code: '62', type: 'SYNTAX_ERROR' });

    const badRow = await rejection(
      client.insert({
        table: 'audit.entries',
        values: [{ id: 'x', n: 'not a number' }],
        format: 'JSONEachRow',
      }),
    );
    expect(badRow.type).toMatch(/^CANNOT_PARSE/);
  });

  it('answers concurrent requests', async () => {
    await client.command({ query: 'CREATE TABLE audit.burst (i UInt32) ENGINE = Memory' });
    const writes = Array.from({ length: 20 }, (_, i) =>
      client.insert({ table: 'audit.burst', values: [{ i }], format: 'JSONEachRow' }),
    );
    const reads = Array.from({ length: 20 }, () =>
      client.query({ query: 'SELECT count() AS c FROM audit.burst', format: 'JSONEachRow' }),
    );
    await Promise.all([...writes, ...reads.map(async (read) => (await read).json())]);
    const count = await client.query({ query: 'SELECT count() AS c FROM audit.burst' });
    expect(await count.json()).toMatchObject({ data: [{ c: 20 }] });
  });

  it('streams exec results in the format the statement names', async () => {
    const result = await client.exec({
      query: 'SELECT id FROM audit.entries ORDER BY id FORMAT TSV',
    });
    let text = '';
    for await (const chunk of result.stream) text += chunk;
    expect(text.split('\n')).toContain('b');
    expect(result.summary).toMatchObject({ result_rows: '3' });
  });

  it('runs a lightweight delete, drops a partition and exchanges tables', async () => {
    await client.command({ query: 'CREATE TABLE audit.twin AS audit.entries' });
    await client.insert({
      table: 'audit.twin',
      values: [{ id: 'twin', n: 9, tags: [], day: '2024-03-01' }],
      format: 'JSONEachRow',
    });
    await client.command({ query: "DELETE FROM audit.entries WHERE id = 'c'" });
    await client.command({ query: 'ALTER TABLE audit.entries DROP PARTITION 202401' });
    const ids = async (table: string) =>
      (await (await client.query({ query: `SELECT id FROM audit.${table} ORDER BY id` })).json())
        .data;
    expect(await ids('entries')).toEqual([{ id: 'b' }]);

    await client.command({ query: 'EXCHANGE TABLES audit.entries AND audit.twin' });
    expect(await ids('entries')).toEqual([{ id: 'twin' }]);
    expect(await ids('twin')).toEqual([{ id: 'b' }]);
  });
});

describe("the server's process", () => {
  it('loses its data when killed, and a new server starts empty; stop() ends its process', async () => {
    const killed = await startClickHouseHttp();
    const before = createClient({ url: killed.url, ...silent });
    await before.command({ query: 'CREATE TABLE kept (v String) ENGINE = MergeTree ORDER BY v' });
    await before.close();
    killed.kill9();
    await gone(killed);

    const fresh = await startClickHouseHttp({ user: 'tester', password: 'p@ss:word' });
    const after = createClient({ url: fresh.url, ...silent });
    try {
      const tables = await after.query({
        query: "SELECT name FROM system.tables WHERE database = 'default'",
      });
      expect((await tables.json()).data).toEqual([]);
    } finally {
      await after.close();
      await fresh.stop();
    }
    expect(running(fresh.pid)).toBe(false);
    expect(await refused(fresh.url)).toBe(true);
  });

  it('ends when the process that started it is killed', async () => {
    const dist = new URL('../dist/index.js', import.meta.url).href;
    const parent = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startClickHouseHttp } from ${JSON.stringify(dist)};
         const server = await startClickHouseHttp();
         console.log(JSON.stringify(server));
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [line] = await once(parent.stdout as NodeJS.ReadableStream, 'data');
    const server = JSON.parse(String(line)) as ClickHouseHttp;
    expect(running(server.pid)).toBe(true);
    expect(await refused(server.url)).toBe(false);

    const exited = once(parent, 'exit');
    parent.kill('SIGKILL');
    await exited;
    await gone(server);
  });
});
