import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSecadminClient, type VerificationMaterial } from '@secadmin/api-client';
import {
  type ChainEntry,
  checkpointMessage,
  type ExportedEntry,
  entryHash,
  keyFingerprint,
} from '@secadmin/log-chain';
import { createScratchDatabase, type ScratchDatabase } from '@secadmin/test-infra';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  API_KEY,
  CLI_MAIN,
  type Run,
  runCli,
  type ServerProcess,
  startServer,
} from './helpers/processes.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples/policies', import.meta.url));

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'secadmin-cli-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function policyFolder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(scratch, 'policies-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

// One server, on a database of its own, for the whole file: its blocks run one after another.
let started: Promise<{ server: ServerProcess; database: ScratchDatabase }> | undefined;
afterAll(async () => {
  const { server, database } = (await started) ?? {};
  await server?.stop();
  await database?.drop();
});

async function launch() {
  const database = await createScratchDatabase(inject('postgresUrl'), 'secadmin_cli');
  const server = await startServer(await mkdtemp(join(scratch, 'server-')), database.url);
  return { server, database };
}

let url = '';
/** The server's URL, once the first block that needs it has started it. */
const serverUrl = () => url;

async function waitFor(condition: () => boolean | Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > 60_000) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Until search and statistics see the newest entry of `event`: sealed, and in the analytics
 * store they read, which follows the sealed log within seconds.
 */
async function searchable(event: string): Promise<void> {
  const client = createSecadminClient({ baseUrl: serverUrl(), apiKey: API_KEY });
  const { data } = await client.logs.list({ events: [event], limit: 1 });
  const newest = data[0]?.id ?? '';
  let seq: number | null = null;
  await waitFor(async () => {
    seq = (await client.logs.get(newest)).seq;
    return seq !== null;
  });
  await waitFor(async () => (await client.logs.getSearchIndex()).indexedThroughSeq >= (seq ?? 0));
}

/** The CLI against the file's server, started by the first block that needs it. */
function useServer(): (...args: string[]) => Promise<Run> {
  beforeAll(async () => {
    started ??= launch();
    url = (await started).server.url;
  }, 120_000);
  return (...args) => runCli(url, args);
}

const readers = (actions: string) => `name: cli-readers
effect: allow
principals: [role:cli-reader]
actions: [${actions}]
resources: ['users/*']
`;
const deleters = `name: cli-no-deletes
description: nobody deletes
effect: deny
principals: [role:cli-reader]
actions: [users:delete]
resources: ['*']
`;

describe('policies as code', () => {
  const cli = useServer();

  it('plans, applies with --yes, updates with a field diff, prunes; --dry-run exits 2 on drift, 0 without', async () => {
    const dir = await policyFolder({
      'readers.yaml': readers('users:read'),
      'deny.yaml': deleters,
    });

    const dryRun = await cli('policies', 'apply', dir, '--dry-run');
    expect(dryRun.code, dryRun.stderr).toBe(2);
    expect(dryRun.stdout).toContain('+ create cli-readers (readers.yaml)');
    expect(dryRun.stdout).toContain('+ create cli-no-deletes (deny.yaml)');

    const planOnly = await cli('policies', 'apply', dir);
    expect(planOnly.code).toBe(0);
    expect(planOnly.stderr).toContain('--yes');
    expect((await cli('policies', 'apply', dir, '--dry-run')).code).toBe(2);

    const applied = await cli('policies', 'apply', dir, '--yes');
    expect(applied.code, applied.stderr).toBe(0);
    const clean = await cli('policies', 'apply', dir, '--dry-run');
    expect(clean.code, clean.stdout).toBe(0);
    expect(clean.stdout).toContain('No changes');

    await writeFile(join(dir, 'readers.yaml'), readers('users:read, users:list'));
    await rm(join(dir, 'deny.yaml'));
    const drift = await cli('policies', 'apply', dir, '--dry-run', '--prune');
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('~ update cli-readers (readers.yaml)');
    expect(drift.stdout).toContain('actions: ["users:read"] -> ["users:read","users:list"]');
    expect(drift.stdout).toContain('- delete cli-no-deletes');
    const withoutPrune = await cli('policies', 'apply', dir, '--dry-run');
    expect(withoutPrune.stdout).not.toContain('- delete');

    expect((await cli('policies', 'apply', dir, '--yes', '--prune')).code).toBe(0);
    const after = await cli('policies', 'apply', dir, '--dry-run', '--prune', '--json');
    expect(after.code, after.stdout).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({ steps: [] });
  });

  it('applies nothing of a folder with one invalid file, naming the file and the field; --dry-run exits 1', async () => {
    const dir = await policyFolder({
      'a.yaml': readers('users:read').replace('cli-readers', 'cli-half'),
      'z.yaml': deleters
        .replace('cli-no-deletes', 'cli-half-bad')
        .replace('effect: deny', 'effect: alow'),
    });
    const dryRun = await cli('policies', 'apply', dir, '--dry-run');
    expect(dryRun.code).toBe(1);
    const applied = await cli('policies', 'apply', dir, '--yes');
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('z.yaml: effect:');
    expect(applied.stderr).toContain('nothing was applied');
    expect(applied.stdout + applied.stderr).not.toContain('created');
    const listed = await cli('policies', 'apply', dir, '--dry-run', '--json');
    expect(listed.stdout).not.toContain('cli-half"');
  });

  it('passes the policy tests of examples/policies', async () => {
    const run = await cli('policies', 'test', EXAMPLES);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/13 passed, 0 failed/);
  });

  it('fails a policy test folder with a wrong expectation, naming the check and explaining it', async () => {
    const dir = await mkdtemp(join(scratch, 'examples-'));
    await cp(EXAMPLES, dir, { recursive: true });
    await writeFile(
      join(dir, 'tests', 'wrong.yaml'),
      `checks:
  - name: support grants admin
    principal: role:support
    action: users:grant
    resource: roles/admin
    expect: allow
`,
    );
    const run = await cli('policies', 'test', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'FAIL tests/wrong.yaml check #1 "support grants admin": role:support users:grant roles/admin',
    );
    expect(run.stdout).toContain('expected allow, got implicit_deny');
    expect(run.stdout).toMatch(/support-grants-viewer\s+allow\s+no\s+yes\s+yes\s+no/);
    expect(run.stdout).toContain('13 passed, 1 failed');
  });

  it("maps the server's validation errors of draft policies back to file names", async () => {
    const dir = await policyFolder({
      'a-good.yaml': readers('users:read'),
      'b-bad.yaml': `name: bad
effect: allow
principals: [role:x]
actions: [users:read]
resources: [users]
conditions: { ip: { allowlist: [not-a-cidr] } }
`,
    });
    await cp(join(EXAMPLES, 'tests'), join(dir, 'tests'), { recursive: true });
    const run = await cli('policies', 'test', dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/b-bad\.yaml: conditions\.ip\.allowlist\[0\]/);
  });
});

