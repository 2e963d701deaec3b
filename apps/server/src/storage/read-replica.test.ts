import { describe, expect, it } from 'vitest';
import { Unavailable } from '../lib/errors.js';
import type { Connection } from './connection.js';
import { createReadStore } from './read-replica.js';
import type { Store } from './store.js';

/** A store whose statements answer `name`, or fail with what `fail` gives; it counts them. */
function fakeStore(name: string, fail: () => unknown = () => undefined) {
  const calls = { n: 0 };
  const connection: Connection = {
    db: {} as Connection['db'],
    sql: async <T>() => {
      calls.n++;
      const error = fail();
      if (error) throw error;
      return [{ from: name }] as T[];
    },
  };
  const store: Store = {
    connection,
    inTransaction: () => false,
    transaction: (work) => work(),
  };
  return { store, calls };
}

const quiet = { warn: () => {}, info: () => {} };
/** What storage makes of a refused connection. */
const unreachable = () =>
  new Unavailable('The database is unreachable; retry shortly.', 1, {
    cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
  });
const from = async (c: Connection) => (await c.sql<{ from: string }>('SELECT 1'))[0]?.from;

describe('the read store (DATABASE_READ_URL)', () => {
  it('reads the replica while it answers', async () => {
    const primary = fakeStore('primary');
    const replica = fakeStore('replica');
    const reads = createReadStore(primary.store, replica.store, async () => {}, quiet);
    expect(await from(reads.connection)).toBe('replica');
    expect(primary.calls.n).toBe(0);
  });

  it('runs a statement the replica cancelled for a replay conflict again on the primary, and keeps the replica', async () => {
    const conflict = Object.assign(new Error('canceling statement due to conflict with recovery'), {
      code: '40001',
    });
    let conflicts = 1;
    const primary = fakeStore('primary');
    const replica = fakeStore('replica', () => (conflicts-- > 0 ? conflict : undefined));
    const reads = createReadStore(primary.store, replica.store, async () => {}, quiet);
    expect(await from(reads.connection)).toBe('primary');
    expect(await from(reads.connection)).toBe('replica');
  });

  it('moves to the primary when the replica is unreachable, without asking it on every read', async () => {
    const primary = fakeStore('primary');
    const replica = fakeStore('replica', unreachable);
    const warnings: string[] = [];
    const reads = createReadStore(
      primary.store,
      replica.store,
      () => Promise.reject(new Error('down')),
      {
        warn: (_fields: unknown, message?: string) => void warnings.push(String(message)),
        info: () => {},
      } as never,
    );
    for (let i = 0; i < 5; i++) expect(await from(reads.connection)).toBe('primary');
    expect(replica.calls.n).toBe(1);
    expect(warnings).toHaveLength(1);
    expect(await reads.health()).toBe('unavailable');
  });

  it('passes on a read the replica stopped at its time bound, and keeps the replica', async () => {
    const stopped = new Unavailable('stopped at its time bound', 1, {
      cause: Object.assign(new Error('canceling statement due to statement timeout'), {
        code: '57014',
      }),
    });
    let timeouts = 1;
    const primary = fakeStore('primary');
    const replica = fakeStore('replica', () => (timeouts-- > 0 ? stopped : undefined));
    const reads = createReadStore(primary.store, replica.store, async () => {}, quiet);
    await expect(from(reads.connection)).rejects.toBe(stopped);
    expect(primary.calls.n).toBe(0);
    expect(await from(reads.connection)).toBe('replica');
  });

  it('passes on an error of the statement itself', async () => {
    const wrong = new Error('syntax error');
    const primary = fakeStore('primary');
    const replica = fakeStore('replica', () => wrong);
    const reads = createReadStore(primary.store, replica.store, async () => {}, quiet);
    await expect(from(reads.connection)).rejects.toBe(wrong);
    expect(primary.calls.n).toBe(0);
  });
});
