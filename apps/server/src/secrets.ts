import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecretFile } from './lib/secret-file.js';

/**
 * The HMAC secret for download tokens: `SECADMIN_SECRET`, or one generated once into
 * `<dataDir>/secret` (0600). Instances behind one load balancer must share it.
 */
export async function loadSecret(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const file = join(dataDir, 'secret');
  const existing = await readFile(file, 'utf8').catch(() => undefined);
  if (existing?.trim()) return existing.trim();
  const secret = randomBytes(32).toString('base64url');
  // Another instance starting on the same data dir may have written it first: read what won.
  await createSecretFile(file, `${secret}\n`);
  return (await readFile(file, 'utf8')).trim();
}
