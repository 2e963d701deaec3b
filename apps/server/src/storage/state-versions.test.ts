import { expect, it } from 'vitest';
import { asOneRequest, outsideRequests } from '../lib/state-versions.js';
import { StateVersionsSource } from './state-versions.js';

/** A state_versions row in memory, counting the reads that reach it. */
function fakeDatabase() {
  const row = { policies: 1n, apiKeys: 1n, userRoles: 1n };
  const reads = { count: 0 };
  const rows = {
    read: async () => {
      reads.count++;
      return { ...row };
    },
    bump: async (which: keyof typeof row) => {
      row[which]++;
    },
  };
  return { rows, reads };
}

it('reads for every call that comes after the last read finished', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows);
  await source.current();
  await source.current();
  await source.current();
  expect(reads.count).toBe(3);
});

it('inside a transaction, reads on its own: its uncommitted bumps are shared with no one', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows, () => true);
  await Promise.all([source.current(), source.current(), source.current()]);
  expect(reads.count).toBe(3);
});

it('gives a request the versions of its first read throughout, whatever moves them meanwhile', async () => {
  const { rows, reads } = fakeDatabase();
  const source = new StateVersionsSource(rows);
  const seen = await asOneRequest(async () => {
    const first = await source.ofRequest();
    await source.bump('policies');
    await new Promise((resolve) => setImmediate(resolve));
    const later = await Promise.all([source.ofRequest(), source.ofRequest()]);
    return [first, ...later];
  });
  expect(seen.map((versions) => versions.policies)).toEqual([1n, 1n, 1n]);
  expect(reads.count).toBe(1);
  expect((await asOneRequest(() => source.ofRequest())).policies).toBe(2n);
});

it('outside a request (a job, even one a request started), reads the current versions', async () => {
  const { rows } = fakeDatabase();
  const source = new StateVersionsSource(rows);
  expect((await source.ofRequest()).policies).toBe(1n);
  await source.bump('policies');
  expect((await source.ofRequest()).policies).toBe(2n);
  const inJob = await asOneRequest(async () => {
    await source.ofRequest();
    await source.bump('policies');
    return outsideRequests(() => source.ofRequest());
  });
  expect(inJob.policies).toBe(3n);
});

it("keeps no transaction's own read as the request's: its uncommitted bumps may roll back", async () => {
  const { rows, reads } = fakeDatabase();
  let inTransaction = true;
  const source = new StateVersionsSource(rows, () => inTransaction);
  await asOneRequest(async () => {
    await source.ofRequest();
    inTransaction = false;
    await source.ofRequest();
    await source.ofRequest();
  });
  expect(reads.count).toBe(2);
});
