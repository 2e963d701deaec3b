import { afterEach, expect, it, vi } from 'vitest';
import { Pacer } from './pacer.js';

afterEach(() => vi.restoreAllMocks());

it('lets the event loop turn at a pace once its slice is over, and only then', async () => {
  let clock = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => clock);
  const pacer = new Pacer(5);
  let turned = false;
  const turn = () => {
    turned = false;
    setImmediate(() => {
      turned = true;
    });
  };

  turn();
  clock = 4;
  await pacer.pace();
  expect(turned).toBe(false);

  clock = 5;
  await pacer.pace();
  expect(turned).toBe(true);

  // The slice starts again at the yield.
  turn();
  clock = 9;
  await pacer.pace();
  expect(turned).toBe(false);
});
