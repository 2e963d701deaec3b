import { once } from 'node:events';
import { rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type LogEntry,
  type StreamMessageResult,
  type StreamVerifier,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '@secadmin/api-client';
import { CliError } from './errors.js';
import type { Output } from './output.js';

/** A batch of a thousand entries with their metadata fits many times over. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface ReceiverOptions {
  host: string;
  port: number;
  secret: string;
  verifier: StreamVerifier;
  /** The verifier follows a filtered stream: no checkpoint covers its entries. */
  filtered: boolean;
  /** Where the verifier's state is saved after each message, before it is answered. */
  stateFile?: string;
  out: Output;
}

export interface Receiver {
  url: string;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, 'the body is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'the body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function answer(response: ServerResponse, status: number, body: Record<string, unknown>): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  response.end(`${JSON.stringify(body)}\n`);
}

/** Written whole or not at all: a crash mid-write leaves the previous state. */
async function saveState(file: string, verifier: StreamVerifier): Promise<void> {
  const partial = `${file}.partial`;
  await writeFile(partial, `${JSON.stringify(verifier.state())}\n`);
  await rename(partial, file);
}

const actorText = (actor: LogEntry['actor']) => `${actor.type}:${actor.email ?? actor.id ?? ''}`;

/**
 * An HTTP server that receives one log stream: it answers 2xx only for a message whose
 * signature and place in the chain it verified (a duplicate of one already held counts),
 * 401 for a signature that does not hold, 422 for a message that breaks the chain (never
 * 410, which would disable the stream). Messages are checked one at a time, in arrival order.
 */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const { out, verifier } = options;
  let queue: Promise<void> = Promise.resolve();

  const print = (webhookId: string, result: StreamMessageResult, entries: LogEntry[]) => {
    if (out.json) {
      out.line(JSON.stringify({ kind: 'message', webhookId, ...result }));
      if (result.status === 'verified')
        for (const entry of entries) out.line(JSON.stringify({ kind: 'entry', entry }));
      return;
    }
    switch (result.status) {
      case 'verified': {
        const checkpoint =
          result.checkpoint === 'none' ? 'no checkpoint' : `checkpoint ${result.checkpoint}`;
        const covered =
          result.coveredThroughSeq !== null
            ? `covered through seq ${result.coveredThroughSeq}`
            : options.filtered
              ? 'filtered: no checkpoint can cover them'
              : 'no checkpoint covers them yet';
        out.line(
          `verified  range ${result.fromSeq}–${result.toSeq}  ${result.entries} entries  ${checkpoint}  ${covered}  ${webhookId}`,
        );
        for (const entry of entries)
          out.line(
            `  seq ${entry.seq}  ${entry.timestamp}  ${entry.event}  ${actorText(entry.actor)}  ${entry.result}  ${entry.id}`,
          );
        return;
      }
      case 'duplicate':
        out.line(`duplicate  range ${result.fromSeq}–${result.toSeq}  already held  ${webhookId}`);
        return;
      case 'test':
        out.line(`test message  ${webhookId}`);
        return;
      case 'invalid':
        out.line(
          `INVALID${result.seq === undefined ? '' : ` at seq ${result.seq}`}: ${result.reason}  ${webhookId}`,
        );
    }
  };

  /** Reads and authenticates one request; many at once, so a slow sender holds up no other. */
  const authenticate = async (request: IncomingMessage) => {
    if (request.method !== 'POST') throw new HttpError(405, 'only POST is accepted');
    const body = await readBody(request);
    let webhookId: string;
    try {
      ({ id: webhookId } = await verifyWebhookSignature(options.secret, request.headers, body));
    } catch (error) {
      if (error instanceof WebhookVerificationError) throw new HttpError(401, error.reason);
      throw error;
    }
    try {
      return { webhookId, message: JSON.parse(body.toString('utf8')) as unknown };
    } catch {
      throw new HttpError(400, 'the body is not JSON');
    }
  };

  /** Checks one authenticated message against the chain: one at a time, in arrival order. */
  const check = async (webhookId: string, message: unknown, response: ServerResponse) => {
    const heldThrough = verifier.deliveredThroughSeq ?? 0;
    const result = await verifier.add(message, webhookId);
    const fresh =
      result.status === 'verified'
        ? (message as { entries: LogEntry[] }).entries.filter(
            (entry) => (entry.seq as number) > heldThrough,
          )
        : [];
    if (options.stateFile) await saveState(options.stateFile, verifier);
    print(webhookId, result, fresh);
    if (result.status === 'invalid') answer(response, 422, result);
    else answer(response, 200, { status: result.status });
  };

  const refuse = (response: ServerResponse) => (error: unknown) => {
    if (error instanceof HttpError) {
      out.note(`refused (${error.status}): ${error.message}`);
      answer(response, error.status, { status: 'refused', reason: error.message });
      return;
    }
    out.note(`error: ${(error as Error).message}`);
    answer(response, 500, { status: 'error' });
  };

  const server = createServer((request, response) => {
    authenticate(request).then(({ webhookId, message }) => {
      queue = queue.then(() => check(webhookId, message, response).catch(refuse(response)));
    }, refuse(response));
  });
  // A sender that stalls mid-request is cut off rather than held open for good.
  server.requestTimeout = 60_000;
  server.listen(options.port, options.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    throw new CliError(
      `cannot listen on ${options.host} port ${options.port}: ${(error as Error).message}`,
    );
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
      await queue;
    },
  };
}
