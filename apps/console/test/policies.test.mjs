import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, startConsole } from './harness.mjs';

let app;
let policy;
before(async () => {
  app = await startConsole();
  policy = await app.client.policies.create({
    name: 'auditors read the log',
    description: 'Security auditors may read and search the audit log.',
    effect: 'allow',
    principals: ['role:security-auditor'],
    actions: ['logs:list', 'logs:search'],
    resources: ['logs'],
  });
});
after(() => app?.stop());

test('the list leads to a policy, its detail shows every field', async () => {
  const opened = await app.open({ view: 'policies', key: app.rootKey });
  const { page } = opened;
  await page.getByRole('link', { name: 'auditors read the log' }).click();
  await page.waitForURL(/#id=pol_/);
  await page.getByRole('heading', { name: 'auditors read the log', exact: true }).waitFor();
  await page.getByText('role:security-auditor').waitFor();
  await page.getByText('Security auditors may read and search').waitFor();
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'policy-detail');
  await page.getByRole('link', { name: 'All policies' }).click();
  await page.getByRole('table').waitFor();
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'policies');
  await page.close();
});

test('an edit with a bad field shows the API error at that field and changes nothing', async () => {
  const opened = await app.open({
    view: 'policies',
    hash: `#id=${policy.id}&edit=1`,
    key: app.rootKey,
  });
  const { page } = opened;
  const principals = page.getByLabel('Principals');
  await principals.fill('role:security-auditor\nnobody here');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('“nobody here” must be `*`, `user:${self}`').waitFor();
  assert.equal(await principals.getAttribute('aria-invalid'), 'true');
  const described = await principals.getAttribute('aria-describedby');
  const message = await page.locator(`[id="${described.split(' ').at(-1)}"]`).textContent();
  assert.match(message, /must be `\*`/);
  assert.ok(opened.refusals.includes(`400 PATCH /v1/policies/${policy.id}`), opened.refusals);
  // Only the field shows it: no second list of the same problem under the form.
  assert.equal(await page.getByText('must be `*`').count(), 1);
  assert.deepEqual((await app.client.policies.get(policy.id)).principals, [
    'role:security-auditor',
  ]);
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'policy-edit-error');

  // Conditions that are not JSON are caught at their field before anything is sent.
  await principals.fill('role:security-auditor');
  const conditions = page.getByLabel('Conditions (JSON)');
  await conditions.fill('{"ip": ');
  const sent = opened.requests.length;
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('is not JSON').waitFor();
  assert.equal(await conditions.getAttribute('aria-invalid'), 'true');
  assert.equal(opened.requests.length, sent);

  // A condition the API refuses is shown at the conditions field too.
  await conditions.fill('{"ip": {"allowlist": ["10.0.0.0/33"]}}');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('must be an IPv4 or IPv6 address or CIDR block').waitFor();
  assert.equal(await conditions.getAttribute('aria-invalid'), 'true');

  await conditions.fill('{"ip": {"allowlist": ["10.0.0.0/8"]}}');
  await page.getByLabel('Description').fill('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('heading', { name: 'auditors read the log', exact: true }).waitFor();
  await page.locator('pre.json').getByText('"10.0.0.0/8"').waitFor();
  const saved = await app.client.policies.get(policy.id);
  assert.deepEqual(saved.conditions, { ip: { allowlist: ['10.0.0.0/8'] } });
  assert.equal(saved.description, undefined);
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a policy changed since the editor opened is not overwritten', async () => {
  const opened = await app.open({
    view: 'policies',
    hash: `#id=${policy.id}&edit=1`,
    key: app.rootKey,
  });
  const { page } = opened;
  await page.getByLabel('Name').waitFor();
  await app.client.policies.update(policy.id, { description: 'changed meanwhile' });
  await page.getByLabel('Name').fill('renamed in the console');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('alert').getByText('Could not save the policy').waitFor();
  assert.ok(opened.refusals.includes(`412 PATCH /v1/policies/${policy.id}`), opened.refusals);
  assert.equal((await app.client.policies.get(policy.id)).name, 'auditors read the log');
  await page.close();
});

test('a new policy is created from the form; a draft goes to the playground unsaved', async () => {
  const opened = await app.open({ view: 'policies', key: app.rootKey });
  const { page } = opened;
  await page.getByRole('button', { name: 'New policy' }).click();
  await page.getByLabel('Name').fill('support may read users');
  await page.getByLabel('Principals').fill('role:support');
  await page.getByLabel('Actions').fill('users:read');
  await page.getByLabel('Resources').fill('users/*');
  await page.getByRole('button', { name: 'Try as a draft in the playground' }).click();
  await page.waitForURL(/\/console\/playground#drafts=/);
  assert.match(
    await page.getByLabel('Draft policies (JSON array)').inputValue(),
    /support may read users/,
  );
  const stored = await app.client.policies.list({ limit: 100 });
  assert.ok(!stored.data.some((p) => p.name === 'support may read users'), 'a draft is not saved');
  await page.goBack();
  await page.getByLabel('Name').fill('support may read users');
  await page.getByLabel('Principals').fill('role:support');
  await page.getByLabel('Actions').fill('users:read');
  await page.getByLabel('Resources').fill('users/*');
  await page.getByRole('button', { name: 'Create policy' }).click();
  await page.getByRole('heading', { name: 'support may read users', exact: true }).waitFor();
  assert.match(page.url(), /#id=pol_/);
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a key without the rights sees what it may not do, not a crash', async () => {
  const key = await app.keyFor('policies-outsider', ['logs:list']);
  const opened = await app.open({ view: 'policies', key });
  const { page } = opened;
  await page.getByRole('alert').getByText('This key may not list policies.').waitFor();
  await page.getByText('policies:list').waitFor();
  await assertClean(opened, key);
  await screenshot(page, 'policies-forbidden');
  await page.close();

  // May read, may not update: the save says so, and the form stays.
  const reader = await app.keyFor('policies-reader', ['policies:list', 'policies:read']);
  const editing = await app.open({
    view: 'policies',
    hash: `#id=${policy.id}&edit=1`,
    key: reader,
  });
  await editing.page.getByLabel('Description').fill('not allowed');
  await editing.page.getByRole('button', { name: 'Save changes' }).click();
  await editing.page.getByRole('alert').getByText('This key may not save the policy.').waitFor();
  assert.equal(await editing.page.getByLabel('Description').inputValue(), 'not allowed');
  await assertClean(editing, reader);
  await editing.page.close();
});

test('a forged id in the address reaches only that policy, and says it is not there', async () => {
  const opened = await app.open({ view: 'policies', hash: '#id=..%2Fapi-keys', key: app.rootKey });
  const { page } = opened;
  await page.getByRole('alert').getByText('Could not read policy ../api-keys').waitFor();
  assert.ok(
    opened.requests.every((u) => !new URL(u).pathname.startsWith('/v1/api-keys')),
    opened.requests.join('\n'),
  );
  assert.deepEqual(
    opened.refusals.filter((r) => r.includes('/v1/policies/')).map((r) => r.split(' ')[0]),
    ['404'],
  );
  await assertClean(opened, app.rootKey);
  await page.close();
});
