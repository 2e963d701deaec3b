import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/helpers/server.js';
import { waitFor } from '../../test/helpers/wait.js';
import { analyzeStaleTables } from './stale-statistics.js';

describe('stale table statistics (PostgreSQL, whose autovacuum may be off)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const lastAnalyze = async (table: string) =>
    (
      await db.query<{ at: Date | null }>(
        'SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = $1',
        [table],
      )
    )[0]?.at ?? null;

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.query('CREATE TABLE "Few Rows" (n int)');
    await db.query('CREATE TABLE many_rows (n int)');
  });
  afterAll(() => db?.drop());

  it('analyzes a table once many of its rows changed since its last analysis, and leaves the others', async () => {
    await db.query('INSERT INTO "Few Rows" SELECT generate_series(1, 10)');
    await db.query('INSERT INTO many_rows SELECT generate_series(1, 5000)');
    // The counts reach the statistics views shortly after the commit.
    let analyzed: string[] = [];
    await waitFor('many_rows found stale', async () => {
      analyzed = analyzed.concat(await analyzeStaleTables(db.query));
      return analyzed.includes('public.many_rows');
    });
    expect(analyzed).not.toContain('public."Few Rows"');
    expect(await lastAnalyze('many_rows')).not.toBeNull();
    expect(await lastAnalyze('Few Rows')).toBeNull();

    // A tenth of its rows more is not yet stale.
    await db.query('INSERT INTO many_rows SELECT generate_series(1, 1000)');
    expect(await analyzeStaleTables(db.query)).not.toContain('public.many_rows');
  });

  it('quotes a table name the catalog holds', async () => {
    await db.query('INSERT INTO "Few Rows" SELECT generate_series(1, 2000)');
    await waitFor('the quoted table analyzed', async () =>
      (await analyzeStaleTables(db.query)).includes('public."Few Rows"'),
    );
    expect(await lastAnalyze('Few Rows')).not.toBeNull();
  });
});
