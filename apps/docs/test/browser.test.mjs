// The reference as a reader gets it: the real server, a headless Chromium, the page it serves.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
const OUTPUT = fileURLToPath(new URL('../test-results/', import.meta.url));
const spec = JSON.parse(
  readFileSync(new URL('../../../spec/dist/openapi.json', import.meta.url), 'utf8'),
);
const operations = Object.values(spec.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => method !== 'parameters')
    .map(([, operation]) => operation),
);
const TIMEOUT = 60_000; // two loaded cores: generous
/**
 * The server creates and migrates its embedded database first, while every package's tests
 * start at once on the same two cores: a clean-clone CI run once took 60 s to get there.
 */
const START_TIMEOUT = 180_000;

let server;
let context;
let url;
const dataDir = mkdtempSync(join(tmpdir(), 'secadmin-docs-data-'));
const profileDir = mkdtempSync(join(tmpdir(), 'secadmin-docs-chromium-'));

before(async () => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  ({ server, url } = await startServer());
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

after(async () => {
  await context?.close();
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(profileDir, { recursive: true, force: true });
});

/** A page of the reference, and every console error and failed request it had. */
async function openReference(hash = '') {
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  await page.goto(`${url}/docs${hash}`, { waitUntil: 'load', timeout: TIMEOUT });
  await page.getByRole('link', { name: 'Policies', exact: true }).first().waitFor();
  return { page, problems };
}

test('the menu lists every operation of the spec', async () => {
  const { page, problems } = await openReference();
  // A tag's operations show in the menu once it is opened; opening one may close another.
  const menu = [];
  for (const tag of spec.tags) {
    await page.getByRole('link', { name: tag.name, exact: true }).first().click();
    menu.push(
      ...(await page.$$eval('a[href^="#/"]', (links) =>
        links.map((link) => ({ href: link.getAttribute('href'), text: link.textContent })),
      )),
    );
  }
  for (const operation of operations) {
    const id = operation.operationId.toLowerCase();
    assert.ok(
      menu.some((item) => item.href.endsWith(`/${id}`) && item.text.includes(operation.summary)),
      `${operation.operationId} ("${operation.summary}") is not in the menu`,
    );
  }
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, 'reference.png'), fullPage: false });
  assert.deepEqual(problems, []);
  await page.close();
});

