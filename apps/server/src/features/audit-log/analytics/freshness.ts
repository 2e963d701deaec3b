import { Unavailable } from '../../../lib/errors.js';
import type { FeedRepository } from './feed-repository.js';

/** How current the store an answer comes from is (`meta.indexedThroughSeq`, `meta.indexedAt`). */
export interface Indexed {
  indexedThroughSeq: number;
  indexedAt: Date | null;
}

/** How long a search waits for queued redactions and removals to reach the store. */
const CHANGES_WAIT_MS = 2_000;

/** What search and statistics say about the store they read. */
export class IndexFreshness {
  constructor(
    private readonly feed: Pick<FeedRepository, 'state'>,
    /** Asks the feeder to apply queued changes now. */
    private readonly kick: () => void = () => {},
  ) {}

  /**
   * The store's state before a search or statistics reads it. A 503 while the store is being
   * filled again from the start (its answer would leave out what it has not reached yet), or
   * while a redaction or removal committed in PostgreSQL has not reached it within a short wait
   * (its answer could show what was redacted or removed).
   */
  async answering(): Promise<Indexed> {
    let state = await this.feed.state();
    const deadline = Date.now() + CHANGES_WAIT_MS;
    while (state.changesPending && Date.now() < deadline) {
      this.kick();
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = await this.feed.state();
    }
    if (state.changesPending)
      throw new Unavailable(
        'The search store is taking over a redaction or a removal of entries; search and statistics answer once it holds it.',
        1,
      );
    if (state.rebuildLive)
      throw new Unavailable(
        `The search store is being rebuilt from the audit log (${state.indexedThroughSeq} of ${state.rebuildTargetSeq ?? 0} entries so far); search and statistics answer once it has caught up. GET /v1/logs/search-index shows its progress.`,
        5,
      );
    return { indexedThroughSeq: state.indexedThroughSeq, indexedAt: state.indexedAt };
  }
}
