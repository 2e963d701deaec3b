import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { signingKeyFromPem } from '../../src/features/audit-log/chain/signing-key.js';
import { spawnServer } from '../helpers/process.js';
import { createTestDatabase, json } from '../helpers/server.js';

const ROTATE = fileURLToPath(new URL('../../dist/rotate-signing-key.js', import.meta.url));
const run = promisify(execFile);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const privatePem = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

/**
 * The operator command as the runbook runs it: embedded with the data dir's own key (the
 * server stopped), PostgreSQL with SECADMIN_SIGNING_KEY (the server may run; here it is
 * stopped too, so the restart with the new key is the only instance).
 */
describe.each(['data dir', 'environment'] as const)(
  'pnpm signing-key:rotate with the key in the %s',
  { timeout: 180_000 },
  (keyIn) => {
    it('hands the chain to the new key, prints fingerprints only, and the restarted server verifies', async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-rotate-'));
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      const pg = await createTestDatabase();
      cleanups.push(() => pg.drop());
      const rootKey = generateSecret();
      const oldKey = keyIn === 'environment' ? privatePem() : undefined;
      const env = {
        SECADMIN_DATA_DIR: dataDir,
        SECADMIN_ADMIN_API_KEY: rootKey,
        DATABASE_URL: pg.url,
        SECADMIN_SIGNING_KEY: oldKey ?? '',
      };
      const api = (url: string, path: string, body?: unknown) =>
        fetch(`${url}${path}`, {
          method: body ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${rootKey}`, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        }).then(json);

      const before = await spawnServer(env);
      await api(before.url, '/v1/logs', {
        entries: [{ event: 'rotate.test', actor: { type: 'system' }, result: 'success' }],
      });
      // Sealed, not only listed: a rotation needs an entry the old key signed.
      const deadline = Date.now() + 30_000;
      while ((await api(before.url, '/v1/logs/verify', {})).data?.checkedEntries < 1)
        if (Date.now() > deadline) throw new Error('the entry was not sealed in time');
        else await new Promise((resolve) => setTimeout(resolve, 50));
      const { data: oldPublic } = await api(before.url, '/v1/logs/public-key');
      await before.stop();

      const newKey = privatePem();
      const newKeyFile = join(dataDir, 'new-signing-key.pem');
      await writeFile(newKeyFile, newKey, { mode: 0o600 });
      const rotated = await run(process.execPath, [ROTATE, '--new-key', newKeyFile], {
        env: { ...process.env, ...env },
      });
      const next = await signingKeyFromPem(newKey, 'new');
      expect(rotated.stdout).toContain(
        `are signed by ${next.fingerprint} (was ${oldPublic.fingerprint})`,
      );
      expect(rotated.stdout + rotated.stderr).not.toContain('PRIVATE KEY');

      if (keyIn === 'data dir') {
        expect(await readFile(join(dataDir, 'signing-key.pem'), 'utf8')).toBe(newKey);
        expect(
          (await readdir(dataDir)).filter((name) => name.startsWith('signing-key.retired-')),
        ).toHaveLength(1);
      } else expect(rotated.stdout).toContain('Set SECADMIN_SIGNING_KEY to the new key');

      // Again at once, to a third key: nothing was sealed under the new one, so it is refused
      // with a sentence, not a stack trace.
      const thirdKeyFile = join(dataDir, 'third-signing-key.pem');
      await writeFile(thirdKeyFile, privatePem(), { mode: 0o600 });
      const again = await run(process.execPath, [ROTATE, '--new-key', thirdKeyFile], {
        env: { ...process.env, ...env, SECADMIN_SIGNING_KEY: oldKey ? newKey : '' },
      }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(again?.code).toBe(1);
      expect(again?.stderr).toMatch(/^not rotated: no entry has been sealed since /);
      expect(again?.stderr).not.toContain('    at ');

      const after = await spawnServer({ ...env, SECADMIN_SIGNING_KEY: oldKey ? newKey : '' });
      cleanups.push(() => after.stop());
      const { data: keys } = await api(after.url, '/v1/logs/public-key');
      expect(keys.fingerprint).toBe(next.fingerprint);
      expect(keys.keys.map((key: { fingerprint: string }) => key.fingerprint)).toEqual([
        oldPublic.fingerprint,
        next.fingerprint,
      ]);
      // The rotation signed the head with the old key: every entry so far is covered.
      expect((await api(after.url, '/v1/logs/verify', {})).data).toMatchObject({
        valid: true,
        uncoveredEntries: 0,
      });
    });
  },
);
