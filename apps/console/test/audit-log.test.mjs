// The audit log view over ten thousand ingested entries: search with highlights, the histogram
// and facets, the entry drawer's chain proof (valid, then invalid once a row is altered), keys
// without the rights a part needs, and the first load's size. How fast a search is over many
// entries is measured by `pnpm bench` (the search and log stats rows), not here.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, searchable, startConsole, TIMEOUT } from './harness.mjs';

const ENTRIES = 10_000;
const BATCH = 1_000;
/** Words that only some entries hold: one entry in a thousand, each word in turn. */
const RARE = ['zanzibar', 'quokka', 'ocelot', 'axolotl'];
const EVENTS = ['user.login', 'user.logout', 'user.updated', 'policy.updated', 'document.read'];
const HOURS = 20;

let app;
before(async () => {
  app = await startConsole();
  await ingest(app.client, Date.now());
  await sealed(app.client, ENTRIES);
  await searchable(app.client);
});
after(() => app?.stop());

/** Waits until a checkpoint covers `count` entries: the server's work of ingest is done. */
async function sealed(client, count) {
  for (;;) {
    const { data } = await client.logs.listCheckpoints({ limit: 1 });
    if ((data[0]?.seq ?? 0) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `ENTRIES` entries over the last `HOURS` hours, in batches of `BATCH`, two requests at a time. */
async function ingest(client, now) {
  const batches = Array.from({ length: ENTRIES / BATCH }, (_, b) => b);
  const send = async () => {
    for (let b = batches.shift(); b !== undefined; b = batches.shift()) {
      const entries = Array.from({ length: BATCH }, (_, j) => entry(b * BATCH + j, now));
      await client.logs.ingest({ entries });
    }
  };
  await Promise.all([send(), send()]);
}

/** The rare word entry `i` holds, if any. */
const rareOf = (i) => (i % 1000 === 7 ? RARE[Math.floor(i / 1000) % RARE.length] : undefined);

function entry(i, now) {
  const person = i % 500;
  const rare = rareOf(i);
  return {
    event: rare ? 'user.deleted' : EVENTS[i % EVENTS.length],
    actor: { type: 'user', id: `user_${person}`, email: `person${person}@example.com` },
    target: { type: 'user', id: `user_${(person * 7) % 500}` },
    context: { ip: `203.0.113.${i % 250}`, userAgent: 'Mozilla/5.0 console-test' },
    result: i % 7 === 0 ? 'failure' : 'success',
    timestamp: new Date(now - 60_000 - Math.floor((i * HOURS * 3_600_000) / ENTRIES)).toISOString(),
    metadata: { note: rare ? `offboarding ${rare}` : `routine ${i % 97}` },
  };
}

/** Searches `word` in the page and waits for its hits, their count and their histogram. */
async function search(page, word) {
  const expected = Array.from({ length: ENTRIES }, (_, i) => rareOf(i)).filter(
    (rare) => rare === word,
  ).length;
  await page.getByLabel('Search', { exact: true }).fill(word);
  await page.getByLabel('Search', { exact: true }).press('Enter');
  const list = page.getByRole('list', { name: 'Matching entries' });
  await list.locator('mark', { hasText: word }).first().waitFor();
  await page.locator('.summary', { hasText: new RegExp(`^${expected} match`) }).waitFor();
  await page
    .locator('figure.histogram figcaption', { hasText: `${expected} matching entries` })
    .waitFor();
  return expected;
}

test('first load is within 300 KB of JS and CSS; a search shows its hits highlighted, their count and histogram', async () => {
  const opened = await app.open();
  const { page } = opened;
  // A first visit: nothing from the browser's cache.
  const devtools = await page.context().newCDPSession(page);
  await devtools.send('Network.setCacheDisabled', { cacheDisabled: true });
  const sizes = [];
  page.on('response', (response) => {
    if (!/\.(js|css)$/.test(new URL(response.url()).pathname)) return;
    sizes.push(
      response.allHeaders().then((headers) => {
        assert.match(headers['content-encoding'], /^(br|gzip)$/, response.url());
        return Number(headers['content-length']);
      }),
    );
  });
  await page.reload({ waitUntil: 'load' });
  await page.getByLabel('API key').fill(app.rootKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Audit log' }).waitFor();
  await page.getByRole('group', { name: 'Matches over time' }).waitFor();
  const firstLoad = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  assert.ok(firstLoad > 0 && firstLoad <= 300 * 1024, `${firstLoad} bytes`);

  for (const word of RARE) assert.ok((await search(page, word)) > 0, word);
  // The last search, "axolotl": its bars span the hours the entries were written over.
  const histogram = page.locator('figure.histogram');
  assert.ok((await histogram.getByRole('button').count()) >= HOURS);
  assert.match(page.url(), /#q=axolotl&from=/);
  await screenshot(page, 'audit-log-search');
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('a search the API cannot parse says where, at the search box, and shows no count of matches', async () => {
  const opened = await app.open({ key: app.rootKey, view: 'logs' });
  const { page } = opened;
  const box = page.getByLabel('Search', { exact: true });
  await box.fill('login "unclosed');
  await box.press('Enter');
  await page.locator('.field-error').waitFor();
  assert.equal(await box.getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator('.field-error').textContent(), /character \d+/);
  assert.equal(await page.locator('figure.histogram').count(), 0);
  assert.equal(await page.getByText(/matching entries|No entry matches/).count(), 0);
  await screenshot(page, 'audit-log-query-error');
  await page.close();
});

test('a facet adds its qualifier; a bar zooms into its bucket; the address can be shared', async () => {
  const opened = await app.open({ key: app.rootKey });
  const { page } = opened;
  await page.getByRole('group', { name: 'Matches over time' }).waitFor();
  await page.getByRole('button', { name: /^Add result:\s*failure\s+[\d,]+$/ }).click();
  await page.waitForURL(/#q=result%3Afailure&/);
  assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'result:failure');
  await page.locator('.summary', { hasText: /matches/ }).waitFor();
  // Every seventh entry failed.
  const failed = Math.ceil(ENTRIES / 7).toLocaleString('en');
  await page.locator('figure.histogram figcaption', { hasText: `${failed} matching` }).waitFor();

  // Zoom into the last non-empty bar, by keyboard: End, then Enter.
  const bars = page.getByRole('group', { name: 'Matches over time' }).getByRole('button');
  await bars.first().focus();
  await page.keyboard.press('End');
  const label = await page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  const [, from, to] = label.match(/from (\S+ \S+) to (\S+ \S+)$/);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) =>
    url.hash.includes(encodeURIComponent(`${from.replace(' ', 'T')}Z`)),
  );
  assert.ok(page.url().includes(encodeURIComponent(`${to.replace(' ', 'T')}Z`)), page.url());

  // The same address in a new tab (signed in there too) shows the same search.
  const shared = page.url().split('/console/')[1];
  const again = await app.open({ view: shared, key: app.rootKey });
  assert.equal(
    await again.page.getByLabel('Search', { exact: true }).inputValue(),
    'result:failure',
  );
  await assertClean(again, app.rootKey);
  await again.page.close();
  await assertClean(opened, app.rootKey);
  await page.close();
});

/**
 * Signs in with the root key (remembered in the tab, so that a reload keeps the session),
 * searches `query` and opens its `nth` hit with the keyboard; waits for a valid proof.
 */
async function openHit(query, nth = 0) {
  const opened = await app.open({ key: app.rootKey, view: `logs#q=${query}`, remember: true });
  const { page } = opened;
  const hits = page.getByRole('list', { name: 'Matching entries' }).getByRole('button');
  await hits.nth(nth).focus();
  // Focus by the keyboard, as a person moves it: then the ring shows (:focus-visible). It is
  // drawn inside the row: the list's scrolling box would cut one outside it.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  const ring = await hits.nth(nth).evaluate((hit) => {
    const style = getComputedStyle(hit);
    return { style: style.outlineStyle, offset: Number.parseFloat(style.outlineOffset) };
  });
  assert.notEqual(ring.style, 'none');
  assert.ok(ring.offset < 0, `outline-offset ${ring.offset}`);
  await page.keyboard.press('Enter');
  const drawer = page.getByRole('dialog');
  await drawer.getByText('Proof valid', { exact: true }).waitFor({ timeout: TIMEOUT });
  await page.waitForURL(/&entry=log_/);
  return { opened, page, drawer };
}

/**
 * Waits for the drawer's verdict "Proof invalid"; on a timeout, keeps a screenshot named
 * `failedShot` of what the page showed instead.
 */
async function untilProofInvalid(page, drawer, failedShot) {
  await drawer
    .getByText('Proof invalid', { exact: true })
    .waitFor()
    .catch(async (error) => {
      await screenshot(page, failedShot);
      throw error;
    });
}

/** What an attacker with the database would do: flip an entry's result. */
const FLIP_RESULT = `UPDATE log_entries SET result = CASE result WHEN 'success' THEN 'failure' ELSE 'success' END`;

test("an entry's proof is checked in the browser: valid, then invalid once its row is altered", async () => {
  const { opened, page, drawer } = await openHit('zanzibar');
  const id = new URL(page.url()).hash.match(/entry=(log_[a-z0-9]+)/)[1];
  assert.match(await drawer.textContent(), /Sealed at seq \d+/);
  assert.match(await drawer.textContent(), /Covered by checkpoint \d+/);
  await screenshot(page, 'audit-log-entry');
  await assertClean(opened, app.rootKey);
  await page.keyboard.press('Escape');
  await page.waitForURL((url) => !url.hash.includes('entry='));

  const altered = await app.sql(`${FLIP_RESULT} WHERE id = $1`, [id]);
  assert.equal(altered.rowCount, 1);
  await page.goBack(); // the entry's address again: the drawer opens again
  // Its proof may show the verdict kept from before, or already the one checked again.
  await drawer.getByRole('heading', { name: 'Chain proof' }).waitFor();
  await page.reload(); // nothing kept from before the change
  await page.waitForURL(new RegExp(`entry=${id}`));
  await untilProofInvalid(page, drawer, 'audit-log-entry-invalid-failed');
  assert.match(await drawer.textContent(), /Recomputed in this browser, it does not match/);
  await screenshot(page, 'audit-log-entry-invalid');
  await assertClean(opened, app.rootKey);
  await page.close();
});

test('the link to the checkpoint is recomputed in the browser: an entry altered after this one breaks it', async () => {
  // The first hit that a checkpoint does not sign itself (the link is then the entry's own hash).
  let hit;
  let seq;
  for (let nth = 0; seq === undefined; nth++) {
    hit = await openHit('quokka', nth);
    const text = await hit.drawer.textContent();
    const at = Number(text.match(/Sealed at seq (\d+)/)[1]);
    if (Number(text.match(/Covered by checkpoint (\d+)/)[1]) > at) {
      seq = at;
      assert.match(text, /entries after it, recomputed in this browser, chain its hash/);
    } else await hit.page.close();
  }
  const { opened, page, drawer } = hit;
  await screenshot(page, 'audit-log-entry-link');

  // Not this entry but the next one in the chain: only the link to the checkpoint shows it.
  const flip = `${FLIP_RESULT} WHERE id = (SELECT entry_id FROM log_chain WHERE seq = $1)`;
  assert.equal((await app.sql(flip, [seq + 1])).rowCount, 1);
  try {
    await page.reload();
    await untilProofInvalid(page, drawer, 'audit-log-entry-link-broken-failed');
    const broken = await drawer.textContent();
    assert.match(broken, /Sealed at seq \d+/);
    assert.match(
      broken,
      new RegExp(`Recomputed in this browser, the chain breaks at seq ${seq + 1}`),
    );
    await screenshot(page, 'audit-log-entry-link-broken');
    await assertClean(opened, app.rootKey);
  } finally {
    await app.sql(flip, [seq + 1]);
  }
  await page.close();
});

test('a key without logs:search is told so, and a key without logs:verify sees seq and hash', async () => {
  const lister = await app.keyFor('lister', ['logs:list', 'logs:read']);
  const opened = await app.open({ key: lister, view: 'logs#q=zanzibar' });
  const { page } = opened;
  const alert = page.getByRole('alert').filter({ hasText: 'This key may not search the log' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /logs:search/);
  assert.ok(opened.refusals.includes('403 POST /v1/logs/search'), opened.refusals.join());
  await screenshot(page, 'audit-log-forbidden');
  await assertClean(opened, lister);
  await page.close();

  const searcher = await app.keyFor('searcher', ['logs:list', 'logs:read', 'logs:search']);
  const second = await app.open({ key: searcher, view: 'logs#q=quokka' });
  await second.page
    .getByRole('list', { name: 'Matching entries' })
    .getByRole('button')
    .first()
    .click();
  const drawer = second.page.getByRole('dialog');
  await drawer.getByText('The proof needs the logs:verify right').waitFor();
  assert.match(await drawer.textContent(), /Seq\d+/);
  assert.match(await drawer.textContent(), /Hash[0-9a-f]{64}/);
  await screenshot(second.page, 'audit-log-entry-without-verify');
  await assertClean(second, searcher);
  await second.page.close();
});

test("a fresh entry's proof is pending, never invalid, and turns valid by itself once a checkpoint covers it", async () => {
  // After the last checkpoint (at the 10,000th entry): no checkpoint covers it for up to a minute.
  const [fresh] = await app.client.logs.ingest({
    entries: [
      {
        event: 'document.read',
        actor: { type: 'user', id: 'user_fresh' },
        result: 'success',
        metadata: { note: 'wallaby' },
      },
    ],
  });
  await searchable(app.client, [fresh.id]);
  const opened = await app.open({ key: app.rootKey, view: `logs#q=wallaby&entry=${fresh.id}` });
  const { page } = opened;
  const drawer = page.getByRole('dialog');
  await drawer.getByText('Proof pending', { exact: true }).waitFor({ timeout: TIMEOUT });
  const text = await drawer.textContent();
  assert.doesNotMatch(text, /Proof invalid/);
  assert.match(
    text,
    /No signed checkpoint covers this seq yet.*due by \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC/,
  );
  await screenshot(page, 'audit-log-entry-pending');
  await assertClean(opened, app.rootKey);

  // A thousand more entries make the next checkpoint; the open drawer checks again by itself.
  const { data } = await app.client.logs.listCheckpoints({ limit: 1 });
  await app.client.logs.ingest({
    entries: Array.from({ length: 1000 }, (_, i) => ({
      event: 'document.read',
      actor: { type: 'user', id: `user_fill_${i}` },
      result: 'success',
    })),
  });
  await sealed(app.client, (data[0]?.seq ?? 0) + 1000);
  await drawer.getByText('Proof valid', { exact: true }).waitFor({ timeout: TIMEOUT });
  assert.match(await drawer.textContent(), /Covered by checkpoint \d+/);
  await page.close();
});

test("an honest entry a user's deletion redacted is never shown as invalid", async () => {
  const carol = await app.client.users.create({ email: 'carol@example.com', name: 'Carol' });
  // Carol's entries and what follows them up to the next checkpoint, in one batch.
  await app.client.logs.ingest({
    entries: Array.from({ length: 1000 }, (_, i) =>
      i < 3
        ? {
            event: 'document.read',
            actor: { type: 'user', id: carol.id, email: 'carol@example.com' },
            result: 'success',
            metadata: { note: 'numbat' },
          }
        : {
            event: 'document.read',
            actor: { type: 'user', id: `user_after_${i}` },
            result: 'success',
          },
    ),
  });
  const { data } = await app.client.logs.listCheckpoints({ limit: 1 });
  await sealed(app.client, (data[0]?.seq ?? 0) + 1000);
  await app.client.users.delete(carol.id);
  await searchable(app.client);
  const opened = await app.open({ key: app.rootKey, view: 'logs#q=numbat' });
  const { page } = opened;
  const hits = page.getByRole('list', { name: 'Matching entries' }).getByRole('button');
  await hits.last().click();
  const drawer = page.getByRole('dialog');
  await drawer.getByText('Proof incomplete', { exact: true }).waitFor({ timeout: TIMEOUT });
  const text = await drawer.textContent();
  assert.doesNotMatch(text, /Proof invalid/);
  assert.match(text, /fields removed by a user’s deletion/);
  await screenshot(page, 'audit-log-entry-redacted');
  await assertClean(opened, app.rootKey);
  await page.close();
});
