import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/processes.js';
import { killReceivers, startReceive } from './helpers/receive-process.js';
import {
  chain,
  checkpointOf,
  message,
  publicKeyPem,
  SECRET,
  STREAM,
  signed,
} from './helpers/stream-messages.js';

let scratch: string;
let keyFile: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'secadmin-receive-'));
  keyFile = join(scratch, 'public.pem');
  await writeFile(keyFile, publicKeyPem);
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

afterAll(killReceivers);

/** `streams receive` on a port the system picks. */
const receive = (...args: string[]) => startReceive(['--port', '0', ...args]);

async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', body, headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const send = (url: string, { id, body }: { id: string; body: string }) =>
  post(url, body, signed(id, body));

const log = chain(12);
const range = (from: number, to: number) => log.slice(from - 1, to);

describe('secadmin streams receive', () => {
  it('verifies and prints each message and entry, takes a redelivery as a duplicate, answers 422 and prints INVALID on a gap, exits 3', async () => {
    const receiver = await receive('--secret', SECRET, '--public-key', keyFile, '--from-seq', '1');
    expect(receiver.stderr()).toContain('pinned key SHA256:');
    expect(await send(receiver.url, message(1, 3, range(1, 3)))).toEqual({
      status: 200,
      body: { status: 'verified' },
    });
    const second = message(4, 6, range(4, 6), checkpointOf(log[4] as (typeof log)[0]));
    expect((await send(receiver.url, second)).status).toBe(200);
    expect((await send(receiver.url, second)).body).toEqual({ status: 'duplicate' });
    const gap = await send(receiver.url, message(8, 9, range(8, 9)));
    expect(gap).toEqual({
      status: 422,
      body: { status: 'invalid', seq: 7, reason: 'seq 7–7 never arrived: the range starts at 8' },
    });
    // The sender's next try, from where the chain broke, is taken.
    expect((await send(receiver.url, message(7, 9, range(7, 9)))).status).toBe(200);
    expect(await receiver.stop()).toBe(3);
    const lines = receiver.stdout().trimEnd().split('\n');
    expect(lines).toEqual([
      `verified  range 1–3  3 entries  no checkpoint  no checkpoint covers them yet  msg_${STREAM}_1_3`,
      `  seq 1  ${log[0]?.timestamp}  user.login  user:u1@example.com  success  ${log[0]?.id}`,
      expect.stringMatching(/^ {2}seq 2 /),
      expect.stringMatching(/^ {2}seq 3 /),
      `verified  range 4–6  3 entries  checkpoint verified  covered through seq 5  msg_${STREAM}_4_6`,
      expect.stringMatching(/^ {2}seq 4 /),
      expect.stringMatching(/^ {2}seq 5 /),
      expect.stringMatching(/^ {2}seq 6 /),
      `duplicate  range 4–6  already held  msg_${STREAM}_4_6`,
      `INVALID at seq 7: seq 7–7 never arrived: the range starts at 8  msg_${STREAM}_8_9`,
      expect.stringMatching(/^verified {2}range 7–9 {2}3 entries /),
      expect.stringMatching(/^ {2}seq 7 /),
      expect.stringMatching(/^ {2}seq 8 /),
      expect.stringMatching(/^ {2}seq 9 /),
    ]);
    expect(receiver.stderr()).toContain('the stream broke at seq 7');
  });

  it('answers 401 and prints nothing for a forged signature, an old timestamp, another secret or no headers', async () => {
    const receiver = await receive('--secret', SECRET, '--public-key', keyFile);
    const { id, body } = message(1, 3, range(1, 3));
    const good = signed(id, body);
    const attempts: [Record<string, string>, string][] = [
      [
        { ...good, 'webhook-signature': `v1,${'A'.repeat(43)}=` },
        'no v1 signature in webhook-signature matches',
      ],
      [
        signed(id, body, [SECRET], Math.floor(Date.now() / 1000) - 3600),
        'webhook-timestamp is too old',
      ],
      [
        signed(id, body, [`whsec_${Buffer.alloc(32, 1).toString('base64')}`]),
        'no v1 signature in webhook-signature matches',
      ],
      [{ 'content-type': 'application/json' }, 'webhook-id is missing'],
      // Signed for one body, sent with another (an entry added in transit).
      [good, 'no v1 signature in webhook-signature matches'],
    ];
    for (const [i, [headers, reason]] of attempts.entries()) {
      const sent =
        i === attempts.length - 1 ? body.replace('u1@example.com', 'u9@example.com') : body;
      expect(await post(receiver.url, sent, headers)).toEqual({
        status: 401,
        body: { status: 'refused', reason },
      });
    }
    expect((await fetch(receiver.url)).status).toBe(405);
    expect(await receiver.stop()).toBe(0);
    expect(receiver.stdout()).toBe('');
    expect(receiver.stderr()).toContain('refused (401): webhook-timestamp is too old');
    expect(receiver.stderr()).not.toContain(SECRET.slice('whsec_'.length));
  });

  it('goes on while a sender stalls mid-body, and refuses a body declared too large with 413', async () => {
    const receiver = await receive('--secret', SECRET, '--public-key', keyFile);
    const { hostname, port } = new URL(receiver.url);
    const stalled = connect(Number(port), hostname);
    await once(stalled, 'connect');
    stalled.write(
      `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type":`,
    );
    expect((await send(receiver.url, message(1, 2, range(1, 2)))).status).toBe(200);
    stalled.destroy();
    const huge = connect(Number(port), hostname);
    await once(huge, 'connect');
    huge.write(`POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Length: ${2 ** 30}\r\n\r\n`);
    let answer = '';
    huge.on('data', (chunk) => {
      answer += chunk;
    });
    await once(huge, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(await receiver.stop()).toBe(0);
  });

  it('answers 422 for an altered entry and a forged checkpoint, even when the message is signed', async () => {
    const receiver = await receive('--secret', SECRET, '--public-key', keyFile, '--json');
    const altered = range(1, 3).map((entry) => structuredClone(entry));
    (altered[1] as (typeof altered)[0]).result = 'failure';
    expect(await send(receiver.url, message(1, 3, altered))).toMatchObject({
      status: 422,
      body: { seq: 2, reason: 'hash of seq 2 does not match its content' },
    });
    const forger = generateKeyPairSync('ed25519');
    const forged = message(
      1,
      3,
      range(1, 3),
      checkpointOf(log[2] as (typeof log)[0], forger.privateKey),
    );
    expect(await send(receiver.url, forged)).toMatchObject({
      status: 422,
      body: { seq: 3, reason: 'checkpoint 3 has an invalid signature' },
    });
    const notJson = 'not json';
    expect((await post(receiver.url, notJson, signed('msg_x', notJson))).status).toBe(400);
    expect(await receiver.stop()).toBe(3);
    const printed = receiver
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(printed).toEqual([
      expect.objectContaining({ kind: 'message', status: 'invalid', seq: 2 }),
      expect.objectContaining({ kind: 'message', status: 'invalid', seq: 3 }),
    ]);
  });

  it('prints JSON lines, accepts both signatures of a rotation and a test message, and exits 0 when nothing broke', async () => {
    const receiver = await receive(
      '--secret',
      SECRET,
      '--public-key',
      keyFile,
      '--json',
      '--stream',
      STREAM,
    );
    const next = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
    const first = message(1, 2, range(1, 2), checkpointOf(log[1] as (typeof log)[0]));
    expect(
      (await post(receiver.url, first.body, signed(first.id, first.body, [next, SECRET]))).status,
    ).toBe(200);
    const test = JSON.stringify({ type: 'secadmin.test', stream: STREAM });
    expect((await post(receiver.url, test, signed(`msg_${STREAM}_test_01kb`, test))).status).toBe(
      200,
    );
    expect(await receiver.stop()).toBe(0);
    const printed = receiver
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(printed).toEqual([
      {
        kind: 'message',
        webhookId: first.id,
        status: 'verified',
        fromSeq: 1,
        toSeq: 2,
        entries: 2,
        checkpoint: 'verified',
        coveredThroughSeq: 2,
      },
      { kind: 'entry', entry: log[0] },
      { kind: 'entry', entry: log[1] },
      { kind: 'message', webhookId: `msg_${STREAM}_test_01kb`, status: 'test' },
    ]);
  });

  it('takes a filtered stream’s ranges with entries absent, with --filtered', async () => {
    const receiver = await receive('--secret', SECRET, '--public-key', keyFile, '--filtered');
    const some = [log[0], log[2]] as typeof log;
    const sent = message(1, 4, some, checkpointOf(log[2] as (typeof log)[0]));
    expect((await send(receiver.url, sent)).status).toBe(200);
    expect(await receiver.stop()).toBe(0);
    expect(receiver.stdout().split('\n')[0]).toBe(
      `verified  range 1–4  2 entries  checkpoint verified  filtered: no checkpoint can cover them  ${sent.id}`,
    );
  });

  it('goes on checking the chain after a restart with --state', async () => {
    const state = join(scratch, 'receiver-state.json');
    const first = await receive('--secret', SECRET, '--public-key', keyFile, '--state', state);
    expect((await send(first.url, message(1, 3, range(1, 3)))).status).toBe(200);
    expect(await first.stop()).toBe(0);
    const again = await receive('--secret', SECRET, '--public-key', keyFile, '--state', state);
    expect((await send(again.url, message(2, 3, range(2, 3)))).body).toEqual({
      status: 'duplicate',
    });
    expect(await send(again.url, message(5, 6, range(5, 6)))).toMatchObject({
      status: 422,
      body: { seq: 4, reason: 'seq 4–4 never arrived: the range starts at 5' },
    });
    expect((await send(again.url, message(4, 6, range(4, 6)))).status).toBe(200);
    expect(await again.stop()).toBe(3);
    expect(again.stderr()).toContain('received through seq 6; the stream broke at seq 4');
    await writeFile(state, '{"pending":');
    const corrupt = await runCli('', [
      'streams',
      'receive',
      '--port',
      '0',
      '--secret',
      SECRET,
      '--state',
      state,
    ]);
    expect(corrupt.code).toBe(64);
    expect(corrupt.stderr).toContain(`--state ${state} is not a state this command saved`);
  });

  it('says why it cannot listen, with exit 1', async () => {
    const receiver = await receive('--secret', SECRET);
    const { port } = new URL(receiver.url);
    const taken = await runCli('', ['streams', 'receive', '--port', port, '--secret', SECRET]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(`secadmin: cannot listen on 127.0.0.1 port ${port}: `);
    expect(await receiver.stop()).toBe(0);
  });

  it('says when no public key is pinned, and reads the secret from SECADMIN_STREAM_SECRET', async () => {
    const receiver = await startReceive(['--port', '0'], { SECADMIN_STREAM_SECRET: SECRET });
    expect(receiver.stderr()).toContain(
      'warning: no public key: checkpoint signatures are not checked',
    );
    expect(await receiver.stop()).toBe(0);
  });

  it('refuses bad options with exit 64, naming them, and has help', async () => {
    const env = { SECADMIN_STREAM_SECRET: '', SECADMIN_PUBLIC_KEY: '' };
    const usage = async (args: string[], text: string | RegExp) => {
      const run = await runCli('', ['streams', 'receive', ...args], env);
      expect(run.code).toBe(64);
      expect(run.stderr).toMatch(text);
      expect(run.stderr).not.toContain(Buffer.alloc(32, 5).toString('base64'));
    };
    // One process each, side by side.
    await Promise.all([
      usage(
        ['--port', 'abc', '--secret', SECRET],
        "option '--port <port>' argument 'abc' is invalid",
      ),
      usage(['--port', '70000', '--secret', SECRET], '--port <port>'),
      usage(['--secret', SECRET], "required option '--port <port>' not specified"),
      usage(['--port', '0'], 'no secret'),
      usage(['--port', '0', '--secret', 'hunter2'], '--secret is not whsec_'),
      usage(['--port', '0', '--secret', SECRET, '--from-seq', '0'], "option '--from-seq <n>'"),
      usage(['--port', '0', '--secret', SECRET, '--bogus'], "unknown option '--bogus'"),
      usage(
        ['--port', '0', '--secret', SECRET, '--public-key', join(scratch, 'none.pem')],
        '--public-key',
      ),
    ]);
    const help = await runCli('', ['streams', 'receive', '--help'], env);
    expect(help.code).toBe(0);
    for (const option of [
      '--port',
      '--host',
      '--secret',
      '--public-key',
      '--stream',
      '--from-seq',
      '--filtered',
    ])
      expect(help.stdout).toContain(option);
  });
});
