import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyFingerprint } from '@secadmin/log-chain';
import { createScratchDatabase, type ScratchDatabase } from '@secadmin/test-infra';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerStreamCommands } from '../src/commands/streams.js';
import { API_KEY, runCli, type ServerProcess, startServer } from './helpers/processes.js';
import { killReceivers, type Receiving, startReceive } from './helpers/receive-process.js';

// The management commands and `streams receive` against the real server, which delivers to
// the receiver on 127.0.0.1 (allowed by SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS).

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'secadmin-streams-'));
});
afterAll(async () => {
  killReceivers();
  await rm(scratch, { recursive: true, force: true });
});

/** A port free right now, for a receiver whose URL the stream must know before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

async function until<T>(what: string, read: () => T | undefined | Promise<T | undefined>) {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() - started > 60_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Printed {
  kind: 'message' | 'entry';
  status?: string;
  toSeq?: number;
  entry?: { seq: number; event: string };
}
const printed = (receiver: Receiving): Printed[] =>
  receiver
    .stdout()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Printed);
const receivedThrough = (receiver: Receiving) =>
  Math.max(0, ...printed(receiver).map((line) => line.entry?.seq ?? 0));

// One server, on a database of its own, for the file's blocks.
let server: ServerProcess;
let database: ScratchDatabase;
beforeAll(async () => {
  database = await createScratchDatabase(inject('postgresUrl'), 'secadmin_streams');
  server = await startServer(await mkdtemp(join(scratch, 'server-')), database.url, {
    SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS: '1',
    SECADMIN_STREAM_RETRY_BASE_MS: '100',
    SECADMIN_STREAM_RETRY_MAX_MS: '400',
    SECADMIN_STREAM_POLL_MS: '50',
  });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await database?.drop();
});

describe('secadmin streams against a server', () => {
  const cli = (...args: string[]) => runCli(server.url, args);
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await response.json()) as { data: Record<string, unknown> };
  };
  const ingest = (count: number) =>
    api('POST', '/v1/logs', {
      entries: Array.from({ length: count }, (_, i) => ({
        event: i % 2 ? 'policy.created' : 'user.login',
        actor: { type: 'user', id: `u${i}` },
        result: 'success',
      })),
    });
  /** The seq of the newest sealed entry. */
  const head = () =>
    until('the entries to be sealed', async () => {
      const { data } = await api('POST', '/v1/logs/verify', {});
      const checked = data.checkedEntries as number;
      return checked > 0 ? checked : undefined;
    });

  it('creates a stream whose every entry the receiver verifies, in order and once, across a receiver outage, pause, resume, test and replay; list and status', async () => {
    await ingest(6);
    const port = await freePort();
    const created = await cli(
      'streams',
      'create',
      '--json',
      '--name',
      'siem',
      '--destination',
      `http://127.0.0.1:${port}/hook`,
      '--start-at',
      'earliest',
      '--batch-size',
      '4',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const stream = JSON.parse(created.stdout) as { id: string; secret: string; status: string };
    expect(stream).toMatchObject({ status: 'active', secret: expect.stringMatching(/^whsec_/) });

    const { data: key } = await api('GET', '/v1/logs/public-key');
    const fingerprint = await keyFingerprint(key.publicKey as string);
    const state = join(scratch, 'receiver.json');
    const startReceiver = () =>
      startReceive(
        [
          ...['--port', String(port), '--public-key', fingerprint, '--from-seq', '1'],
          ...['--stream', stream.id, '--state', state, '--json'],
        ],
        {
          SECADMIN_STREAM_SECRET: stream.secret,
          SECADMIN_URL: server.url,
          SECADMIN_API_KEY: API_KEY,
        },
      );
    const outage = await startReceiver();
    expect(outage.stderr()).toContain(`pinned key ${fingerprint}`);
    const first = await head();
    await until('the first entries', () => (receivedThrough(outage) >= first ? true : undefined));

    // The receiver is down while entries arrive: the server keeps failing until it is back.
    expect(await outage.stop()).toBe(0);
    await ingest(4);
    await until('a failed delivery', async () => {
      const { data } = await api('GET', `/v1/log-streams/${stream.id}`);
      return (data.consecutiveFailures as number) > 0 ? true : undefined;
    });
    const receiver = await startReceiver();
    const afterOutage = await head();
    await until('the entries written during the outage', () =>
      receivedThrough(receiver) >= afterOutage ? true : undefined,
    );

    expect((await cli('streams', 'pause', stream.id)).stdout).toBe(`${stream.id} is paused\n`);
    const status = JSON.parse((await cli('streams', 'status', stream.id, '--json')).stdout);
    expect(status).toMatchObject({
      id: stream.id,
      status: 'paused',
      lagEntries: expect.any(Number),
    });
    expect(status.deliveries[0]).toMatchObject({ attempt: expect.any(Number), httpStatus: 200 });
    expect(JSON.stringify(status)).not.toContain(stream.secret);

    await ingest(5);
    expect((await cli('streams', 'resume', stream.id)).stdout).toBe(`${stream.id} is active\n`);
    const second = await head();
    await until('the entries written while paused', () =>
      receivedThrough(receiver) >= second ? true : undefined,
    );

    const test = await cli('streams', 'test', stream.id);
    expect(test.stdout).toMatch(/^delivered: HTTP 200 in \d+ ms\n$/);
    expect(printed(receiver).some((line) => line.status === 'test')).toBe(true);

    const replay = await cli('streams', 'replay', stream.id, '--from-seq', '2');
    expect(replay.stdout).toBe(`${stream.id} goes on from seq 2 (active)\n`);
    await until('the replay', () =>
      printed(receiver).some((line) => line.status === 'duplicate') ? true : undefined,
    );

    const list = JSON.parse((await cli('streams', 'list', '--json')).stdout) as { id: string }[];
    expect(list.map((s) => s.id)).toContain(stream.id);
    expect((await cli('streams', 'list')).stdout).toMatch(/^ID +NAME +TYPE +URL +STATUS/);

    expect(await receiver.stop()).toBe(0);
    const lines = [...printed(outage), ...printed(receiver)];
    expect(lines.filter((line) => line.status === 'invalid')).toEqual([]);
    // Every seq from 1, each printed once, in order: the whole log, nothing twice.
    const seqs = lines.flatMap((line) => (line.entry ? [line.entry.seq] : []));
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(seqs.length).toBeGreaterThanOrEqual(second);
  });

  it('reports what the server refuses, naming it, without a secret', async () => {
    const missing = await cli('streams', 'status', 'lst_01kb0000000000000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^secadmin: 404 not_found/);
    const created = await cli(
      'streams',
      'create',
      '--name',
      'other',
      '--destination',
      'http://127.0.0.1:9/a',
    );
    expect(created.code).toBe(0);
    const again = await cli(
      'streams',
      'create',
      '--name',
      'other',
      '--destination',
      'http://127.0.0.1:9/a',
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^secadmin: 409 /);
    const bad = await cli(
      'streams',
      'create',
      '--name',
      'x',
      '--destination',
      'ftp://example.com/',
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('destination.url');
    expect(created.stdout).toMatch(/secret \(shown once\): whsec_/);
    const secret = /whsec_\S+/.exec(created.stdout)?.[0] as string;
    expect((await cli('streams', 'list', '--json')).stdout).not.toContain(secret);
  });
});

describe('secadmin streams options', () => {
  it('refuses a bad option or value with exit 64, naming it, before any request', async () => {
    // No server: a usage error is found before the first request.
    const usage = async (args: string[], text: string) => {
      const run = await runCli('http://127.0.0.1:9', ['streams', ...args], {
        SECADMIN_SPLUNK_TOKEN: '',
      });
      expect(run.code).toBe(64);
      expect(run.stderr).toContain(text);
    };
    const create = ['create', '--name', 'n', '--destination', 'https://siem.example.com/'];
    await Promise.all([
      usage(['create', '--name', 'n'], "required option '--destination <url>' not specified"),
      usage([...create, '--type', 'syslog'], "option '--type <type>' argument 'syslog' is invalid"),
      usage([...create, '--type', 'splunk_hec'], '--type splunk_hec needs --token'),
      usage(
        [...create, '--token', 't'],
        '--token, --index and --sourcetype go with --type splunk_hec',
      ),
      usage(
        [...create, '--start-at', 'yesterday'],
        "option '--start-at <where>' argument 'yesterday'",
      ),
      usage([...create, '--batch-size', '1.5'], "option '--batch-size <n>' argument '1.5'"),
      usage([...create, '--origin', 'elsewhere'], "option '--origin <origin>'"),
      usage([...create, '--result', 'maybe'], "option '--result <result>'"),
      usage(['pause'], "missing required argument 'id'"),
      usage(['replay', 'lst_x'], "required option '--from-seq <n>' not specified"),
      usage(['replay', 'lst_x', '--from-seq', '-1'], "option '--from-seq <n>'"),
      usage(['status', 'lst_x', '--deliveries', 'all'], "option '--deliveries <n>'"),
      usage(['list', '--bogus'], "unknown option '--bogus'"),
      usage(['nonsense'], "unknown command 'nonsense'"),
    ]);
  });

  it('has help for every command and option', async () => {
    const program = new Command('secadmin');
    registerStreamCommands(program);
    const streams = program.commands[0] as Command;
    expect(streams.commands.map((command) => command.name()).sort()).toEqual([
      'create',
      'list',
      'pause',
      'receive',
      'replay',
      'resume',
      'status',
      'test',
    ]);
    for (const command of [streams, ...streams.commands]) {
      expect(command.description(), command.name()).not.toBe('');
      for (const option of command.options)
        expect(option.description, `${command.name()} ${option.flags}`).not.toBe('');
      for (const argument of command.registeredArguments)
        expect(argument.description, `${command.name()} ${argument.name()}`).not.toBe('');
    }
    const help = await runCli('', ['streams', 'receive', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--public-key <key>');
  });
});
