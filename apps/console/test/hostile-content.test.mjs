// Entries are written by whoever holds a key with logs:write: their text is shown as text,
// never read as HTML, and an address naming no entry or a forged one shows an answer, not a crash.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, searchable, startConsole } from './harness.mjs';

const HOSTILE =
  '<img src="/console/assets/x.png" onerror="document.title=1"><b>bold</b> &amp; zebra';

let app;
before(async () => {
  app = await startConsole();
  const acks = await app.client.logs.ingest({
    entries: [
      {
        event: 'user.login',
        actor: { type: 'user', id: '<script>alert(1)</script>', email: 'eve@example.com' },
        result: 'success',
        timestamp: new Date(Date.now() - 60_000).toISOString(),
        metadata: { note: HOSTILE, '<i>key</i>': 'zebra too' },
      },
    ],
  });
  await searchable(
    app.client,
    acks.map((ack) => ack.id),
  );
});
after(() => app?.stop());

test('HTML in an entry is shown as text in hits, highlights and the drawer', async () => {
  const opened = await app.open({ key: app.rootKey, view: 'logs#q=zebra' });
  const { page } = opened;
  const list = page.getByRole('list', { name: 'Matching entries' });
  await list.locator('mark', { hasText: 'zebra' }).first().waitFor();
  assert.equal(await list.locator('img, b, script, i').count(), 0);
  assert.ok((await list.textContent()).includes('<b>bold</b> &amp; zebra'));
  await list.getByRole('button').first().click();
  const drawer = page.getByRole('dialog');
  await drawer.getByText('<script>alert(1)</script>', { exact: false }).first().waitFor();
  assert.equal(await drawer.locator('img, b, script, i').count(), 0);
  assert.notEqual(await page.title(), '1');
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('an address naming a forged or unknown entry says so', async () => {
  for (const [entry, says] of [
    ['log_00000000000000000000000000', /Could not read this entry/],
    ['../../v1/users', /Could not read this entry/],
  ]) {
    const opened = await app.open({
      key: app.rootKey,
      view: `logs#q=zebra&entry=${encodeURIComponent(entry)}`,
    });
    const alert = opened.page.getByRole('dialog').getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), says);
    assert.ok(
      opened.refusals.every((r) => /^40[04] GET \/v1\/logs\//.test(r)),
      opened.refusals.join(),
    );
    await assertClean(opened, app.rootKey);
    await opened.page.close();
  }
});
