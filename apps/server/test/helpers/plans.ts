import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, openDatabase } from '@secadmin/db';
import type { Connection } from '../../src/storage/connection.js';
import { createTestDatabase } from './server.js';

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, with the fields tests look at. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Filter?: string;
  /** With ANALYZE: how many times the node ran. */
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** A migrated database of its own on the test PostgreSQL server; `close` drops it. */
export async function openPlanDatabase(): Promise<{ db: Database; close(): Promise<void> }> {
  const scratch = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-plans-'));
  const db = await openDatabase({ url: scratch.url, dataDir });
  await db.migrate();
  return {
    db,
    async close() {
      await db.close();
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A connection for repositories under test that explains each statement, then runs it (so
 * that what follows sees its real rows), keeping the plans in `plans` until `take()`.
 * `analyze`: the plans as run (with loops and row counts), at the cost of running twice.
 */
export function planRecorder(db: Database, { analyze }: { analyze: boolean }) {
  let plans: PlanNode[] = [];
  const connection: Connection = {
    db: db.prisma,
    sql: async <T>(text: string, values: unknown[] = []) => {
      const [explained] = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${text}`,
        values,
      );
      if (!explained) throw new Error(`no plan for ${text}`);
      plans.push(explained['QUERY PLAN'][0].Plan);
      return db.query<T>(text, values);
    },
  };
  return {
    connection,
    /** The plans recorded since the last call, in order. */
    take(): PlanNode[] {
      const taken = plans;
      plans = [];
      return taken;
    },
  };
}
