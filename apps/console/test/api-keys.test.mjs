import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createSecadminClient } from '@secadmin/api-client';
import { assertClean, screenshot, startConsole } from './harness.mjs';

let app;
before(async () => {
  app = await startConsole();
});
after(() => app?.stop());

test('a new key’s secret is shown once, then kept nowhere: not in the page, storage or a URL', async () => {
  const opened = await app.open({ view: 'api-keys', key: app.rootKey, remember: true });
  const { page } = opened;
  await page.getByLabel('Name').fill('ci deployer');
  await page.getByLabel('Principal').fill('service:ci');
  await page.getByLabel('Plan').selectOption('pro');
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Key “ci deployer” created' });
  await dialog.waitFor();
  const secret = await dialog.getByLabel(/^Secret of key_/).inputValue();
  assert.match(secret, /^sk_[A-Za-z0-9_-]{43}$/);
  // The keyboard is in the dialog (a modal), on the secret, selected for copying.
  assert.equal(
    await page.evaluate(
      () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id,
    ),
    await dialog.getByLabel(/^Secret of key_/).getAttribute('id'),
  );
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'api-key-secret');
  await dialog.getByRole('button', { name: 'Done, I have stored it' }).click();
  await page.locator('dialog').waitFor({ state: 'detached' });
  await page.getByRole('row', { name: /ci deployer/ }).waitFor();

  assert.ok(!(await pageText(page)).includes(secret), 'the secret is still in the page');
  const stored = await page.evaluate(() =>
    JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }),
  );
  assert.ok(!stored.includes(secret), 'the secret is in browser storage');
  assert.ok(stored.includes(app.rootKey), 'the signed-in key is remembered, as asked');
  assert.ok(!page.url().includes(secret) && !opened.requests.some((u) => u.includes(secret)));
  // The secret works: it is the key just made.
  const made = createSecadminClient({ baseUrl: app.url, apiKey: secret });
  await assert.rejects(made.users.list(), (error) => error.status === 403);
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'api-keys');
  await page.close();
});

test('Escape closes the dialog and forgets the secret too', async () => {
  const opened = await app.open({ view: 'api-keys', key: app.rootKey });
  const { page } = opened;
  await page.getByLabel('Name').fill('escape hatch');
  await page.getByLabel('Principal').fill('service:escape');
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog');
  const secret = await dialog.getByLabel(/^Secret of key_/).inputValue();
  await page.keyboard.press('Escape');
  // A closed <dialog> is hidden, so out of the accessibility tree, a moment before the console
  // removes it (and the secret with it) from the document: wait for the element to go.
  await page.locator('dialog').waitFor({ state: 'detached' });
  assert.ok(!(await pageText(page)).includes(secret));
  await page.close();
});

test('a key is revoked after a confirmation, and stops working', async () => {
  const victim = await app.client.apiKeys.create({ name: 'to revoke', principal: 'service:old' });
  const opened = await app.open({ view: 'api-keys', key: app.rootKey });
  const { page } = opened;
  await page.getByRole('button', { name: 'Revoke to revoke' }).click();
  await page.getByRole('button', { name: 'Revoke now' }).click();
  await page.getByRole('row', { name: /to revoke/ }).waitFor({ state: 'detached' });
  const revoked = createSecadminClient({ baseUrl: app.url, apiKey: victim.secret });
  await assert.rejects(revoked.users.list(), (error) => error.status === 401);
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('bad fields are shown at their inputs; a key cannot widen its rights', async () => {
  const opened = await app.open({ view: 'api-keys', key: app.rootKey });
  const { page } = opened;
  await page.getByLabel('Name').fill('bad');
  await page.getByLabel('Principal').fill('nobody');
  await page.getByLabel('Plan').selectOption('enterprise');
  await page.getByLabel('Requests per minute').fill('ten');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('must be a whole number of requests per minute').waitFor();
  await page.getByLabel('Requests per minute').fill('0');
  await page.getByRole('button', { name: 'Create key' }).click();
  const principal = page.getByLabel('Principal');
  await page.getByText('must be `user:`, `role:` or `service:` followed by an id').waitFor();
  assert.equal(await principal.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.getByLabel('Requests per minute').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(opened.refusals, ['400 POST /v1/api-keys']);
  await assertClean(opened, app.rootKey);
  await page.close();

  // A key that may create keys, for another principal: the API's 403, as a message.
  const maker = await app.keyFor('key-maker', ['apikeys:list', 'apikeys:create']);
  const asMaker = await app.open({ view: 'api-keys', key: maker });
  await asMaker.page.getByLabel('Name').fill('escalate');
  await asMaker.page.getByLabel('Principal').fill('service:someone-else');
  await asMaker.page.getByRole('button', { name: 'Create key' }).click();
  await asMaker.page.getByRole('alert').getByText('This key may not create API keys.').waitFor();
  assert.equal(await asMaker.page.getByRole('dialog').count(), 0);
  const all = await app.client.apiKeys.list({ limit: 100 });
  assert.ok(!all.data.some((k) => k.name === 'escalate'));
  await assertClean(asMaker, maker);
  await asMaker.page.close();
});

test('a key that may not list keys is told so', async () => {
  const key = await app.keyFor('keys-outsider', ['logs:list']);
  const opened = await app.open({ view: 'api-keys', key });
  const { page } = opened;
  await page.getByRole('alert').getByText('This key may not list API keys.').waitFor();
  await page.getByText('apikeys:list').waitFor();
  await assertClean(opened, key);
  await screenshot(page, 'api-keys-forbidden');
  await page.close();
});

/** The page's markup and the values of its inputs (a value typed or set is not in the markup). */
function pageText(page) {
  return page.evaluate(
    () =>
      document.documentElement.outerHTML +
      [...document.querySelectorAll('input, textarea')].map((input) => input.value).join('\n'),
  );
}
