import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, startConsole } from './harness.mjs';

let app;
let bob;
before(async () => {
  app = await startConsole();
  bob = await app.client.users.create({
    email: 'bob@example.com',
    name: 'Bob',
    roles: ['support'],
  });
  await app.client.policies.create({
    name: 'support reads users',
    effect: 'allow',
    principals: ['role:support'],
    actions: ['users:read'],
    resources: ['users/*'],
  });
  await app.client.policies.create({
    name: 'nobody reads admins',
    effect: 'deny',
    principals: ['*'],
    actions: ['users:*'],
    resources: ['users/admin-*'],
  });
  await app.client.policies.create({
    name: 'office network only',
    effect: 'allow',
    principals: ['role:support'],
    actions: ['users:update'],
    resources: ['users/*'],
    conditions: { ip: { allowlist: ['10.0.0.0/8'] } },
  });
});
after(() => app?.stop());

async function fillCheck(page, n, principal, action, resource) {
  await page.getByLabel(`Principal of check ${n}`).fill(principal);
  await page.getByLabel(`Action of check ${n}`).fill(action);
  await page.getByLabel(`Resource of check ${n}`).fill(resource);
}

test('the playground explains a deny and names the policy that decided it', async () => {
  const opened = await app.open({ view: 'playground', key: app.rootKey });
  const { page } = opened;
  await fillCheck(page, 1, `user:${bob.id}`, 'users:read', 'users/admin-1');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  const decision = page.getByRole('article');
  await decision.getByRole('heading', { name: /^Denied \(explicit deny\)/ }).waitFor();
  await decision.getByText('Denied by “nobody reads admins”').waitFor();
  // The trace: the deny matched; the allow matched too, and lost.
  const trace = decision.getByRole('table', { name: /Explain trace/ });
  const denyRow = trace.getByRole('row', { name: /nobody reads admins/ });
  assert.match(await denyRow.textContent(), /deny✓ yes, decided/);
  const allowRow = trace.getByRole('row', { name: /support reads users/ });
  assert.match(await allowRow.textContent(), /allow✓ yes✓ yes/);
  assert.doesNotMatch(await allowRow.textContent(), /decided/);
  const officeRow = trace.getByRole('row', { name: /office network only/ });
  assert.match(await officeRow.textContent(), /✗ no/);
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'playground');
  await page.close();
});

test('the playground works from the keyboard alone', async () => {
  const opened = await app.open({ view: 'playground', key: app.rootKey });
  const { page } = opened;
  await page.getByLabel('Principal of check 1').focus();
  await page.keyboard.type(`user:${bob.id}`);
  await page.keyboard.press('Tab');
  await page.keyboard.type('users:read');
  await page.keyboard.press('Tab');
  await page.keyboard.type('users/u-1');
  await page.keyboard.press('Enter');
  await page.getByRole('article').getByText('Allowed by “support reads users”').waitFor();
  await page.close();
});

test('a missing context key is named; batch checks answer as a table', async () => {
  const opened = await app.open({ view: 'playground', key: app.rootKey });
  const { page } = opened;
  await fillCheck(page, 1, `user:${bob.id}`, 'users:update', 'users/u-1');
  await page.getByRole('button', { name: 'Add a check' }).click();
  await fillCheck(page, 2, `user:${bob.id}`, 'users:read', 'users/u-1');
  await page.getByRole('button', { name: 'Add a check' }).click();
  await fillCheck(page, 3, 'service:ci', 'users:read', 'users/u-1');
  await page.getByRole('button', { name: 'Check all 3' }).click();
  const results = page.getByRole('table', { name: 'Decisions' });
  await results.waitFor();
  const rows = results.getByRole('row');
  assert.equal(await rows.count(), 4);
  assert.match(await rows.nth(1).textContent(), /Denied \(no policy allows it\)/);
  assert.match(await rows.nth(2).textContent(), /Allowed/);
  assert.match(await rows.nth(3).textContent(), /Denied \(no policy allows it\)/);
  await page.getByText('The request lacked what some conditions need: ip').waitFor();
  await page.getByRole('button', { name: /^Explain check 2/ }).click();
  await page.getByText('Allowed by “support reads users”').waitFor();

  // With a context, the condition holds.
  await page.getByLabel('Context (JSON)').fill('{"ip": "10.1.2.3"}');
  await page.getByRole('button', { name: 'Check all 3' }).click();
  await page
    .getByRole('button', { name: /^Explain check 1: Allowed by “office network only”/ })
    .waitFor();
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'playground-batch');
  await page.close();
});

