import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { ScramOnlyClient } from '../src/scram-only-client.js';
import { ASKS, fakePostgres } from './fake-postgres.js';

const servers: { close(): unknown }[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.close();
    await once(server as never, 'close');
  }
});

describe('the client of the embedded server', () => {
  it.each([
    ['a cleartext password', ASKS.cleartext],
    ['an MD5 password', ASKS.md5],
    ['no authentication at all', ASKS.nothing],
  ])('gives nothing to a server that asks for %s', async (_, ask) => {
    const fake = await fakePostgres(ask);
    servers.push(fake.server);
    const client = new ScramOnlyClient({
      host: '127.0.0.1',
      port: fake.port,
      user: 'postgres',
      password: 'the-embedded-password',
    });
    const refused = await client.connect().then(
      () => undefined,
      (error: Error) => error.message,
    );
    await client.end().catch(() => {});
    expect(refused).toMatch(/only SCRAM-SHA-256/);
    // No PasswordMessage ('p') and no query ('Q', 'P') reached it.
    expect(fake.received().toString('latin1')).not.toMatch(/[pQP]/);
  });
});
