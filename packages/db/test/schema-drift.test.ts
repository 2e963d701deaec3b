import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../src/index.js';
import { freshDataDir, freshPostgres } from './test-databases.js';

interface FieldSpec {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
  array: boolean;
}

const SCALARS: Record<string, string> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Bytes: 'bytea',
  Float: 'double precision',
  Json: 'jsonb',
  DateTime: 'timestamp with time zone',
};

/** The models of schema.prisma as tables and columns: enough of the grammar for this schema. */
function parseSchema(text: string): {
  fields: FieldSpec[];
  unique: { table: string; columns: string[] }[];
} {
  const fields: FieldSpec[] = [];
  const unique: { table: string; columns: string[] }[] = [];
  for (const [, body] of text.matchAll(/^model \w+ \{([\s\S]*?)^\}/gm)) {
    const lines = (body as string)
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('//'));
    const table = /@@map\("([^"]+)"\)/.exec(body as string)?.[1] as string;
    const columnOf = new Map<string, string>();
    for (const line of lines) {
      if (line.startsWith('@@')) continue;
      const match = /^(\w+)\s+(\w+)(\("[^"]+"\))?(\[\])?(\?)?(.*)$/.exec(line);
      if (!match) continue;
      const [, name, type, unsupported, array, optional, rest] = match as unknown as string[];
      // A relation field (its type another model) is no column: its foreign key's fields are.
      if (type !== 'Unsupported' && !((type as string) in SCALARS)) continue;
      const column = /@map\("([^"]+)"\)/.exec(rest as string)?.[1] ?? (name as string);
      columnOf.set(name as string, column);
      const sqlType =
        type === 'Unsupported'
          ? (unsupported as string).slice(2, -2)
          : (SCALARS[type as string] as string);
      fields.push({
        table,
        column,
        type: sqlType,
        nullable: Boolean(optional) || Boolean(array),
        array: Boolean(array),
      });
      if ((rest as string).includes('@unique') || (rest as string).includes('@id'))
        unique.push({ table, columns: [column] });
    }
  }
  return { fields, unique };
}

async function describeDatabase(query: (sql: string) => Promise<Record<string, unknown>[]>) {
  const columns = await query(`
    SELECT table_name, column_name, data_type, udt_name, is_nullable
    FROM information_schema.columns WHERE table_schema = current_schema()
      AND table_name NOT IN (SELECT relname FROM pg_class WHERE relispartition)`);
  const indexes = await query(`
    SELECT t.relname AS table_name, array_to_string(array_agg(a.attname ORDER BY k.ord), ',') AS columns
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE i.indisunique
    GROUP BY t.relname, i.indexrelid`);
  return { columns, indexes };
}

async function checkDrift(
  db: Database,
  query: (sql: string) => Promise<Record<string, unknown>[]>,
) {
  await db.migrate();
  const schema = parseSchema(
    await readFile(new URL('../prisma/schema.prisma', import.meta.url), 'utf8'),
  );
  const actual = await describeDatabase(query);
  expect(schema.fields.length).toBeGreaterThan(40);
  for (const field of schema.fields) {
    const column = actual.columns.find(
      (c) => c.table_name === field.table && c.column_name === field.column,
    );
    expect(column, `${field.table}.${field.column} exists`).toBeDefined();
    const type = field.array ? `_${field.type === 'text' ? 'text' : field.type}` : field.type;
    const actualType =
      field.array || field.type === 'tsvector' ? column?.udt_name : column?.data_type;
    expect(actualType, `${field.table}.${field.column} type`).toBe(type);
    expect(column?.is_nullable === 'YES', `${field.table}.${field.column} nullability`).toBe(
      field.nullable,
    );
  }
  const modelled = new Set(schema.fields.map((f) => `${f.table}.${f.column}`));
  const extra = actual.columns.filter(
    (c) =>
      c.table_name !== '_prisma_migrations' && !modelled.has(`${c.table_name}.${c.column_name}`),
  );
  expect(extra, 'columns that schema.prisma does not know').toEqual([]);
  for (const u of schema.unique) {
    expect(
      actual.indexes.some((i) => i.table_name === u.table && i.columns === u.columns.join(',')),
      `unique index on ${u.table}(${u.columns})`,
    ).toBe(true);
  }
}

describe('the migrated database matches schema.prisma', () => {
  it('on PostgreSQL', async () => {
    const database = await freshPostgres();
    const db = await openDatabase({ url: database.url, dataDir: '/nonexistent' });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await checkDrift(db, async (sql) => (await client.query(sql)).rows);
    } finally {
      await client.end();
      await db.close();
      await database.drop();
    }
  });

  it('on the embedded database', async () => {
    const { dir, remove } = await freshDataDir();
    const db = await openDatabase({ dataDir: dir });
    try {
      await checkDrift(db, (sql) => db.prisma.$queryRawUnsafe(sql));
    } finally {
      await db.close();
      await remove();
    }
  });
});
