import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets other requests run during a long computation: `pace()` between its steps yields to
 * the event loop once the current slice has run for `sliceMs`.
 */
export class Pacer {
  private sliceStarted = performance.now();

  constructor(private readonly sliceMs = 5) {}

  async pace(): Promise<void> {
    if (performance.now() - this.sliceStarted < this.sliceMs) return;
    await nextTurn();
    this.sliceStarted = performance.now();
  }
}
