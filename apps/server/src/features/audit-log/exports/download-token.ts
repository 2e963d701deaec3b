import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC-SHA256 over the export id and its expiry: a URL for one export, until then. */
export function signDownload(secret: string, exportId: string, expiresAt: Date): string {
  return createHmac('sha256', secret)
    .update(`${exportId}.${expiresAt.getTime()}`)
    .digest('base64url');
}

export function verifyDownload(
  secret: string,
  exportId: string,
  expiresAt: Date,
  token: string,
): boolean {
  const expected = Buffer.from(signDownload(secret, exportId, expiresAt));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