test('attributes reach attribute conditions; a missing one is named', async () => {
  await app.client.policies.create({
    name: 'archived records are read-only',
    effect: 'deny',
    principals: ['*'],
    actions: ['records:update'],
    resources: ['records/*'],
    conditions: { attributes: { 'resource.status': { equals: 'archived' } } },
  });
  await app.client.policies.create({
    name: 'support updates records',
    effect: 'allow',
    principals: ['role:support'],
    actions: ['records:update'],
    resources: ['records/*'],
  });
  const opened = await app.open({ view: 'playground', key: app.rootKey });
  const { page } = opened;
  await fillCheck(page, 1, `user:${bob.id}`, 'records:update', 'records/r-1');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  const decision = page.getByRole('article');
  await decision.getByText('Allowed by “support updates records”').waitFor();
  await decision
    .getByText(/^The request lacked what some conditions need: .*resource\.status/)
    .waitFor();
  await page.getByLabel('Attributes (JSON)').fill('{"resource": {"status": "archived"}}');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await decision.getByText('Denied by “archived records are read-only”').waitFor();
  const row = decision.getByRole('row', { name: /archived records are read-only/ });
  assert.match(await row.textContent(), /attributes\.resource\.status ✓ yes/);
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'playground-attributes');
  await page.close();
});

test('draft policies are tried before saving, alone or with the stored ones', async () => {
  const draft = [
    {
      name: 'ci reads users',
      effect: 'allow',
      principals: ['service:ci'],
      actions: ['users:read'],
      resources: ['users/*'],
    },
  ];
  const opened = await app.open({
    view: 'playground',
    hash: `#principal=service%3Aci&drafts=${encodeURIComponent(JSON.stringify(draft))}`,
    key: app.rootKey,
  });
  const { page } = opened;
  assert.equal(await page.getByLabel('Principal of check 1').inputValue(), 'service:ci');
  await page.getByLabel('Action of check 1').fill('users:read');
  await page.getByLabel('Resource of check 1').fill('users/admin-1');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  // The stored deny still wins over the draft's allow.
  await page.getByRole('article').getByText('Denied by “nobody reads admins”').waitFor();
  await page.getByLabel('Also evaluate the stored policies').uncheck();
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.getByRole('article').getByText('Allowed by draft 1 “ci reads users”').waitFor();
  const names = (await app.client.policies.list({ limit: 100 })).data.map((p) => p.name);
  assert.ok(!names.includes('ci reads users'), 'a draft is never stored');

  // A draft the API refuses is named at the drafts field; a check's bad principal at its input.
  await page
    .getByLabel('Draft policies (JSON array)')
    .fill(JSON.stringify([{ ...draft[0], principals: ['ci'] }]));
  await page.getByLabel('Principal of check 1').fill('ci');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  const principal = page.getByLabel('Principal of check 1');
  await page.getByText('must be `user:<id>`, `role:<id>` or `service:<name>`').waitFor();
  assert.equal(await principal.getAttribute('aria-invalid'), 'true');
  const drafts = page.getByLabel('Draft policies (JSON array)');
  assert.equal(await drafts.getAttribute('aria-invalid'), 'true');
  await page.getByText('draft 1, principals[0]: must be').waitFor();
  assert.ok(opened.refusals.includes('400 POST /v1/policies/simulate/batch'), opened.refusals);

  // Drafts that are not JSON are caught before sending.
  await drafts.fill('[{');
  const sent = opened.requests.length;
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.getByText('is not JSON').waitFor();
  assert.equal(opened.requests.length, sent);
  assert.equal(await page.getByText('draft 1, principals[0]').count(), 0, 'an old answer');
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'playground-field-errors');
  await page.close();
});

test('a key that may simulate but not read the policies learns the decision, not their names', async () => {
  const key = await app.keyFor('simulator', ['policies:simulate']);
  const opened = await app.open({ view: 'playground', key });
  const { page } = opened;
  await fillCheck(page, 1, `user:${bob.id}`, 'users:read', 'users/admin-1');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  const decision = page.getByRole('article');
  await decision.getByText('Denied by a policy this key may not read').waitFor();
  assert.equal(await page.getByText('nobody reads admins').count(), 0);
  await assertClean(opened, key);
  await page.close();
});

test('a key that may not simulate is told so', async () => {
  const key = await app.keyFor('playground-outsider', ['logs:list']);
  const opened = await app.open({ view: 'playground', key });
  const { page } = opened;
  await fillCheck(page, 1, 'service:ci', 'users:read', 'users/u-1');
  await page.getByRole('button', { name: 'Check', exact: true }).click();
  await page.getByRole('alert').getByText('This key may not simulate decisions.').waitFor();
  await page.getByText('policies:simulate').waitFor();
  await assertClean(opened, key);
  await screenshot(page, 'playground-forbidden');
  await page.close();
});
