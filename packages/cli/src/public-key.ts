import { readFile } from 'node:fs/promises';
import { usageError } from './errors.js';

/**
 * The pinned key from `--public-key` or `SECADMIN_PUBLIC_KEY`: a fingerprint or PEM as it
 * is, otherwise the name of a file that holds one.
 */
export async function pinnedKey(value: string | undefined): Promise<string | undefined> {
  const given = value?.trim();
  if (!given) return undefined;
  if (/^SHA256:/.test(given) || given.includes('-----BEGIN')) return given;
  let text: string;
  try {
    text = (await readFile(given, 'utf8')).trim();
  } catch (error) {
    throw usageError(
      `--public-key is neither a SHA256: fingerprint, a PEM, nor a readable file: ${(error as Error).message}`,
    );
  }
  if (/^SHA256:/.test(text) || text.includes('-----BEGIN PUBLIC KEY-----')) return text;
  throw usageError(`${given} holds neither a PEM public key nor a SHA256: fingerprint`);
}