test('search finds the simulator', async () => {
  const { page, problems } = await openReference();
  await page.keyboard.press('Control+k');
  const input = page.getByPlaceholder('Search docs...');
  await input.fill('simulate');
  await page.getByText('Simulate an access decision').last().waitFor();
  await page.screenshot({ path: join(OUTPUT, 'search.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a deep link of the former Redoc form opens its operation', async () => {
  const { page, problems } = await openReference('#tag/Policies/operation/simulatePolicy');
  await page.waitForURL(/#\/policies\/simulatepolicy$/, { timeout: TIMEOUT });
  const heading = page.getByRole('heading', { name: 'Simulate an access decision' }).first();
  await heading.waitFor();
  const box = await heading.boundingBox();
  const viewport = page.viewportSize();
  assert.ok(box && box.y >= 0 && box.y < viewport.height, `heading at ${JSON.stringify(box)}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an operation shows who may call it, its TypeScript sample with this address, and an answer matching its request', async () => {
  const { page, problems } = await openReference('#/policies/simulatepolicy');
  await page.getByRole('heading', { name: 'Simulate an access decision' }).first().waitFor();
  const access = page.getByText('Access: Requires policies:simulate on policies.', { exact: true });
  await access.waitFor();
  const code = (text) => codeBlock(page, text);
  // The curl sample, then the TypeScript one: choosing a language applies to every sample.
  await code(`curl -X POST '${url}/v1/policies/simulate'`).waitFor();
  await page.getByRole('button', { name: 'curl', exact: true }).first().click();
  await page.getByText('TypeScript', { exact: true }).first().click();
  const typescript = code('client.policies.simulate(');
  await typescript.scrollIntoViewIfNeeded();
  await typescript.waitFor();
  assert.ok(await typescript.isVisible());
  const sample = await typescript.textContent();
  assert.match(sample, /import \{ createSecadminClient \} from '@secadmin\/api-client'/);
  assert.ok(sample.includes(`baseUrl: '${url}'`), sample);
  // The request example sends `explain: true`; its answer shows the explanation.
  const answer = code('"explanation"');
  await answer.scrollIntoViewIfNeeded();
  await answer.waitFor();
  assert.match(await answer.textContent(), /"missingContextKeys"/);
  await page.screenshot({ path: join(OUTPUT, 'simulate.png') });
  assert.ok(!(await page.locator('#redoc').textContent()).includes('localhost:3000'));
  // The two other forms of `x-secadmin-access`.
  for (const [hash, sentence] of [
    ['#/system/gethealth', 'Access: Public: no API key.'],
    ['#/exports/downloadexport', 'Access: Authorized by the signed token in the URL: no API key.'],
  ]) {
    await page.goto(`${url}/docs${hash}`);
    await page.getByText(sentence, { exact: true }).first().waitFor();
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the landing page starts with a quickstart at this address, and its links open in a new tab', async () => {
  const { page, problems } = await openReference();
  const quickstart = page.getByRole('heading', { name: 'Quickstart' }).first();
  await quickstart.waitFor();
  const typescript = codeBlock(page, 'createSecadminClient({');
  await typescript.waitFor();
  assert.ok((await typescript.textContent()).includes(`baseUrl: '${url}'`));
  assert.ok((await codeBlock(page, 'curl -H').textContent()).includes(`${url}/v1/users`));
  // What "open in a new tab" does: a fresh page at the link's own address.
  const href = await page
    .getByRole('link', { name: 'Conventions', exact: true })
    .first()
    .getAttribute('href');
  const tab = await context.newPage();
  tab.setDefaultTimeout(TIMEOUT);
  const response = await tab.goto(new URL(href, page.url()).href, { waitUntil: 'load' });
  assert.equal(response.status(), 200, `${href} answered ${response.status()}`);
  // The section itself, scrolled to the top of the window.
  await tab.waitForFunction(() =>
    [...document.querySelectorAll('h1, h2')].some((h) => {
      const { top } = h.getBoundingClientRect();
      return h.textContent.trim() === 'Conventions' && top >= 0 && top < window.innerHeight / 2;
    }),
  );
  await tab.screenshot({ path: join(OUTPUT, 'new-tab.png') });
  await tab.close();
  assert.deepEqual(problems, []);
  await page.close();
});

test('before its script runs, the page has no link that leads to a 404', async () => {
  // What a reader can open while the page's script is still loading, or without JavaScript.
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
  const response = await page.goto(`${url}/docs`, { waitUntil: 'load' });
  assert.equal(response.status(), 200);
  const links = await page.$$eval('a[href]', (as) => as.map((a) => a.href));
  const own = [...new Set(links.filter((href) => new URL(href).origin === new URL(url).origin))];
  for (const href of own) {
    const response = await page.request.get(href);
    assert.equal(response.status(), 200, `${href} answered ${response.status()}`);
  }
  await page.close();
});

/**
 * The first shown code block that contains `text` (highlighted: the text spans elements). Read
 * it with textContent: Redoc skips rendering what is off screen, which empties innerText.
 */
function codeBlock(page, text) {
  return page.locator('pre').filter({ hasText: text, visible: true }).first();
}

async function startServer() {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: '',
      LOG_LEVEL: 'info',
      SECADMIN_DATA_DIR: dataDir,
      SECADMIN_METRICS_PORT: '0', // no metrics listener: its fixed port may be taken
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  const started = Date.now();
  for (;;) {
    const line = output.split('\n').find((l) => l.includes('"secadmin listening"'));
    if (line) return { server: child, url: JSON.parse(line).url.replace('localhost', '127.0.0.1') };
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    if (Date.now() - started > START_TIMEOUT) throw new Error(`server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
