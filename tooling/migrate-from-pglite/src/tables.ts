/** One database as the copy sees it: plain SQL, and each table's rows in COPY's text format. */
export interface CopySide {
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  copyOut(select: string): Promise<Uint8Array>;
  copyIn(table: string, columns: string[], rows: Uint8Array): Promise<void>;
}

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface Partition {
  name: string;
  parent: string;
  bound: string;
}

/** The partitions of `from` that `to` lacks, created alike (the service adds months as time goes). */
export async function copyPartitions(from: CopySide, to: CopySide): Promise<void> {
  const partitions = await from.query<Partition>(
    `SELECT c.relname AS name, p.relname AS parent, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_inherits i ON i.inhrelid = c.oid
     JOIN pg_class p ON p.oid = i.inhparent
     WHERE n.nspname = 'public' AND c.relispartition AND c.relkind IN ('r', 'p')
     ORDER BY c.relname`,
  );
  for (const { name, parent, bound } of partitions)
    await to.query(
      `CREATE TABLE IF NOT EXISTS ${quote(name)} PARTITION OF ${quote(parent)} ${bound}`,
    );
}

/** The tables that hold rows (partitions, not their parents), but the migrations' own record. */
async function tablesOf(side: CopySide): Promise<string[]> {
  const rows = await side.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> '_prisma_migrations'
     ORDER BY c.relname`,
  );
  return rows.map((r) => r.name);
}

/** A table's stored columns: a generated one is computed again where it is copied to. */
async function columnsOf(side: CopySide, table: string): Promise<string[]> {
  const rows = await side.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute
     WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''
     ORDER BY attnum`,
    [`public.${quote(table)}`],
  );
  return rows.map((r) => r.name);
}

/**
 * Every row of every table of `from` into the same table of `to` (whose rows, such as a
 * migration's seed, are replaced), as COPY's text, so each value is what it was to the byte:
 * the audit chain's hashes were computed over them. Runs inside the caller's transaction on
 * `to`, with triggers and foreign keys off (`session_replication_role = replica`): the rows
 * were consistent where they come from. A column `to` lacks is an error; one only `to` has
 * keeps its default. Returns the rows copied per table.
 */
export async function copyRows(from: CopySide, to: CopySide): Promise<Map<string, number>> {
  const target = new Set(await tablesOf(to));
  const copied = new Map<string, number>();
  await to.query('SET LOCAL session_replication_role = replica');
  for (const table of await tablesOf(from)) {
    if (!target.has(table)) throw new Error(`table ${table} has no counterpart to copy it into`);
    const columns = await columnsOf(from, table);
    const theirs = new Set(await columnsOf(to, table));
    const absent = columns.filter((c) => !theirs.has(c));
    if (absent.length > 0)
      throw new Error(`table ${table}: no column ${absent.join(', ')} to copy into`);
    const list = columns.map(quote).join(', ');
    const rows = await from.copyOut(`SELECT ${list} FROM ONLY ${quote(table)}`);
    await to.query(`DELETE FROM ONLY ${quote(table)}`);
    await to.copyIn(table, columns, rows);
    const [count] = await to.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ONLY ${quote(table)}`,
    );
    copied.set(table, count?.n ?? 0);
  }
  return copied;
}

/** Each sequence of `from` set where it was in `to` (the next id follows the copied rows). */
export async function copySequences(from: CopySide, to: CopySide): Promise<void> {
  const sequences = await from.query<{ name: string; value: string | null }>(
    `SELECT sequencename AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public'`,
  );
  for (const { name, value } of sequences)
    if (value !== null)
      await to.query('SELECT setval($1::regclass, $2::bigint, true)', [
        `public.${quote(name)}`,
        value,
      ]);
}
