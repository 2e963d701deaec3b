import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '@secadmin/db';
import { loadConfig } from './config.js';
import { loadSigningKey, signingKeyFromPem, signingKeysOn } from './features/audit-log/module.js';
import { createSecretFile } from './lib/secret-file.js';
import { createStore } from './storage/store.js';

/**
 * `pnpm signing-key:rotate --new-key <file>`: hands the audit-log chain from the current key
 * (`SECADMIN_SIGNING_KEY`, or `<data dir>/signing-key.pem`) to the Ed25519 PKCS#8 PEM key
 * in <file>, on the database of the environment. Private keys are read from files and the
 * environment only; only fingerprints are printed. When the current key is the data dir's
 * file, the new key takes its place and the old one is kept beside it, renamed.
 */
const { values } = parseArgs({ options: { 'new-key': { type: 'string' } } });
const newKeyFile = values['new-key'];
if (!newKeyFile) {
  console.error('usage: signing-key:rotate --new-key <PKCS#8 PEM Ed25519 private key file>');
  process.exit(2);
}
const config = loadConfig();
const next = await signingKeyFromPem(await readFile(newKeyFile, 'utf8'), newKeyFile);
const current = await loadSigningKey(config.signingKey, config.dataDir);
if (current.generatedFile) {
  console.error('no signing key was configured or found in the data dir: nothing to rotate');
  process.exit(1);
}
const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
try {
  await db.migrate();
  const rotated = await signingKeysOn(createStore(db)).rotate(current, next);
  console.log(
    `Checkpoints from seq ${rotated.fromSeq} on are signed by ${rotated.fingerprint} (was ${rotated.previous}).`,
  );
  if (!config.signingKey) {
    const file = join(config.dataDir, 'signing-key.pem');
    const retired = join(config.dataDir, `signing-key.retired-${rotated.fromSeq}.pem`);
    await rename(file, retired);
    if (!(await createSecretFile(file, await readFile(newKeyFile, 'utf8'))))
      throw new Error(
        `${file} appeared while the old key was moved aside; the new key is in ${newKeyFile}`,
      );
    console.log(`${file} now holds the new key; the old one is in ${retired}.`);
  } else console.log('Set SECADMIN_SIGNING_KEY to the new key and restart every instance.');
} catch (error) {
  // A refusal (nothing sealed since the last rotation, a key that is not the active one) is
  // the operator's to read, not a stack trace.
  console.error(`not rotated: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
