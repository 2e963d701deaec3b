// Every view on a phone (390 × 844) and on a wide screen (1440 × 900): nothing wider than the
// screen (no sideways scroll of the page), no serious accessibility violation, a screenshot of
// each; on the phone the menu is behind a button, and the entry drawer's Close button is on
// the screen.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, searchable, startConsole } from './harness.mjs';

const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1440, height: 900 };
/** Each view and its label in the menu (the page's title starts with it). */
const VIEWS = [
  ['logs', 'Audit log'],
  ['exports', 'Exports'],
  ['policies', 'Policies'],
  ['playground', 'Playground'],
  ['users', 'Users'],
  ['api-keys', 'API keys'],
  ['log-streams', 'Log streams'],
];

let app;
before(async () => {
  app = await startConsole();
  // Long values that do not break by themselves: an address, ids, a user agent.
  const long = 'a-rather-long-identifier-that-does-not-break-by-itself-0123456789';
  const acks = await app.client.logs.ingest({
    entries: Array.from({ length: 20 }, (_, i) => ({
      event: `document.${long.replaceAll('-', '_')}`,
      actor: { type: 'user', id: `${long}_${i}`, email: `${long}@example.com` },
      target: { type: 'document', id: `${long}/${i}` },
      context: { ip: '2001:db8:85a3:1234:5678:8a2e:370:7334', userAgent: `Mozilla/5.0 ${long}` },
      result: i % 3 === 0 ? 'failure' : 'success',
      metadata: { note: `${long} phone` },
    })),
  });
  await searchable(
    app.client,
    acks.map((ack) => ack.id),
  );
  await app.client.users.create({ email: `${long}@example.com`, name: 'Phone Tester' });
  await app.keyFor(`phone-${long}`.slice(0, 60), ['logs:list']);
});
after(() => app?.stop());

/** How much wider than the screen the page is, in CSS pixels (0: it fits). */
const overflow = (page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function viewAt(size, view) {
  const opened = await app.open({
    key: app.rootKey,
    view: view === 'logs' ? 'logs#q=phone' : view,
  });
  const { page } = opened;
  await page.setViewportSize(size);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForLoadState('networkidle');
  return opened;
}

for (const [name, size] of [
  ['phone', PHONE],
  ['wide', WIDE],
])
  test(`every view fits a ${name} screen (${size.width} px) and is clean`, async () => {
    // One page for all views: the menu's links change the view as a person does.
    const opened = await viewAt(size, 'logs');
    const { page } = opened;
    for (const [view, label] of VIEWS) {
      if (view !== 'logs') {
        await page.evaluate((path) => {
          window.history.pushState(null, '', `/console/${path}`);
          window.dispatchEvent(new PopStateEvent('popstate'));
        }, view);
        await page.waitForFunction((title) => document.title.startsWith(title), label);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
      }
      await screenshot(page, `${name}-${view}`);
      assert.equal(await overflow(page), 0, `${view} is wider than ${size.width} px`);
      await assertClean(opened, app.rootKey);
    }
    await page.close();
  });

test('on a phone the menu is behind a button that opens and closes it, and choosing a view closes it', async () => {
  const opened = await viewAt(PHONE, 'logs');
  const { page } = opened;
  const menu = page.getByRole('button', { name: 'Menu' });
  const views = page.getByRole('navigation', { name: 'Views' });
  assert.equal(await menu.getAttribute('aria-expanded'), 'false');
  assert.equal(await views.isVisible(), false);
  await menu.focus();
  await page.keyboard.press('Enter');
  await views.getByRole('link', { name: 'Users' }).waitFor();
  assert.equal(await menu.getAttribute('aria-expanded'), 'true');
  await screenshot(page, 'phone-menu');
  await assertClean(opened, app.rootKey);
  await views.getByRole('link', { name: 'Users' }).click();
  await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
  assert.equal(await views.isVisible(), false);
  await page.close();
});

test('on a phone the entry drawer fills the screen and its Close button is on it', async () => {
  const opened = await viewAt(PHONE, 'logs');
  const { page } = opened;
  await page.getByRole('list', { name: 'Matching entries' }).getByRole('button').first().click();
  const drawer = page.getByRole('dialog');
  await drawer.getByRole('heading', { name: 'Chain proof' }).waitFor();
  const close = drawer.getByRole('button', { name: 'Close entry' });
  const box = await close.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, JSON.stringify(box));
  assert.equal(await overflow(page), 0);
  await screenshot(page, 'phone-entry');
  await assertClean(opened, app.rootKey);
  await close.click();
  await page.close();
});
