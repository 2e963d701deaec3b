import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, test } from 'node:test';
import { assertClean, screenshot, startConsole } from './harness.mjs';

// A receiver on this machine (the server, not the browser, talks to it): `/ok` takes every
// message, `/down` answers 503.
let receiver;
let app;
let siem;
let broken;
before(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.statusCode = request.url === '/ok' ? 204 : 503;
      response.end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${receiver.address().port}`;
  app = await startConsole({
    env: {
      SECADMIN_STREAM_ALLOW_PRIVATE_NETWORKS: '1',
      SECADMIN_STREAM_RETRY_BASE_MS: '200',
      SECADMIN_STREAM_RETRY_MAX_MS: '1000',
    },
  });
  const create = (name, path) =>
    app.client.logStreams.create({
      name,
      destination: { type: 'webhook', url: `${base}${path}` },
      startAt: 'earliest',
    });
  siem = await create('siem', '/ok');
  broken = await create('broken receiver', '/down');
});
after(async () => {
  await app?.stop();
  receiver?.close();
});

test('the list shows each stream’s status and lag; a stream shows its deliveries and last error', async () => {
  const opened = await app.open({ view: 'log-streams', key: app.rootKey });
  const { page } = opened;
  const list = page.getByRole('table');
  await list.getByRole('row', { name: /siem/ }).waitFor();
  await list.getByRole('row', { name: /broken receiver/ }).waitFor();
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'log-streams');

  await list.getByRole('link', { name: 'broken receiver' }).click();
  await page.waitForURL(new RegExp(`#id=${broken.id}$`));
  // The stream fails on its own, in the background; the view asks again until it shows.
  await page
    .getByRole('definition')
    .getByText(/HTTP 503/)
    .waitFor();
  const deliveries = page.getByRole('region', { name: 'Deliveries' });
  await deliveries.getByRole('row', { name: /503/ }).first().waitFor();
  await page.getByRole('button', { name: 'Send a test message' }).click();
  await page.getByText('The test message was not delivered (HTTP 503)').waitFor();
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'log-stream-failing');
  await page.close();
});

test('pause, resume, replay and a test message, each from its button', async () => {
  const opened = await app.open({ view: 'log-streams', hash: `#id=${siem.id}`, key: app.rootKey });
  const { page } = opened;
  const deliveries = page.getByRole('region', { name: 'Deliveries' });
  await deliveries.getByRole('row', { name: /204/ }).first().waitFor();
  const status = page.getByRole('definition').locator('.badge');

  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('button', { name: 'Resume' }).waitFor();
  assert.equal(await status.textContent(), 'paused');
  assert.equal((await app.client.logStreams.get(siem.id)).status, 'paused');
  await page.getByRole('button', { name: 'Resume' }).click();
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  assert.equal((await app.client.logStreams.get(siem.id)).status, 'active');

  await page.getByRole('button', { name: 'Send a test message' }).click();
  await page.getByText('The test message was delivered (HTTP 204)').waitFor();

  const fromSeq = page.getByLabel('Replay from seq');
  await fromSeq.fill('0');
  const sent = opened.requests.length;
  await page.getByRole('button', { name: 'Replay' }).click();
  await page.getByText('must be a seq: a whole number from 1').waitFor();
  assert.equal(await fromSeq.getAttribute('aria-invalid'), 'true');
  assert.equal(opened.requests.length, sent, 'nothing sent');
  await fromSeq.fill('1');
  await page.getByRole('button', { name: 'Replay' }).click();
  await page.getByText('The stream goes on from seq 1.').waitFor();
  await assertClean(opened, app.rootKey);
  await screenshot(page, 'log-stream');
  await page.close();
});

test('a key without the rights sees what it may not do', async () => {
  const key = await app.keyFor('streams-outsider', ['logs:list']);
  const opened = await app.open({ view: 'log-streams', key });
  await opened.page.getByRole('alert').getByText('This key may not list log streams.').waitFor();
  await opened.page.getByText('streams:list').waitFor();
  await assertClean(opened, key);
  await screenshot(opened.page, 'log-streams-forbidden');
  await opened.page.close();

  // May look, may not change: pausing says so and the stream goes on.
  const watcher = await app.keyFor('streams-watcher', ['streams:list', 'streams:read']);
  const detail = await app.open({ view: 'log-streams', hash: `#id=${siem.id}`, key: watcher });
  await detail.page.getByRole('button', { name: 'Pause' }).click();
  await detail.page.getByRole('alert').getByText('This key may not pause this stream.').waitFor();
  assert.equal((await app.client.logStreams.get(siem.id)).status, 'active');
  await assertClean(detail, watcher);
  await detail.page.close();
});
