import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScratchDatabase, type RunServer, testPostgres } from '../src/index.js';

let postgres: RunServer;
beforeAll(async () => {
  postgres = await testPostgres();
}, 120_000);
afterAll(() => postgres?.release());

async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
    );
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

it('copies a template database with what it holds, and starts empty without one', async () => {
  const template = await createScratchDatabase(postgres.url, 'infra_template');
  const client = new pg.Client({ connectionString: template.url });
  await client.connect();
  await client.query('CREATE TABLE kept (id int)');
  await client.end();

  const copy = await createScratchDatabase(postgres.url, 'infra_copy', { template: template.name });
  const empty = await createScratchDatabase(postgres.url, 'infra_empty');
  try {
    expect(await tables(copy.url)).toEqual(['kept']);
    expect(await tables(empty.url)).toEqual([]);
  } finally {
    await Promise.all([copy.drop(), empty.drop()]);
    await template.drop();
  }
});

it('refuses a template that is not a plain database name, creating nothing', async () => {
  await expect(
    createScratchDatabase(postgres.url, 'infra_bad', { template: 'x; DROP DATABASE test' }),
  ).rejects.toThrow(/not a scratch database's name/);
});
