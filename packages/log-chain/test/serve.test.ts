import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, expect, it } from 'vitest';
import {
  type ChainEntry,
  ChainVerifier,
  type Checkpoint,
  serveChainVerifier,
  type VerifierItem,
  type VerifierReply,
  type VerifierRequest,
} from '../src/index.js';
import { checkpoint, entry, publicKeyPem, seal } from './fixture.js';

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** A client of a verifier served on the other end of a channel: one reply per request. */
function served() {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  serveChainVerifier(port2 as never);
  const replies: ((reply: VerifierReply) => void)[] = [];
  port1.on('message', (reply: VerifierReply) => replies.shift()?.(reply));
  return (request: VerifierRequest) =>
    new Promise<VerifierReply>((resolve) => {
      replies.push(resolve);
      port1.postMessage(request);
    });
}

function chain(n: number): { entries: ChainEntry[]; checkpoints: Checkpoint[] } {
  const entries = seal(Array.from({ length: n }, (_, i) => entry(i + 1)));
  const at = (seq: number) => checkpoint(seq, entries[seq - 1]?.hash as string);
  return { entries, checkpoints: [at(4), at(8)] };
}

async function inProcess(items: VerifierItem[], checkpoints: Checkpoint[]) {
  const verifier = await ChainVerifier.create({ checkpoints, publicKeyPem });
  for (const item of items)
    if ('entry' in item) await verifier.add([item.entry]);
    else await verifier.removed(item.removed);
  return verifier.finish();
}

it('answers as a ChainVerifier in this thread does, batch by batch, for intact and tampered chains', async () => {
  const { entries, checkpoints } = chain(10);
  const removed = entries[2] as ChainEntry;
  const tampered = structuredClone(entries);
  (tampered[5] as ChainEntry).result = 'failure';
  for (const [list, removedSeq] of [
    [entries, undefined],
    [entries, 3],
    [tampered, undefined],
  ] as const) {
    const items: VerifierItem[] = list.map((e) =>
      e.seq === removedSeq
        ? {
            removed: {
              seq: removed.seq as number,
              hash: removed.hash as string,
              prevHash: removed.prevHash as string,
            },
          }
        : { entry: e },
    );
    const call = served();
    expect(await call({ create: { checkpoints, publicKeyPem } })).toEqual({ created: true });
    const first = await call({ add: items.slice(0, 5) });
    const second = await call({ add: items.slice(5) });
    const expected = await inProcess(items, checkpoints);
    expect(second).toEqual({ failed: !expected.valid });
    expect(first).toEqual({ failed: false });
    expect(await call({ finish: true })).toEqual({ result: expected });
  }
});

it('answers requests in order, and a failure with its reason rather than a thrown error', async () => {
  const { checkpoints } = chain(8);
  const call = served();
  const early = call({ add: [] });
  const created = call({ create: { checkpoints, publicKeyPem, expectedKey: 'SHA256:00' } });
  expect(await early).toEqual({ error: 'no verifier was created' });
  expect(await created).toMatchObject({ error: expect.stringMatching(/./) });
});
