import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function onServer(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A new database on the PostgreSQL server of `adminUrl` (tests and the benchmark each get
 * their own): empty, or a copy of `template` (a database of that server no session is
 * connected to; another scratch database's name, say). `drop` removes it even while
 * connections are open.
 */
export async function createScratchDatabase(
  adminUrl: string,
  prefix = 'secadmin_scratch',
  { template }: { template?: string } = {},
): Promise<ScratchDatabase> {
  const name = `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
  if (template !== undefined && !/^[a-z_][a-z0-9_]*$/.test(template))
    throw new Error(`not a scratch database's name: ${template}`);
  await onServer(adminUrl, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => onServer(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
