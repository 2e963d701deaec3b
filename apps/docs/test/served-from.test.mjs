// The page's rewrite of the spec's default server, with the page's address as `location`.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { servedFrom } from '../scripts/served-from-page.mjs';

const DEFAULT = 'http://localhost:3000';
const definition = {
  servers: [{ url: DEFAULT }],
  paths: { '/v1/users': { get: { 'x-codeSamples': [{ source: `curl '${DEFAULT}/v1/users'` }] } } },
  limits: [1, null, true, [`${DEFAULT}/docs`]],
};

function at(href) {
  globalThis.location = new URL(href);
  return servedFrom(definition, DEFAULT);
}

afterEach(() => {
  delete globalThis.location;
});

test('served at /docs or /docs/, the samples say the origin the page came from', () => {
  for (const href of ['http://127.0.0.1:3391/docs', 'http://127.0.0.1:3391/docs/#/users']) {
    const page = at(href);
    assert.equal(page.servers[0].url, 'http://127.0.0.1:3391');
    assert.equal(
      page.paths['/v1/users'].get['x-codeSamples'][0].source,
      "curl 'http://127.0.0.1:3391/v1/users'",
    );
    assert.deepEqual(page.limits, [1, null, true, ['http://127.0.0.1:3391/docs']]);
  }
  assert.equal(at('https://[::1]:8443/docs').servers[0].url, 'https://[::1]:8443');
});

test('behind a proxy prefix of plain segments, the prefix is part of the address', () => {
  assert.equal(
    at('https://admin.example.com/tools/secadmin/docs').servers[0].url,
    'https://admin.example.com/tools/secadmin',
  );
});

test('anywhere else, or under a prefix that would break a shell-quoted sample, the default stays', () => {
  for (const href of [
    'file:///home/me/docs',
    'http://127.0.0.1:3391/reference.html',
    'http://127.0.0.1:3391/docs/extra',
    "http://127.0.0.1:3391/x';touch${IFS}pwned;'/docs",
    'http://127.0.0.1:3391/a%20b/docs',
    'http://127.0.0.1:3391//evil.example/docs',
  ]) {
    assert.equal(at(href), definition, href);
  }
});

test('only values change: keys, numbers and the input itself stay as they were', () => {
  const page = at('http://127.0.0.1:3391/docs');
  assert.notEqual(page, definition);
  assert.equal(definition.servers[0].url, DEFAULT);
  assert.deepEqual(Object.keys(page.paths), ['/v1/users']);
});
