import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import {
  bareHost,
  checkedAddresses,
  DestinationRefused,
  type GuardOptions,
} from './destination-guard.js';

/** How one POST to a destination ended. `error` never holds a secret, token or the URL's query. */
export interface SendOutcome {
  ok: boolean;
  httpStatus?: number;
  /** Seconds, from a 429 or 503 answer's `Retry-After`. */
  retryAfterSeconds?: number;
  error?: string;
  durationMs: number;
}

export interface SenderOptions extends GuardOptions {
  timeoutMs: number;
}

/** `Retry-After` as delay-seconds or an HTTP date. */
function retryAfter(res: IncomingMessage): number | undefined {
  const text = res.headers['retry-after'];
  if (typeof text !== 'string') return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * POSTs `body` to `url`: resolves the host, refuses it unless every address is allowed, and
 * connects to a checked address (the connection's `lookup` answers with the checked addresses
 * and never asks DNS again, so an answer that changes after the check is never used). No
 * redirects (a 3xx is a failure), at most `timeoutMs` for the whole exchange.
 */
export async function send(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SenderOptions,
): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(target);
  let addresses: string[];
  try {
    addresses = await checkedAddresses(bareHost(url), options);
  } catch (error) {
    const message =
      error instanceof DestinationRefused
        ? `refused: ${error.message}`
        : 'the host could not be resolved';
    return { ok: false, error: message, durationMs: elapsed() };
  }
  const checked = addresses.map((address) => ({ address, family: isIP(address) }));
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as (e: null, a: typeof checked) => void)(null, checked);
    else callback(null, checked[0]?.address ?? '', checked[0]?.family ?? 4);
  };
  const requester = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const req = requester(
      url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed: read and dropped, within the same deadline.
        res.resume();
        res.once('end', () => {
          const ok = status >= 200 && status < 300;
          const wait = status === 429 || status === 503 ? retryAfter(res) : undefined;
          finish({
            ok,
            httpStatus: status,
            ...(wait !== undefined ? { retryAfterSeconds: wait } : {}),
            ...(ok ? {} : { error: `the receiver answered ${status}` }),
          });
        });
        res.once('error', () =>
          finish({ ok: false, httpStatus: status, error: 'the answer broke off' }),
        );
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, error: `no answer within ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.once('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, error: `connection failed (${error.code ?? 'network error'})` }),
    );
    req.end(body);
  });
}
