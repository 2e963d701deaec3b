// The entry drawer's chain proof against what it must not believe: entries forged on their
// way to the browser, a stretch with an entry missing, and keys that may read only part of
// the chain. Its verdict may be invalid or incomplete then, never valid.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { entryHash } from '@secadmin/log-chain';
import { assertClean, screenshot, searchable, startConsole, TIMEOUT } from './harness.mjs';

const ENTRIES = 20;

let app;
before(async () => {
  app = await startConsole();
  await app.client.logs.ingest({
    entries: Array.from({ length: ENTRIES }, (_, i) => ({
      event: 'proof.hostile',
      actor: { type: 'user', id: `user_${i}` },
      result: 'success',
      timestamp: new Date(Date.now() - 120_000 + i * 1000).toISOString(),
      metadata: { note: i === 0 ? 'wombat first' : `filler ${i}` },
    })),
  });
  for (;;) {
    const { data } = await app.client.logs.listCheckpoints({ limit: 1 });
    if ((data[0]?.seq ?? 0) >= ENTRIES) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await searchable(app.client);
});
after(() => app?.stop());

/** Opens the `wombat` entry's drawer (after `prepare`) and waits for the proof's verdict. */
async function openWombat(key, prepare) {
  const opened = await app.open({ key, view: 'logs#q=wombat', remember: true });
  await prepare?.(opened.page);
  await opened.page.reload();
  const list = opened.page.getByRole('list', { name: 'Matching entries' });
  await list.getByRole('button').first().click();
  const drawer = opened.page.getByRole('dialog');
  await drawer.getByText(/^Proof (valid|invalid|incomplete)$/).waitFor({ timeout: TIMEOUT });
  return { opened, text: await drawer.textContent() };
}

async function keyFor(name, rules) {
  for (const [i, rule] of rules.entries())
    await app.client.policies.create({
      name: `${name} ${i}`,
      effect: 'allow',
      principals: [`service:${name}`],
      ...rule,
    });
  const { secret } = await app.client.apiKeys.create({
    name,
    principal: `service:${name}`,
    plan: 'enterprise',
    rateLimitPerMinute: 100_000,
  });
  return secret;
}

const browsing = { actions: ['logs:list', 'logs:search', 'logs:verify'], resources: ['*'] };

test('a key that may read every entry (logs:read on logs/*) gets the whole proof', async () => {
  const reader = await keyFor('star-reader', [
    browsing,
    { actions: ['logs:read'], resources: ['logs/*'] },
  ]);
  const { opened, text } = await openWombat(reader);
  assert.match(text, /Proof valid/);
  assert.match(text, /recomputed in this browser, chain its hash/);
  await assertClean(opened, reader);
  await opened.page.close();
});

test('a key that may read only this entry is told the link cannot be checked: incomplete', async () => {
  const { data } = await app.client.logs.search({ query: 'wombat' });
  const id = data[0].id;
  const reader = await keyFor('one-reader', [
    browsing,
    { actions: ['logs:read'], resources: [`logs/${id}`] },
  ]);
  const { opened, text } = await openWombat(reader);
  assert.match(text, /Proof incomplete/);
  assert.match(text, /may not read every entry between this one and the checkpoint/);
  assert.doesNotMatch(text, /needs the logs:verify right/);
  await screenshot(opened.page, 'audit-log-entry-proof-incomplete');
  await assertClean(opened, reader);
  await opened.page.close();
});

/**
 * What a hostile server (or anything between it and the browser) can do: the entry and its
 * stretch rewritten on their way, with the entry's hash recomputed over what it now says, and
 * with `withheld` the place after it of an entry of the stretch left out.
 */
async function openForged(withheld) {
  let targetId;
  const forge = (entry) => {
    const forged = { ...entry, event: 'proof.forged' };
    return { ...forged, hash: entryHash(entry.prevHash, forged) };
  };
  return openWombat(app.rootKey, async (page) => {
    await page.route(/\/v1\/logs\/(chain\?|log_)/, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      if (new URL(route.request().url()).pathname.startsWith('/v1/logs/log_')) {
        targetId = body.data.id;
        body.data = forge(body.data);
      } else {
        const at = body.data.findIndex((entry) => entry.id === targetId);
        body.data = body.data
          .map((entry) => (entry.id === targetId ? forge(entry) : entry))
          .filter((_, i) => withheld === undefined || at < 0 || i !== at + withheld);
      }
      await route.fulfill({ response, json: body });
    });
  });
}

test('an entry forged on its way to the browser, one of its stretch withheld: never valid', async () => {
  const { opened, text } = await openForged(3);
  assert.match(text, /proof\.forged/);
  assert.match(text, /Proof incomplete/);
  assert.match(text, /has no entry to recompute/);
  await opened.page.close();
});

test('the same forged entry with its whole stretch: the signed checkpoint gives it away', async () => {
  const { opened, text } = await openForged(undefined);
  assert.match(text, /proof\.forged/);
  assert.match(text, /Proof invalid/);
  assert.match(text, /Recomputed in this browser, the chain breaks at seq/);
  await opened.page.close();
});
