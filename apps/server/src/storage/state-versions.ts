import { shareFreshReads } from '../lib/fresh-reads.js';
import type { Repositories } from './repositories.js';
import type { StateVersions } from './state-versions-repository.js';

/**
 * The counters every request checks its caches against (policy index, API keys, roles).
 *
 * On PostgreSQL other instances move them: each call gets a read that started after it
 * (shared among concurrent callers). On the embedded database this process is the only
 * writer (the data dir is locked), and PGlite runs a query only between transactions, so
 * the copy read after this process's last bump is current: no read per request.
 */
export class StateVersionsSource {
  private readonly read: () => Promise<StateVersions>;
  private generation = 0;
  private copy: { generation: number; versions: Promise<StateVersions> } | undefined;

  constructor(
    private readonly repos: Repositories,
    private readonly soleWriter: boolean,
    private readonly inTransaction: () => boolean = () => false,
  ) {
    this.read = shareFreshReads(() => repos.stateVersions.read());
  }

  current(): Promise<StateVersions> {
    // Inside a transaction the read is its own: it may see the transaction's uncommitted bumps,
    // which nobody else may share or keep, and it must not wait for a pool connection of its own.
    if (this.inTransaction()) return this.repos.stateVersions.read();
    if (!this.soleWriter) return this.read();
    if (this.copy?.generation === this.generation) return this.copy.versions;
    const copy = { generation: this.generation, versions: this.read() };
    this.copy = copy;
    copy.versions.catch(() => {
      if (this.copy === copy) this.copy = undefined;
    });
    return copy.versions;
  }

  /**
   * In the transaction that makes the change, so no instance sees one without the other.
   * The copy is dropped first: a read issued from now on waits for this transaction to end.
   */
  async bump(repos: Repositories, which: keyof StateVersions): Promise<void> {
    this.generation++;
    await repos.stateVersions.bump(which);
  }
}
