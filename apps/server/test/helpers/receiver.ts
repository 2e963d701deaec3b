import { createHmac } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a receiver got, as it arrived. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver does with a request: answer a status (and headers), or never answer; a promise answers when it settles. */
export type Reply = { status: number; headers?: Record<string, string> } | 'stall';

/**
 * A log-stream receiver on 127.0.0.1: records every request and answers what `reply` says
 * (204 by default, after `delayMs`). Stalled requests are dropped when the receiver closes.
 */
export async function startReceiver(
  reply: (request: Received, index: number) => Reply | Promise<Reply> = () => ({ status: 204 }),
  options: { delayMs?: number } = {},
) {
  const received: Received[] = [];
  const stalled: ServerResponse[] = [];
  let answer = reply;
  // Requests open at once per message `stream` (until each answer is sent or its socket closes).
  const open = new Map<string, number>();
  let mostOpenPerStream = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      let stream = '';
      try {
        stream = String(JSON.parse(request.body).stream);
      } catch {}
      open.set(stream, (open.get(stream) ?? 0) + 1);
      mostOpenPerStream = Math.max(mostOpenPerStream, open.get(stream) ?? 0);
      res.once('close', () => open.set(stream, (open.get(stream) ?? 1) - 1));
      void Promise.resolve(answer(request, received.length - 1)).then((what) => {
        if (what === 'stall') stalled.push(res);
        else if (options.delayMs)
          setTimeout(() => res.writeHead(what.status, what.headers).end(), options.delayMs);
        else res.writeHead(what.status, what.headers).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The bodies of webhook messages (not test messages), parsed. */
    // biome-ignore lint/suspicious/noExplicitAny: messages are inspected as JSON
    messages: (): any[] =>
      received.map((r) => JSON.parse(r.body)).filter((m) => m.type === 'audit_log.entries'),
    /** The most requests of one stream that were ever open at once. */
    mostOpenPerStream: () => mostOpenPerStream,
    setReply(next: typeof reply) {
      answer = next;
    },
    close: async () => {
      for (const res of stalled) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Whether one of the `v1,` signatures of a Standard Webhooks request is `secret`'s. */
export function signedWith(request: Received, secret: string): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64')}`;
  return String(request.headers['webhook-signature']).split(' ').includes(expected);
}
