// What a new user writes: compiled with tsc as ESM (.mts), as CommonJS (.cts) and for a bundler,
// then run against a live server (SECADMIN_URL, SECADMIN_API_KEY). It exits non-zero on any surprise.

import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import {
  createSecadminClient,
  fetchVerificationMaterial,
  type LogEntry,
  SecadminApiError,
  type SecadminClient,
  SecadminConnectionError,
  StreamVerifier,
  signWebhook,
  type User,
  verifyExport,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '@secadmin/api-client';
import type { ErrorCode } from '@secadmin/api-types';

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`unexpected: ${what}`);
}

async function main(): Promise<void> {
  const client = createSecadminClient({
    baseUrl: process.env.SECADMIN_URL ?? 'http://localhost:3000',
    apiKey: process.env.SECADMIN_API_KEY,
  });
  // Each run (ESM, CommonJS) makes its own user and events on the shared server.
  const run = `r${process.pid}_${Date.now()}`;

  const created: User = await client.users.create({ email: `${run}@example.com`, name: 'Ada' });
  const renamed = await client.users.update(created.id, { name: 'Ada Lovelace' });
  check(renamed.name === 'Ada Lovelace', 'the update');
  check((await client.users.get(created.id)).email === created.email, 'the user read back');

  const listed: string[] = [];
  for await (const user of client.paginate('/v1/users', { email: created.email, limit: 1 }))
    listed.push(user.id);
  check(listed.join() === created.id, 'the user in its list');

  const event = `consumer.${run}`;
  const acks = await client.logs.ingest({
    entries: [1, 2, 3].map(() => ({ event, actor: { type: 'script' }, result: 'success' })),
  });
  check(acks.length === 3, 'three entries stored');
  // Search reads a copy of the sealed log that follows it within seconds: ask until it holds them.
  let hits = 0;
  for (let i = 0; hits < 3; i++) {
    check(i < 200, `three search hits within 20 s, got ${hits}`);
    if (i > 0) await sleep(100);
    hits = 0;
    const query = { query: `event:${event}`, limit: 2 };
    for await (const hit of client.paginate('/v1/logs/search', query))
      hits += hit.event === event ? 1 : 0;
  }
  check(hits === 3, `three search hits over two pages, got ${hits}`);

  await verifiesAnExportOffline(client, acks[0]?.id ?? '');

  await client.users.delete(created.id);
  const missing = await client.users.get(created.id).catch((error: unknown) => error);
  const notFound: ErrorCode = 'not_found';
  check(missing instanceof SecadminApiError && missing.code === notFound, 'a typed 404');

  const closed = createServer().listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const { port } = closed.address() as AddressInfo;
  closed.close();
  const nowhere = createSecadminClient({
    baseUrl: `http://127.0.0.1:${port}`,
    retry: { maxRetries: 0 },
  });
  const refused = await nowhere.system.getHealth().catch((error: unknown) => error);
  check(
    refused instanceof SecadminConnectionError && refused.message.includes('ECONNREFUSED'),
    'a SecadminConnectionError for a refused connection',
  );

  console.log('consumer program: ok');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The whole log as a JSON export, checked without the server, then with one field changed. */
async function verifiesAnExportOffline(client: SecadminClient, entryId: string): Promise<void> {
  for (let i = 0; (await client.logs.get(entryId)).seq === null; i++) {
    check(i < 200, 'the entry sealed within 20 s');
    await sleep(100);
  }
  const { exportId } = await client.exports.create({
    from: '2000-01-01T00:00:00Z',
    to: '2100-01-01T00:00:00Z',
    format: 'json',
  });
  let done = await client.exports.get(exportId);
  for (let i = 0; done.status === 'processing'; i++) {
    check(i < 200, 'the export completed within 20 s');
    await sleep(100);
    done = await client.exports.get(exportId);
  }
  const url = new URL(done.downloadUrl ?? '');
  const file = await client.exports.download(`${exportId}.json`, {
    token: url.searchParams.get('token') ?? '',
  });
  const entries = (await file.json()) as LogEntry[];
  const material = await fetchVerificationMaterial(client);

  const verified = await verifyExport(entries, material);
  check(
    verified.valid && verified.checkedEntries >= 3,
    `a valid export: ${JSON.stringify(verified)}`,
  );

  const forged = entries.map((entry) =>
    entry.id === entryId ? { ...entry, event: 'consumer.forged' } : entry,
  );
  const seq = entries.find((entry) => entry.id === entryId)?.seq;
  const caught = await verifyExport(forged, material);
  check(
    !caught.valid && caught.firstInvalidSeq === seq,
    `the changed entry (seq ${seq}) found: ${JSON.stringify(caught)}`,
  );

  // A log stream's receiver: the export's entries as one webhook message, signed, then checked.
  const secret = `whsec_${btoa(String.fromCharCode(...new Uint8Array(32).fill(7)))}`;
  const sealed = entries
    .filter((entry) => entry.seq !== null)
    .sort((a, b) => (a.seq as number) - (b.seq as number));
  const range = { fromSeq: sealed[0]?.seq as number, toSeq: sealed.at(-1)?.seq as number };
  const id = `msg_lst_consumer_${range.fromSeq}_${range.toSeq}`;
  const message = { type: 'audit_log.entries', stream: 'lst_consumer', range, entries: sealed };
  const body = JSON.stringify({ ...message, checkpoint: null });
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await signWebhook(secret, id, timestamp, body),
  };
  const delivered = await verifyWebhookSignature(secret, headers, body);
  const streamVerifier = await StreamVerifier.create({
    publicKeyPem: material.publicKeyPem,
    filtered: true,
  });
  const received = await streamVerifier.add(JSON.parse(body), delivered.id);
  check(received.status === 'verified', `the stream message verified: ${JSON.stringify(received)}`);
  const refused = await verifyWebhookSignature(secret, headers, `${body} `).then(
    () => false,
    (error: unknown) => error instanceof WebhookVerificationError,
  );
  check(refused, 'a webhook body changed after signing refused');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