describe('secadmin (the built CLI) against a real server', () => {
  const cli = useServer();
  /** `logs export --wait` of the whole log into `file`. */
  const exportEverything = (file: string, ...options: string[]) =>
    cli(
      'logs',
      'export',
      '--from',
      '2020-01-01T00:00:00Z',
      '--to',
      '2100-01-01T00:00:00Z',
      ...options,
      '--wait',
      '-o',
      file,
    );
  const applyFolder = async (files: Record<string, string>) => {
    const run = await cli('policies', 'apply', await policyFolder(files), '--yes');
    expect(run.code, run.stderr).toBe(0);
  };
  /** The seq of the newest signed checkpoint, 0 when none: from the API, cheap to poll. */
  const newestCheckpoint = async () => {
    const client = createSecadminClient({ baseUrl: serverUrl(), apiKey: API_KEY });
    let newest = 0;
    for await (const checkpoint of client.paginate('/v1/logs/checkpoints', { limit: 100 }))
      newest = Math.max(newest, checkpoint.seq);
    return newest;
  };
  /** Polls `ready` until it holds; the deadline is a hang guard, not a limit. */
  const until = async (what: string, ready: () => Promise<boolean>) => {
    const deadline = Date.now() + 120_000;
    while (!(await ready())) {
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('simulate --explain prints the decision and a row per policy considered', async () => {
    await applyFolder({ 'readers.yaml': readers('users:read') });
    const run = await cli(
      'simulate',
      '--principal',
      'role:cli-reader',
      '--action',
      'users:read',
      '--resource',
      'users/user_1',
      '--explain',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('decision: allow (matched: cli-readers)');
    expect(run.stdout).toMatch(/POLICY\s+EFFECT\s+MATCHED/);
    expect(run.stdout).toMatch(/cli-readers\s+allow\s+yes\s+yes\s+yes\s+yes/);
  });

  it('logs export --wait -o downloads the completed export', async () => {
    await applyFolder({
      'export-me.yaml': readers('users:list').replace('cli-readers', 'export-me'),
    });
    const file = join(scratch, 'export.csv');
    const run = await exportEverything(file, '--format', 'csv');
    expect(run.code, run.stderr).toBe(0);
    const csv = await readFile(file, 'utf8');
    expect(csv.split('\n')[0]).toContain('event');
    expect(csv).toContain('policy.created');
  });

  /** Writes an entry (`user.created`) and waits until a checkpoint exists. */
  const checkpointed = async () => {
    const user = await cli('users', 'create', '--email', `pin-${Date.now()}@example.com`);
    expect(user.code, user.stderr).toBe(0);
    await until('a checkpoint', async () => (await newestCheckpoint()) > 0);
  };

  it('logs verify: the server chain, then a JSON export offline (exit 3 once an entry is changed)', {
    timeout: 120_000,
  }, async () => {
    await checkpointed();
    const onServer = await cli('logs', 'verify');
    expect(onServer.code, onServer.stderr).toBe(0);
    expect(onServer.stdout).toMatch(/^valid: \d+ entries checked/);

    const exported = join(scratch, 'verify-export.json');
    const material = join(scratch, 'verify-material.json');
    const exportRun = await exportEverything(exported);
    expect(exportRun.code, exportRun.stderr).toBe(0);
    expect((await cli('logs', 'checkpoints', '-o', material)).code).toBe(0);
    // Offline: no server named at all.
    const offline = (file: string) =>
      runCli('', ['logs', 'verify', '--export', file, '--material', material, '--json']);
    const valid = await offline(exported);
    expect(valid.code, valid.stderr).toBe(0);
    const verdict = JSON.parse(valid.stdout);
    const exportedEntries = JSON.parse(await readFile(exported, 'utf8')) as {
      seq: unknown;
    }[];
    expect(verdict).toMatchObject({
      valid: true,
      unsealedEntries: exportedEntries.filter((entry) => entry.seq === null).length,
    });
    // Entries after the last checkpoint (or not sealed yet when exported): --strict refuses them.
    const { publicKeyPem } = JSON.parse(await readFile(material, 'utf8'));
    const strict = await runCli('', [
      'logs',
      'verify',
      '--export',
      exported,
      '--material',
      material,
      '--public-key',
      publicKeyPem,
      '--strict',
    ]);
    expect(strict.code).toBe(verdict.uncoveredEntries + verdict.unsealedEntries > 0 ? 3 : 0);
    const hostile = join(scratch, 'verify-hostile.json');
    await writeFile(hostile, JSON.stringify([{ seq: 1 }]));
    const malformed = await offline(hostile);
    expect(malformed.code).toBe(3);
    expect(JSON.parse(malformed.stdout)).toMatchObject({
      valid: false,
      reason: 'entries[0].id is not a string',
    });

    const entries = JSON.parse(await readFile(exported, 'utf8')) as {
      seq: number | null;
      result: string;
    }[];
    const sealed = entries.filter((entry) => entry.seq !== null);
    expect(sealed.length).toBeGreaterThan(0);
    const victim = sealed[Math.floor(sealed.length / 2)] as (typeof sealed)[number];
    victim.result = victim.result === 'success' ? 'failure' : 'success';
    const tampered = join(scratch, 'verify-tampered.json');
    await writeFile(tampered, JSON.stringify(entries));
    const caught = await offline(tampered);
    expect(caught.code).toBe(3);
    expect(JSON.parse(caught.stdout)).toMatchObject({ valid: false, firstInvalidSeq: victim.seq });
  });

  it('logs verify --export: pins the key; a chain rewritten and re-signed with a fresh key fails (M5)', {
    timeout: 120_000,
  }, async () => {
    await checkpointed();
    const exported = join(scratch, 'pin-export.json');
    const material = join(scratch, 'pin-material.json');
    expect((await exportEverything(exported)).code).toBe(0);
    expect((await cli('logs', 'checkpoints', '-o', material)).code).toBe(0);
    const real = JSON.parse(await readFile(material, 'utf8')) as VerificationMaterial;
    const realKeyFile = join(scratch, 'pin-real.pem');
    await writeFile(realKeyFile, real.publicKeyPem);
    const fingerprint = await keyFingerprint(real.publicKeyPem);

    // The attack: rewrite the chain from its middle on, re-hash it, re-sign every checkpoint
    // with a fresh key and hand that key over in the material.
    const entries = (JSON.parse(await readFile(exported, 'utf8')) as ChainEntry[])
      .filter((entry) => entry.seq !== null)
      .sort((a, b) => (a.seq as number) - (b.seq as number));
    const from = Math.floor(entries.length / 2);
    for (let i = from; i < entries.length; i++) {
      const item = entries[i] as ChainEntry;
      if (i === from) item.result = item.result === 'success' ? 'failure' : 'success';
      if (i > 0) item.prevHash = (entries[i - 1] as ChainEntry).hash;
      item.hash = entryHash(item.prevHash as string, item);
    }
    const forger = generateKeyPairSync('ed25519');
    const bySeq = new Map(entries.map((entry) => [entry.seq as number, entry.hash as string]));
    const forgedCheckpoints = real.checkpoints
      .filter((checkpoint) => bySeq.has(checkpoint.seq))
      .map((checkpoint) => {
        const hash = bySeq.get(checkpoint.seq) as string;
        const message = Buffer.from(checkpointMessage(checkpoint.seq, hash));
        return {
          ...checkpoint,
          hash,
          signature: sign(null, message, forger.privateKey).toString('base64'),
        };
      });
    const forgedExport = join(scratch, 'pin-forged-export.json');
    const forgedMaterial = join(scratch, 'pin-forged-material.json');
    await writeFile(forgedExport, JSON.stringify(entries));
    await writeFile(
      forgedMaterial,
      JSON.stringify({
        checkpoints: forgedCheckpoints,
        publicKeyPem: forger.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      }),
    );
    const verifyOffline = (file: string, materialFile: string, ...options: string[]) =>
      runCli('', ['logs', 'verify', '--export', file, '--material', materialFile, ...options]);

    const unpinned = await verifyOffline(forgedExport, forgedMaterial, '--strict');
    expect(unpinned.code).toBe(3);
    expect(unpinned.stdout).toMatch(/^warning: no public key pinned/);
    for (const pin of [realKeyFile, fingerprint, real.publicKeyPem]) {
      const pinned = await verifyOffline(forgedExport, forgedMaterial, '--public-key', pin);
      expect(pinned.code, pinned.stdout).toBe(3);
      expect(pinned.stdout).toContain(
        `the pinned key ${fingerprint} is not one of the keys that sign this chain`,
      );
    }
    const fromEnvironment = await runCli(
      '',
      ['logs', 'verify', '--export', forgedExport, '--material', forgedMaterial],
      {
        SECADMIN_PUBLIC_KEY: fingerprint,
      },
    );
    expect(fromEnvironment.code).toBe(3);

    const genuine = await verifyOffline(exported, material, '--public-key', realKeyFile);
    expect(genuine.code, genuine.stdout).toBe(0);
    expect(genuine.stdout).toMatch(new RegExp(`^pinned key ${fingerprint}\nvalid: `));
    const onServer = await cli('logs', 'verify', '--public-key', fingerprint);
    expect(onServer.code, onServer.stdout).toBe(0);
    expect(onServer.stdout).toMatch(/^pinned key SHA256:[0-9a-f]{64}\nvalid: /);
    const otherServer = await cli(
      'logs',
      'verify',
      '--public-key',
      await keyFingerprint(forger.publicKey.export({ format: 'pem', type: 'spki' }).toString()),
    );
    expect(otherServer.code).toBe(3);
  });

  it('logs verify --export: an added "[redacted]" key, an unknown field, removed metadata fail; a cut-off head is reported (L2, L3)', {
    timeout: 180_000,
  }, async () => {
    // 1,000 entries make the sealer sign a checkpoint at once (not after 60 s).
    for (const part of ['a', 'b']) {
      const res = await fetch(`${serverUrl()}/v1/logs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          entries: Array.from({ length: 600 }, (_, i) => ({
            event: 'cli.shape',
            actor: { type: 'user', email: `s${part}${i}@example.com` },
            result: 'success',
            metadata: { i, part },
          })),
        }),
      });
      expect(res.status).toBe(201);
    }
    const material = join(scratch, 'shape-material.json');
    await until('the checkpoint at seq 1,000', async () => (await newestCheckpoint()) >= 1000);
    expect((await cli('logs', 'checkpoints', '-o', material)).code).toBe(0);
    const { checkpoints } = JSON.parse(await readFile(material, 'utf8')) as {
      checkpoints: { seq: number }[];
    };
    const newest = Math.max(...checkpoints.map((c) => c.seq));
    const pin = (JSON.parse(await readFile(material, 'utf8')) as { publicKeyPem: string })
      .publicKeyPem;
    expect(newest).toBeGreaterThanOrEqual(1000);
    const exported = join(scratch, 'shape-export.json');
    expect((await exportEverything(exported)).code).toBe(0);
    type Entry = { seq: number | null; metadata?: Record<string, unknown> };
    const sealed = (JSON.parse(await readFile(exported, 'utf8')) as Entry[])
      .filter((entry) => entry.seq !== null && entry.seq <= newest)
      .sort((a, b) => (a.seq as number) - (b.seq as number));
    const offline = async (entries: Entry[], ...flags: string[]) => {
      const file = join(scratch, 'shape-changed.json');
      await writeFile(file, JSON.stringify(entries));
      return runCli('', [
        'logs',
        'verify',
        '--export',
        file,
        '--material',
        material,
        '--public-key',
        pin,
        ...flags,
      ]);
    };
    const intact = await offline(sealed, '--strict');
    expect(intact.code, intact.stdout).toBe(0);

    const victim = sealed.findIndex((entry) => Object.keys(entry.metadata ?? {}).length > 0);
    const seq = sealed[victim]?.seq;
    for (const [change, reason] of [
      [
        (e: Entry) => Object.assign(e.metadata ?? {}, { approvedBy: '[redacted]' }),
        'metadata.approvedBy is not committed by a digest',
      ],
      [
        (e: Entry) => Object.assign(e, { approvedBy: 'ceo' }),
        'approvedBy is not a field of an entry',
      ],
      [(e: Entry) => delete e.metadata, `seq ${seq} shows no metadata, other entries do`],
    ] as const) {
      const changed = structuredClone(sealed);
      change(changed[victim] as Entry);
      const run = await offline(changed, '--json');
      expect(run.code, reason).toBe(3);
      expect(JSON.parse(run.stdout)).toMatchObject({ valid: false, firstInvalidSeq: seq, reason });
    }
    const stripped = structuredClone(sealed);
    for (const entry of stripped) delete entry.metadata;
    expect((await offline(stripped)).stdout).toContain('warning: no entry shows metadata');
    expect((await offline(stripped, '--strict')).code).toBe(3);

    // The newest entry cut off: only the checkpoint at its seq shows it existed.
    const cut = sealed.slice(0, -1);
    const warned = await offline(cut);
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain(
      'warning: a checkpoint shows 1 more entries after the last one given',
    );
    expect(JSON.parse((await offline(cut, '--json')).stdout).truncatedEntries).toBe(1);
    const strict = await offline(cut, '--strict');
    expect(strict.code).toBe(3);
    expect(strict.stdout).toContain('INVALID under --strict:');
    expect(strict.stdout).not.toMatch(/^valid:/m);
  });

  it('policies apply reports every problem of every file at once, a YAML error with its lines', async () => {
    const dir = await policyFolder({
      'a-both.yaml': `name: cli-both
effect: allow
principals: [role:x]
actions: ['users read']
resources: [users]
conditions: { ip: { allowlist: [10.0.0.300] } }
`,
      'b-broken.yaml': `name: cli-broken
effect: allow
principals: [role:x]
actions: [users:read
resources: [users]
`,
      'c-twice.yaml': readers('users:read').replace('cli-readers', 'cli-both'),
      'd-list.yaml': '- not\n- a policy\n',
    });
    const run = await cli('policies', 'apply', dir, '--dry-run');
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n');
    const at = (prefix: string) => lines.findIndex((line) => line.startsWith(prefix));
    expect(lines[0]).toBe('secadmin: The folder is invalid; nothing was applied.');
    // A bad pattern does not hide a bad IP.
    expect(at('  a-both.yaml: actions[0]: ')).toBeGreaterThan(0);
    expect(at('  a-both.yaml: conditions.ip.allowlist[0]: ')).toBeGreaterThan(0);
    // The YAML error ends on its excerpt, not on "at line 5, column 1:".
    const broken = at('  b-broken.yaml: ');
    expect(lines[broken]).toMatch(/at line 5, column 1:$/);
    expect(lines.slice(broken + 1, broken + 4)).toEqual([
      '      actions: [users:read',
      '      resources: [users]',
      '      ^',
    ]);
    expect(
      at('  c-twice.yaml: policy name "cli-both" is also used by a-both.yaml'),
    ).toBeGreaterThan(0);
    expect(at('  d-list.yaml: not a policy')).toBeGreaterThan(0);
    expect(
      [at('  a-both'), broken, at('  c-twice'), at('  d-list')].every(
        (n, i, all) => i === 0 || n > (all[i - 1] ?? 0),
      ),
    ).toBe(true);
  });

  it('logs verify --export --strict: a real redaction verifies; actor.email and target.id stripped with their salts fail, naming the entry and field (issue 41)', {
    timeout: 120_000,
  }, async () => {
    const post = async (path: string, body: unknown, method = 'POST') => {
      const res = await fetch(`${serverUrl()}${path}`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, path).toBeLessThan(300);
      return (res.status === 204 ? { data: undefined } : await res.json()) as {
        data: { id: string; seq: number | null } & { id: string }[];
      };
    };
    const email = `gone-${Date.now()}@example.com`;
    const user = (await post('/v1/users', { email })).data;
    await post('/v1/logs', {
      entries: [
        { event: 'cli.redact', actor: { id: user.id, email, type: 'user' }, result: 'success' },
      ],
    });
    await post(`/v1/users/${user.id}`, undefined, 'DELETE');
    // 1,000 entries make the sealer sign a checkpoint among them, past the user.deleted entry.
    const { data: filler } = await post('/v1/logs', {
      entries: Array.from({ length: 1000 }, (_, i) => ({
        event: 'cli.filler',
        actor: { type: 'user', email: `f${i}@example.com` },
        target: { type: 'doc', id: `doc-${i}` },
        result: 'success',
      })),
    });
    const firstId = filler[0]?.id as string;
    const material = join(scratch, 'redact-material.json');
    await until('a checkpoint past the filler entries', async () => {
      const fillerSeq = (await post(`/v1/logs/${firstId}`, undefined, 'GET')).data.seq ?? 0;
      return fillerSeq > 0 && (await newestCheckpoint()) >= fillerSeq;
    });
    expect((await cli('logs', 'checkpoints', '-o', material)).code).toBe(0);
    const saved = JSON.parse(await readFile(material, 'utf8')) as VerificationMaterial;
    const newest = Math.max(...saved.checkpoints.map((c) => c.seq));
    const pin = saved.publicKeyPem;
    const exported = join(scratch, 'redact-export.json');
    expect((await exportEverything(exported)).code).toBe(0);
    const file = JSON.parse(await readFile(exported, 'utf8')) as ExportedEntry[];
    expect(Array.isArray(file)).toBe(true);
    const entries = file
      .filter((entry) => entry.seq !== null && entry.seq <= newest)
      .sort((a, b) => (a.seq as number) - (b.seq as number));
    const offline = async (changed: ExportedEntry[]) => {
      const path = join(scratch, 'redact-changed.json');
      await writeFile(path, JSON.stringify(changed));
      return runCli('', [
        'logs',
        'verify',
        '--export',
        path,
        '--material',
        material,
        '--public-key',
        pin,
        '--strict',
        '--json',
      ]);
    };
    // The user's own entry was redacted by its deletion: it carries the deletion's proof,
    // verifies, and its field is counted.
    const redacted = entries.find((entry) => entry.event === 'cli.redact') as ExportedEntry;
    expect(redacted.actor.email).toBeNull();
    expect(redacted.redactionProofs?.[0]?.entry.event).toBe('user.deleted');
    const intact = await offline(entries);
    expect(intact.code, intact.stdout).toBe(0);
    expect(JSON.parse(intact.stdout).redactedFields).toBeGreaterThanOrEqual(1);
    // Only the entries before the deletion: its record comes from the proof the file carries.
    const before = entries.filter((entry) => (entry.seq as number) <= (redacted.seq as number));
    const upTo = await runCli('', [
      'logs',
      'verify',
      '--export',
      await (async () => {
        const path = join(scratch, 'redact-before.json');
        await writeFile(path, JSON.stringify(before));
        return path;
      })(),
      '--material',
      material,
      '--public-key',
      pin,
      '--json',
    ]);
    expect(JSON.parse(upTo.stdout)).toMatchObject({ valid: true });
    expect(JSON.parse(upTo.stdout).redactedFields).toBeGreaterThanOrEqual(1);
    // Without the proof it carries, the redacted email cannot be told from a stripped one.
    const withoutProof = await offline(before.map(({ redactionProofs: _, ...entry }) => entry));
    expect(withoutProof.code).toBe(3);

    // The attack: email and target id stripped with their salts from every filler entry.
    const stripped = structuredClone(entries);
    const victims = stripped.filter((entry) => entry.event === 'cli.filler');
    for (const entry of victims) {
      entry.actor.email = null;
      delete entry.target?.id;
      delete entry.salts['actor.email'];
      delete entry.salts['target.id'];
    }
    const first = victims[0] as ChainEntry;
    const caught = await offline(stripped);
    expect(caught.code).toBe(3);
    expect(JSON.parse(caught.stdout)).toMatchObject({
      valid: false,
      firstInvalidSeq: first.seq,
      reason: `actor.email of entry ${first.id} (seq ${first.seq}) is absent, and no redaction record names it`,
    });
  });

  it('users and keys: create, list, get, delete / revoke, as JSON', async () => {
    const created = await cli(
      'users',
      'create',
      '--email',
      'cli@example.com',
      '--role',
      'viewer',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    const user = JSON.parse(created.stdout) as { id: string; roles: string[] };
    expect(user.roles).toEqual(['viewer']);
    const listed = JSON.parse((await cli('users', 'list', '--role', 'viewer', '--json')).stdout);
    expect(listed).toContainEqual(expect.objectContaining({ id: user.id, active: true }));
    expect((await cli('users', 'get', user.id)).stdout).toContain('cli@example.com');
    expect((await cli('users', 'delete', user.id)).code).toBe(0);
    expect((await cli('users', 'get', user.id)).code).toBe(1);

    const key = await cli('keys', 'create', '--name', 'ci', '--principal', 'service:ci', '--json');
    expect(key.code, key.stderr).toBe(0);
    const { id, secret } = JSON.parse(key.stdout) as { id: string; secret: string };
    expect(secret).toMatch(/^sk_/);
    const keys = await cli('keys', 'list');
    expect(keys.stdout).toContain(id);
    expect(keys.stdout).not.toContain(secret);
    expect((await cli('keys', 'revoke', id)).code).toBe(0);
    expect((await cli('keys', 'list')).stdout).not.toContain(id);
  });

  it('logs tail -f prints a new entry once, as it arrives', async () => {
    await applyFolder({
      'before-tail.yaml': readers('users:read').replace('cli-readers', 'before-tail'),
    });
    const tail = spawn(
      process.execPath,
      [CLI_MAIN, 'logs', 'tail', '-n', '1', '-f', '--interval', '1', '--json'],
      { env: { ...process.env, SECADMIN_URL: serverUrl(), SECADMIN_API_KEY: API_KEY } },
    );
    let output = '';
    tail.stdout.on('data', (chunk) => {
      output += chunk;
    });
    try {
      await waitFor(() => output.length > 0); // the first page is printed: tail is polling now
      const before = output.length;
      await applyFolder({ 'tailed.yaml': readers('users:read').replace('cli-readers', 'tailed') });
      await waitFor(() => output.slice(before).includes('"policy.created"'));
      // Two more polls, each seen by the marker it prints: the entry must not come back.
      for (const marker of ['cli.tail_marker_1', 'cli.tail_marker_2']) {
        const res = await fetch(`${serverUrl()}/v1/logs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            entries: [{ event: marker, actor: { type: 'user', id: 'tail' }, result: 'success' }],
          }),
        });
        expect(res.status).toBe(201);
        await waitFor(() => output.includes(`"${marker}"`));
      }
      const created = output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: string; event: string })
        .filter((entry) => entry.event === 'policy.created');
      expect(new Set(created.map((entry) => entry.id)).size).toBe(created.length);
    } finally {
      tail.kill();
    }
  });

  it('logs stats prints buckets and facets, or the JSON answer; refuses unknown fields and intervals', async () => {
    await applyFolder({
      'stats-me.yaml': readers('users:list').replace('cli-readers', 'stats-me'),
    });
    const hour = 3_600_000;
    const range = [
      '--from',
      new Date(Date.now() - hour).toISOString(),
      '--to',
      new Date(Date.now() + hour).toISOString(),
    ];
    await searchable('policy.created');
    const query = ['--query', 'event:policy.created', '--group-by', 'event,result'];
    // Statistics read the search store, which holds an entry within 2 s of its acknowledgement.
    let json = await cli('logs', 'stats', ...range, ...query, '--json');
    while (json.code === 0 && JSON.parse(json.stdout).total === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      json = await cli('logs', 'stats', ...range, ...query, '--json');
    }
    expect(json.code, json.stderr).toBe(0);
    const stats = JSON.parse(json.stdout);
    expect(stats).toMatchObject({ interval: '1m', totalRelation: 'eq' });
    expect(stats.total).toBeGreaterThan(0);
    expect(stats.facets.event).toEqual([{ value: 'policy.created', count: stats.total }]);
    expect(stats.facets.result).toEqual([{ value: 'success', count: stats.total }]);
    const human = await cli('logs', 'stats', ...range, ...query, '--interval', '1h');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`${stats.total} entries, in buckets of 1h`);
    expect(human.stdout).toMatch(/START\s+COUNT/);
    expect(human.stdout).toMatch(/event:\nVALUE\s+COUNT\npolicy\.created\s+\d+/);
    expect(human.stdout).toContain('#');
    for (const bad of [
      ['--group-by', 'event,actor.name'],
      ['--group-by', 'event,event'],
      ['--interval', '2h'],
      ['--from', 'yesterday'],
    ]) {
      const run = await cli('logs', 'stats', ...range, ...bad);
      expect(run.code, bad.join(' ')).toBe(64);
      expect(run.stderr).toContain(bad[0]);
    }
    const missing = await cli('logs', 'stats', '--from', '2026-01-01');
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('--to');
  });

  it('logs search-index shows how far the search store holds the log, and --rebuild starts a rebuild', async () => {
    const shown = await cli('logs', 'search-index', '--json');
    expect(shown.code, shown.stderr).toBe(0);
    const index = JSON.parse(shown.stdout);
    expect(['ok', 'lagging', 'rebuilding']).toContain(index.status);
    expect(index.indexedThroughSeq).toBeLessThanOrEqual(index.sealedThroughSeq);
    const human = await cli('logs', 'search-index', '--rebuild');
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('status: rebuilding');
    expect(human.stdout).toMatch(/indexed through seq \d+ of \d+ sealed/);
  });

  it('refuses a malformed option value with exit 64 naming the option, and creates nothing', async () => {
    const rate = await cli(
      'keys',
      'create',
      '--name',
      'bad',
      '--principal',
      'service:x',
      '--rate-limit',
      'abc',
    );
    expect(rate.code).toBe(64);
    expect(rate.stderr).toContain('--rate-limit');
    expect((await cli('keys', 'list')).stdout).not.toMatch(/\bbad\b/);
    const plan = await cli(
      'keys',
      'create',
      '--name',
      'bad',
      '--principal',
      'service:x',
      '--plan',
      'gold',
    );
    expect(plan.code).toBe(64);
    expect(plan.stderr).toContain('--plan');
    const when = await cli(
      'simulate',
      '--principal',
      'role:x',
      '--action',
      'a:b',
      '--resource',
      'r',
      '--time',
      'tuesday',
    );
    expect(when.code).toBe(64);
    expect(when.stderr).toContain('--time');
    const noScheme = await runCli('localhost:3300', ['users', 'list']);
    expect(noScheme.code).toBe(64);
    expect(noScheme.stderr).toContain('must start with http:// or https://');
  });

  it('tail -n pages past one API page; simulate --time and --fail-on-deny; users update; export get and download', async () => {
    for (let i = 0; i < 3; i++)
      await applyFolder({
        [`page-${i}.yaml`]: readers('users:read').replace('cli-readers', `page-${i}`),
      });
    const many = await cli('logs', 'tail', '-n', '130', '--json');
    expect(many.code, many.stderr).toBe(0);
    const lines = many.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(100);
    expect(lines.length).toBeLessThanOrEqual(130);

    await applyFolder({
      'office-hours.yaml': `name: cli-office-hours
effect: allow
principals: [role:cli-clock]
actions: [users:read]
resources: ['users/*']
conditions: {time: {notBefore: '2026-01-01T09:00:00Z', notAfter: '2026-01-01T17:00:00Z'}}
`,
    });
    const ask = (...extra: string[]) =>
      cli(
        'simulate',
        '--principal',
        'role:cli-clock',
        '--action',
        'users:read',
        '--resource',
        'users/u',
        ...extra,
      );
    const inHours = await ask('--time', '2026-01-01T10:00:00Z', '--fail-on-deny');
    expect(inHours.code, inHours.stderr).toBe(0);
    expect(inHours.stdout).toContain('decision: allow');
    expect((await ask('--time', '2026-01-01T20:00:00Z')).code).toBe(0);
    expect((await ask('--time', '2026-01-01T20:00:00Z', '--fail-on-deny')).code).toBe(1);

    const created = JSON.parse(
      (await cli('users', 'create', '--email', 'upd@example.com', '--json')).stdout,
    );
    const updated = await cli(
      'users',
      'update',
      created.id,
      '--name',
      'Ada',
      '--role',
      'viewer',
      '--metadata',
      '{"team":"blue"}',
      '--json',
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      name: 'Ada',
      roles: ['viewer'],
      metadata: { team: 'blue' },
    });
    expect((await cli('users', 'update', created.id)).code).toBe(64);
    expect((await cli('users', 'update', created.id, '--metadata', '[1]')).code).toBe(64);
    const deactivated = await cli('users', 'update', created.id, '--active', 'false', '--json');
    expect(deactivated.code, deactivated.stderr).toBe(0);
    expect(JSON.parse(deactivated.stdout)).toMatchObject({ active: false, name: 'Ada' });
    const inactive = await cli('users', 'list', '--active', 'false', '--json');
    expect(inactive.code, inactive.stderr).toBe(0);
    expect(JSON.parse(inactive.stdout)).toEqual([
      expect.objectContaining({ id: created.id, active: false }),
    ]);
    // The table's ACTIVE column says which users are active, not only which are not.
    expect((await cli('users', 'create', '--email', 'act@example.com')).code).toBe(0);
    const table = (await cli('users', 'list')).stdout.split('\n');
    const active = table[0]?.indexOf('ACTIVE') ?? -1;
    expect(active).toBeGreaterThan(0);
    const rows = table.slice(1).filter(Boolean);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows)
      expect(row.slice(active).split(/\s+/)[0]).toBe(row.startsWith(created.id) ? 'false' : 'true');
    const unsure = await cli('users', 'update', created.id, '--active', 'no');
    expect(unsure.code).toBe(64);
    expect(unsure.stderr).toContain('--active');

    const started = JSON.parse(
      (
        await cli(
          'logs',
          'export',
          '--from',
          '2020-01-01T00:00:00Z',
          '--to',
          '2100-01-01T00:00:00Z',
          '--json',
        )
      ).stdout,
    );
    const file = join(scratch, 'later.json');
    const fetched = await cli('logs', 'export', 'download', started.exportId, '--wait', '-o', file);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8')).length).toBeGreaterThan(0);
    const shown = JSON.parse(
      (await cli('logs', 'export', 'get', started.exportId, '--json')).stdout,
    );
    expect(shown).toMatchObject({ exportId: started.exportId, status: 'completed' });
  });

  it('exits 64 on a usage error and 1 on an API error, never printing the key', async () => {
    expect((await cli('policies', 'apply')).code).toBe(64);
    expect((await cli('nonsense')).code).toBe(64);
    const missing = await cli('users', 'get', 'user_00000000000000000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('404');
    expect(missing.stderr + missing.stdout).not.toContain(API_KEY);
  });
});
