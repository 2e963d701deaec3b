/**
 * Standard Webhooks 1.0 signatures (https://www.standardwebhooks.com), as secadmin's log
 * streams send them: `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`,
 * one or several space-separated `v1,<base64 HMAC-SHA256>` over `id.timestamp.body` under the
 * secret's bytes (`whsec_` + base64). On Web Crypto, so it runs in Node and in browsers alike;
 * `crypto.subtle.verify` compares in constant time.
 */

/** How far a `webhook-timestamp` may lie from now, either way (the specification's 5 minutes). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

const SECRET_PREFIX = 'whsec_';
const TIMESTAMP = /^[0-9]{1,15}$/;
const encoder = new TextEncoder();
type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

/** A request's headers: a Fetch `Headers`, or Node's `IncomingHttpHeaders` (lowercase keys). */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Seconds a timestamp may lie before or after now. Default `WEBHOOK_TOLERANCE_SECONDS`. */
  toleranceSeconds?: number;
  /** The current time in milliseconds since the epoch. Default `Date.now()`. */
  now?: number;
}

/** What a verified request says about itself. */
export interface VerifiedWebhook {
  /** `webhook-id`: the same on every retry of one message, so it tells duplicates apart. */
  id: string;
  /** `webhook-timestamp`, Unix seconds of this attempt. */
  timestamp: number;
}

/** A request whose signature does not hold; `reason` says which check failed (no secret in it). */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: string) {
    super(`webhook not verified: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function base64Text(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The HMAC key of a `whsec_…` secret (the prefix is optional, as in the specification's libraries). */
function hmacKey(secret: string, usage: 'sign' | 'verify'): Promise<HmacKey> {
  if (typeof secret !== 'string') throw new TypeError('the webhook secret is not a string');
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = base64Bytes(encoded);
  if (!bytes || bytes.length === 0)
    throw new TypeError('the webhook secret is not whsec_ followed by base64');
  return crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

function signedContent(id: string, timestamp: number, body: string | Uint8Array): Uint8Array {
  const head = encoder.encode(`${id}.${timestamp}.`);
  const payload = typeof body === 'string' ? encoder.encode(body) : body;
  const content = new Uint8Array(head.length + payload.length);
  content.set(head);
  content.set(payload, head.length);
  return content;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const value = (headers as Readonly<Record<string, string | readonly string[] | undefined>>)[name];
  if (value === undefined || typeof value === 'string') return value;
  // Two headers of the same name: which one the sender meant cannot be told.
  throw new WebhookVerificationError(`${name} is given more than once`);
}

/**
 * Checks a request's Standard Webhooks signature against the raw body exactly as it arrived
 * (parse it only afterwards). Resolves to the request's id and timestamp; rejects with a
 * `WebhookVerificationError` naming the failed check: a header missing, a timestamp outside
 * the tolerance, or no `v1` signature that matches. During a secret rotation the sender puts
 * one signature per secret in the header; any one that matches is enough. Throws a
 * `TypeError` when `secret` is not a `whsec_` secret.
 */
export async function verifyWebhookSignature(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook> {
  const key = await hmacKey(secret, 'verify');
  const id = header(headers, 'webhook-id');
  const timestampText = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id) throw new WebhookVerificationError('webhook-id is missing');
  if (!timestampText) throw new WebhookVerificationError('webhook-timestamp is missing');
  if (!signatures) throw new WebhookVerificationError('webhook-signature is missing');
  if (!TIMESTAMP.test(timestampText))
    throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance)
    throw new WebhookVerificationError('webhook-timestamp is too old');
  if (timestamp - now > tolerance)
    throw new WebhookVerificationError('webhook-timestamp is in the future');
  const content = signedContent(id, timestamp, body);
  for (const signature of signatures.split(' ')) {
    const comma = signature.indexOf(',');
    if (comma < 0 || signature.slice(0, comma) !== 'v1') continue;
    const bytes = base64Bytes(signature.slice(comma + 1));
    if (!bytes) continue;
    if (await crypto.subtle.verify('HMAC', key, bytes, content)) return { id, timestamp };
  }
  throw new WebhookVerificationError('no v1 signature in webhook-signature matches');
}

/**
 * The `webhook-signature` value (`v1,<base64>`) for one request: what secadmin sends, for
 * testing a receiver. `timestamp` is in Unix seconds.
 */
export async function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Uint8Array,
): Promise<string> {
  const key = await hmacKey(secret, 'sign');
  const mac = await crypto.subtle.sign('HMAC', key, signedContent(id, timestamp, body));
  return `v1,${base64Text(new Uint8Array(mac))}`;
}
