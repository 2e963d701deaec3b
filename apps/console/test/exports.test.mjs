// The exports view: the range and the search come from the audit log, the progress shows, the
// file downloads and holds the search's hits; a key without logs:export is told so.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, searchable, startConsole } from './harness.mjs';

let app;
before(async () => {
  app = await startConsole();
  const now = Date.now();
  const acks = await app.client.logs.ingest({
    entries: Array.from({ length: 30 }, (_, i) => ({
      event: i % 3 === 0 ? 'user.deleted' : 'user.login',
      actor: { type: 'user', id: `user_${i}`, email: `person${i}@example.com` },
      result: 'success',
      timestamp: new Date(now - (i + 1) * 60_000).toISOString(),
    })),
  });
  await searchable(
    app.client,
    acks.map((ack) => ack.id),
  );
});
after(() => app?.stop());

test('"Export this search" carries the search and its range; the export holds its hits and downloads as CSV', async () => {
  // A range that ends well after the test: the default one ends at the next whole minute, which
  // the export's own entry, written a few seconds later, may already be past.
  const minute = 60_000;
  const to = new Date(Math.ceil(Date.now() / minute) * minute + 60 * minute).toISOString();
  const from = new Date(Date.parse(to) - 26 * 60 * minute).toISOString();
  const opened = await app.open({ key: app.rootKey, view: `logs#q=deleted&from=${from}&to=${to}` });
  const { page } = opened;
  await page.getByRole('list', { name: 'Matching entries' }).locator('mark').first().waitFor();
  const range = new URLSearchParams(new URL(page.url()).hash.slice(1));
  await page.getByRole('link', { name: 'Export this search' }).click();
  await page.getByRole('heading', { name: 'Exports' }).waitFor();
  const shown = async (label) => new Date(`${await page.getByLabel(label).inputValue()}Z`);
  assert.equal((await shown('From (UTC)')).toISOString(), range.get('from'));
  assert.equal((await shown('To (UTC, excluded)')).toISOString(), range.get('to'));
  assert.equal(
    await page.getByLabel('Search (empty: every entry of the range)').inputValue(),
    'deleted',
  );
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const download = page.getByRole('button', { name: /^Download exp_[a-z0-9]+\.csv$/ });
  await download.waitFor();
  assert.match(await page.getByRole('status').textContent(), /Done: \d+ entries/);
  await screenshot(page, 'exports');
  const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
  const csv = readFileSync(await file.path(), 'utf8');
  assert.match(csv, /^id,timestamp,event,/);
  // The header and the 10 user.deleted entries of the 30 ingested: only the search's hits (the
  // export's own entry, though in the range, is never in its own file).
  const lines = csv.trim().split('\n');
  assert.equal(lines.length, 11);
  assert.ok(lines.slice(1).every((line) => line.includes(',user.deleted,')));
  const exportId = file.suggestedFilename().replace(/\.csv$/, '');
  assert.match(exportId, /^exp_[a-z0-9]+$/);
  assert.ok(
    !csv
      .split('\n')
      .some((line) => line.includes(',logs.export.created,') && line.includes(exportId)),
  );
  assert.ok(!opened.requests.some((url) => url.includes('token=') && url === page.url()));
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a range the API refuses shows its problem at the field', async () => {
  const opened = await app.open({
    key: app.rootKey,
    view: 'exports#from=2026-11-21T00:00:00.000Z&to=2026-11-20T00:00:00.000Z',
  });
  const { page } = opened;
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const from = page.getByLabel('From (UTC)');
  await page.getByText('must be before to').waitFor();
  assert.equal(await from.getAttribute('aria-invalid'), 'true');
  const describedBy = await from.getAttribute('aria-describedby');
  assert.equal(await page.locator(`[id="${describedBy}"]`).textContent(), 'must be before to');
  assert.deepEqual(opened.refusals, ['400 POST /v1/logs/export']);
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a search the API cannot parse shows its problem at the search field', async () => {
  const opened = await app.open({
    key: app.rootKey,
    view: 'exports#from=2026-11-20T00:00:00.000Z&to=2026-11-21T00:00:00.000Z&q=%22unclosed',
  });
  const { page } = opened;
  const search = page.getByLabel('Search (empty: every entry of the range)');
  assert.equal(await search.inputValue(), '"unclosed');
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  await page.locator('.field-error').waitFor();
  assert.equal(await search.getAttribute('aria-invalid'), 'true');
  const describedBy = await search.getAttribute('aria-describedby');
  assert.match(await page.locator(`[id="${describedBy}"]`).textContent(), /character|quote/i);
  assert.deepEqual(opened.refusals, ['400 POST /v1/logs/export']);
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a key without logs:export is told so', async () => {
  const key = await app.keyFor('no-export', ['logs:list']);
  const opened = await app.open({
    key,
    view: 'exports#from=2026-11-20T00:00:00.000Z&to=2026-11-21T00:00:00.000Z',
  });
  const { page } = opened;
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'This key may not export the log' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /logs:export/);
  assert.deepEqual(opened.refusals, ['403 POST /v1/logs/export']);
  await screenshot(page, 'exports-forbidden');
  await assertClean(opened, key);
  await page.close();
});
