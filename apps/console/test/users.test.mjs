import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, startConsole } from './harness.mjs';

let app;
let ada;
before(async () => {
  app = await startConsole();
  ada = await app.client.users.create({
    email: 'Ada@Example.com',
    name: 'Ada Lovelace',
    roles: ['security-auditor', 'support'],
    // Long enough to overflow a box that scrolls (axe then wants it reachable by keyboard).
    metadata: {
      department: 'security',
      location: 'London',
      notes: Array.from({ length: 40 }, (_, i) => `note ${i} ${'x'.repeat(200)}`),
    },
  });
  await app.client.users.create({ email: 'grace@example.com', name: 'Grace Hopper' });
  await app.client.apiKeys.create({ name: 'ada laptop', principal: `user:${ada.id}` });
  await app.client.apiKeys.create({ name: 'ci deployer', principal: 'service:ci' });
});
after(() => app?.stop());

test('a user is found by email; the detail shows roles, metadata and the user’s keys', async () => {
  const opened = await app.open({ view: 'users', key: app.rootKey });
  const { page } = opened;
  await page.getByRole('link', { name: 'grace@example.com' }).waitFor();
  await page.getByLabel('Email').fill('ada@example.COM');
  await page.keyboard.press('Enter');
  await page.waitForURL(/#email=ada%40example.COM$/);
  const table = page.getByRole('table');
  await table.getByRole('link', { name: 'Ada@Example.com' }).waitFor();
  assert.equal(await table.getByRole('row').count(), 2, 'only the user with that email');
  await screenshot(page, 'users');
  await table.getByRole('link', { name: 'Ada@Example.com' }).click();
  await page.waitForURL(new RegExp(`#id=${ada.id}$`));
  await page.getByRole('heading', { name: 'Ada Lovelace <Ada@Example.com>' }).waitFor();
  await page.getByText('security-auditor').waitFor();
  await page.getByText('"department": "security"').waitFor();
  const keys = page.getByRole('region', { name: 'API keys' });
  await keys.getByRole('row', { name: /ada laptop/ }).waitFor();
  assert.equal(await keys.getByText('ci deployer').count(), 0, 'another principal’s key');
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'user-detail');
  await page.getByRole('link', { name: /Check this user's access/ }).click();
  await page.waitForURL(/\/console\/playground#principal=/);
  assert.equal(await page.getByLabel('Principal of check 1').inputValue(), `user:${ada.id}`);
  await page.close();
});

test('an email nobody has says so', async () => {
  const opened = await app.open({
    view: 'users',
    hash: '#email=nobody%40example.com',
    key: app.rootKey,
  });
  const { page } = opened;
  await page.getByText('No user has the email nobody@example.com.').waitFor();
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a key without the rights sees what it may not do, on the list and on a user', async () => {
  const key = await app.keyFor('users-outsider', ['logs:list']);
  const opened = await app.open({ view: 'users', key });
  const { page } = opened;
  await page.getByRole('alert').getByText('This key may not list users.').waitFor();
  await page.getByText('users:list').waitFor();
  await assertClean(opened, key);
  await screenshot(page, 'users-forbidden');
  await page.close();

  // May read the user, may not list keys: the user shows, the keys section says why it is empty.
  const reader = await app.keyFor('users-reader', ['users:read']);
  const detail = await app.open({ view: 'users', hash: `#id=${ada.id}`, key: reader });
  await detail.page.getByRole('heading', { name: /Ada Lovelace/ }).waitFor();
  await detail.page.getByRole('alert').getByText('This key may not list API keys.').waitFor();
  await assertClean(detail, reader);
  await detail.page.close();
});
