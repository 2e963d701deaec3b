import { expect, it } from 'vitest';
import { shareFreshReads } from './fresh-reads.js';

/** A read whose answer is the store's value when the read *starts*, finishing when told. */
function controlledStore() {
  const store = { value: 0, started: 0, pending: [] as Array<() => void> };
  const read = () => {
    store.started++;
    const seen = store.value;
    return new Promise<number>((resolve) => store.pending.push(() => resolve(seen)));
  };
  const finishOne = async () => {
    store.pending.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { store, read, finishOne };
}

it('never answers a caller with a read that started before it asked', async () => {
  const { store, read, finishOne } = controlledStore();
  const current = shareFreshReads(read);
  const first = current();
  store.value = 1; // committed after the first read started
  const second = current();
  const third = current();
  expect(store.started).toBe(1);
  await finishOne();
  expect(await first).toBe(0);
  expect(store.started).toBe(2);
  await finishOne();
  expect(await second).toBe(1);
  expect(await third).toBe(1);
});

it('shares one read among every caller that arrived while another was in flight', async () => {
  const { store, read, finishOne } = controlledStore();
  const current = shareFreshReads(read);
  const answers = Array.from({ length: 50 }, () => current());
  await finishOne();
  await finishOne();
  expect(await Promise.all(answers)).toHaveLength(50);
  expect(store.started).toBe(2);
  current();
  expect(store.started).toBe(3);
});

it('passes a failed read to its callers and recovers on the next call', async () => {
  let fail = true;
  const current = shareFreshReads(async () => {
    if (fail) throw new Error('down');
    return 'up';
  });
  await expect(current()).rejects.toThrow('down');
  fail = false;
  expect(await current()).toBe('up');
});
