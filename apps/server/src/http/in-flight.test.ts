import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import express from 'express';
import { expect, it, vi } from 'vitest';
import { InFlightRequests } from './in-flight.js';

it('waits for a handler whose client already left before shutdown goes on', async () => {
  const inFlight = new InFlightRequests();
  let answer: () => void = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let reached: () => void = () => {};
  const handlerReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const app = express();
  app.use(inFlight.track);
  app.get('/slow', async (_req, res) => {
    reached();
    await answered;
    res.json({ ok: true });
  });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const client = new AbortController();
  const request = fetch(`http://127.0.0.1:${port}/slow`, { signal: client.signal }).catch(
    () => 'aborted',
  );
  await handlerReached;
  client.abort();
  expect(await request).toBe('aborted');
  await new Promise<void>((resolve) => server.close(() => resolve()));

  let drained = false;
  const draining = inFlight.drained(5_000).then(() => {
    drained = true;
  });
  for (let turn = 0; turn < 10; turn++) await nextTurn();
  expect(drained).toBe(false);
  answer();
  await draining;
  expect(drained).toBe(true);
});

it('gives up waiting after the timeout', async () => {
  const inFlight = new InFlightRequests();
  let reached: () => void = () => {};
  const handlerReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const app = express();
  app.use(inFlight.track);
  app.get('/never', () => reached());
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const client = new AbortController();
  const request = fetch(`http://127.0.0.1:${port}/never`, { signal: client.signal }).catch(
    () => {},
  );
  await handlerReached;
  client.abort();
  await request;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    let drained = false;
    const draining = inFlight.drained(200).then(() => {
      drained = true;
    });
    await vi.advanceTimersByTimeAsync(199);
    expect(drained).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(drained).toBe(true);
    await draining;
  } finally {
    vi.useRealTimers();
  }
});
