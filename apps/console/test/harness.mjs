// The console as a person gets it: the real built server on its own PostgreSQL database, a
// headless Chromium (Debian's, through playwright-core), the page the server serves. Each test
// file starts one server and one browser: `const console = await startConsole()`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSecadminClient } from '@secadmin/api-client';
import { createScratchDatabase, testPostgres, useMemoryTmpdir } from '@secadmin/test-infra';
import pg from 'pg';
import { chromium } from 'playwright-core';

useMemoryTmpdir();

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));
export const OUTPUT = fileURLToPath(new URL('../test-results/', import.meta.url));
/** Two loaded cores: generous waits; budgets are measured, not waited for. */
export const TIMEOUT = 60_000;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Starts the server (its own database, a root key of the test's) and a browser. Answers the
 * server's address, a client with the root key, `sql` on the server's database (to alter rows
 * as an attacker would), `keyFor` (a key allowed only the given actions), `open` (a console
 * page, signed in or not) and `stop`. `env` adds server settings
 * (`SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS` for a receiver on this machine).
 */
export async function startConsole({ env = {} } = {}) {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const postgres = await testPostgres();
  const database = await createScratchDatabase(postgres.url, 'secadmin_console');
  const dataDir = mkdtempSync(join(tmpdir(), 'secadmin-console-data-'));
  const profileDir = mkdtempSync(join(tmpdir(), 'secadmin-console-chromium-'));
  const rootKey = `sk_${randomBytes(32).toString('base64url')}`;
  const { server, url } = await startServer({
    DATABASE_URL: database.url,
    SECADMIN_DATA_DIR: dataDir,
    SECADMIN_ADMIN_API_KEY: rootKey,
    ...env,
  });
  const browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const db = new pg.Pool({ connectionString: database.url, max: 2 });
  const client = createSecadminClient({ baseUrl: url, apiKey: rootKey, timeout: TIMEOUT });

  return {
    url,
    rootKey,
    client,
    browser,
    sql: (text, values) => db.query(text, values),
    /** A key of `service:<name>` allowed exactly `actions` on every resource. */
    async keyFor(name, actions) {
      await client.policies.create({
        name: `console test ${name}`,
        effect: 'allow',
        principals: [`service:${name}`],
        actions,
        resources: ['*'],
      });
      const key = await client.apiKeys.create({
        name,
        principal: `service:${name}`,
        plan: 'enterprise',
        rateLimitPerMinute: 100000,
      });
      return key.secret;
    },
    open: (options) => openConsole(browser, url, options),
    async stop() {
      await browser.close().catch(() => {});
      await db.end();
      if (server.exitCode === null) {
        server.kill('SIGTERM');
        await new Promise((resolve) => server.once('exit', resolve));
      }
      await database.drop();
      await postgres.release();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(profileDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until search and statistics see every entry sealed so far, `ids` among them once sealed:
 * the analytics store they read follows the sealed log within seconds
 * (`GET /v1/logs/search-index`).
 */
export async function searchable(client, ids = []) {
  const started = Date.now();
  const waitOrFail = async (what) => {
    if (Date.now() - started > TIMEOUT) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  };
  for (const id of ids)
    while ((await client.logs.get(id)).seq === null) await waitOrFail(`entry ${id} to be sealed`);
  const { sealedThroughSeq } = await client.logs.getSearchIndex();
  while ((await client.logs.getSearchIndex()).indexedThroughSeq < sealedThroughSeq)
    await waitOrFail(`the search store to hold seq ${sealedThroughSeq}`);
}

async function startServer(env) {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      REDIS_URL: '',
      LOG_LEVEL: 'info',
      SECADMIN_METRICS_PORT: '0',
      ...env,
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
    if (Date.now() - started > TIMEOUT) throw new Error(`server did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A console page at `/console/<view><hash>`, signed in with `key` when given. `problems` collects
 * console errors, page errors, failed requests (not those the page aborts itself) and 5xx
 * answers; `refusals` the 4xx answers
 * (`403 POST /v1/logs/search`: a test expecting one asserts it; Chromium's own console line for
 * them is no problem); `foreign` every request to another origin; `requests` every URL the page
 * asked for (to look for the key in them).
 */
async function openConsole(browser, url, { view = '', hash = '', key, remember = false } = {}) {
  const page = await browser.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const origin = new URL(url).origin;
  const problems = [];
  const refusals = [];
  const foreign = [];
  const requests = [];
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() !== 'error') return;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(text)) return;
    problems.push(`console: ${text}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => {
    const reason = request.failure()?.errorText ?? '';
    // The page's own abort of a request whose answer it no longer needs (a newer search).
    if (reason === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.url()} ${reason}`);
  });
  page.on('request', (request) => {
    requests.push(request.url());
    if (new URL(request.url()).origin !== origin) foreign.push(request.url());
  });
  page.on('response', (response) => {
    const status = response.status();
    const path = new URL(response.url()).pathname;
    if (status >= 500) problems.push(`${status}: ${response.url()}`);
    else if (status >= 400) refusals.push(`${status} ${response.request().method()} ${path}`);
  });
  await page.goto(`${url}/console/${view}${hash}`, { waitUntil: 'load', timeout: TIMEOUT });
  if (key) await signIn(page, key, remember);
  return { page, problems, refusals, foreign, requests };
}

export async function signIn(page, key, remember = false) {
  await page.getByLabel('API key').fill(key);
  if (remember) await page.getByLabel(/Remember in this tab/).check();
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousViolations(page) {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => (await globalThis.axe.run()).violations);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target).join(', ')}`);
}

export async function screenshot(page, name) {
  mkdirSync(OUTPUT, { recursive: true });
  await page.screenshot({ path: join(OUTPUT, `${name}.png`), fullPage: false });
}

/**
 * What every view must show: no console error, failed request or 5xx, nothing from another
 * origin, no serious accessibility violation, no key in any URL or in localStorage.
 */
export async function assertClean({ page, problems, foreign, requests }, key) {
  assert.deepEqual(await seriousViolations(page), []);
  assert.deepEqual(problems, []);
  assert.deepEqual(foreign, []);
  if (key) {
    assert.ok(!requests.some((u) => u.includes(key)), 'the key is in a requested URL');
    assert.ok(!page.url().includes(key), 'the key is in the address');
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    assert.ok(!stored.includes(key), 'the key is in localStorage');
  }
}
