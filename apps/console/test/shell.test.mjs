import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, signIn, startConsole } from './harness.mjs';

let app;
before(async () => {
  app = await startConsole();
});
after(() => app?.stop());

test('the page loads with a strict CSP, compressed, revalidated; its files cached for good', async () => {
  const page = await fetch(`${app.url}/console`, { headers: { 'accept-encoding': 'br' } });
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-encoding'), 'br');
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  const csp = page.headers.get('content-security-policy');
  for (const directive of [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ])
    assert.ok(csp.split('; ').includes(directive), `${directive} in ${csp}`);
  assert.equal(page.headers.get('set-cookie'), null);
  const html = await page.text();
  const script = html.match(/src="(\/console\/assets\/[^"]+\.js)"/)?.[1];
  assert.ok(script, html);
  assert.ok(!/<script>|style=/.test(html), 'nothing inline');
  const asset = await fetch(app.url + script, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(asset.status, 200);
  assert.equal(asset.headers.get('content-encoding'), 'gzip');
  assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.match(asset.headers.get('content-type'), /^text\/javascript/);
  // A view's address is the same page; an unknown file is a 404.
  const view = await fetch(`${app.url}/console/logs`);
  assert.equal(view.status, 200);
  assert.match(view.headers.get('content-type'), /^text\/html/);
  assert.equal((await fetch(`${app.url}/console/assets/nothing-here.js`)).status, 404);
  assert.equal((await fetch(`${app.url}/console/assets/..%2Fsecret.js`)).status, 400);
});

test('signing in keeps the key out of every URL and of localStorage; signing out forgets it', async () => {
  const opened = await app.open();
  const { page } = opened;
  await screenshot(page, 'sign-in');
  // A key that is not a key is refused at its field, before anything is sent.
  await page.getByLabel('API key').fill('not a key');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('An API key starts with sk_').waitFor();
  await signIn(page, app.rootKey);
  assert.match(new URL(page.url()).pathname, /^\/console\/logs$/);
  // Focus goes to the view's content, not back to the page's start.
  await page.waitForFunction(() => document.activeElement?.id === 'main');
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await assertClean(opened, app.rootKey);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('API key').waitFor();
  await page.reload();
  await page.getByLabel('API key').waitFor();
  await page.close();
});

test('"remember in this tab" keeps the key in sessionStorage only, until sign-out', async () => {
  const opened = await app.open({ key: app.rootKey, remember: true });
  const { page } = opened;
  await page.reload();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  await assertClean(opened, app.rootKey);
  await page.getByRole('button', { name: 'Sign out' }).click();
  assert.equal(await page.evaluate(() => sessionStorage.length), 0);
  await page.close();
});

test("what a key reads stays out of the browser's HTTP cache, which outlives the tab and sign-out", async () => {
  await app.client.logs.ingest({
    entries: [
      { event: 'user.login', actor: { type: 'user', id: 'cached-or-not' }, result: 'success' },
    ],
  });
  const opened = await app.open({ key: app.rootKey });
  const { page } = opened;
  await page.getByRole('list', { name: 'Matching entries' }).getByText('cached-or-not').waitFor();
  const reads = opened.requests.filter((url) => new URL(url).pathname.startsWith('/v1/'));
  assert.ok(reads.length > 0, 'the console read the API');
  // `only-if-cached` answers from the cache, fresh or stale, and fails when nothing is kept.
  const cached = await page.evaluate(
    (urls) =>
      Promise.all(
        urls.map((url) =>
          fetch(url, { cache: 'only-if-cached', mode: 'same-origin' }).then(
            (response) => `${response.status} ${url}`,
            () => undefined,
          ),
        ),
      ),
    reads,
  );
  assert.deepEqual(cached.filter(Boolean), []);
  await page.close();
});

test('an unknown key is refused with a message; an unknown view says so', async () => {
  const opened = await app.open({ view: 'nowhere' });
  const { page } = opened;
  await page.getByLabel('API key').fill(`sk_${'x'.repeat(43)}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').getByText('This key is not accepted').waitFor();
  assert.deepEqual(opened.refusals, ['401 GET /v1/logs']);
  await signIn(page, app.rootKey);
  await page.getByRole('heading', { name: 'No such view' }).waitFor();
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('the menu reaches every view by keyboard', async () => {
  const opened = await app.open({ key: app.rootKey });
  const { page } = opened;
  await page.getByRole('link', { name: 'Exports' }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/console\/exports$/);
  assert.equal(
    await page.getByRole('link', { name: 'Exports' }).getAttribute('aria-current'),
    'page',
  );
  await assertClean(opened, app.rootKey);
  await page.close();
});
