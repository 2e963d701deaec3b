import { ulid } from '../../../lib/ids.js';
import type { Store } from '../../../storage/store.js';
import type { ExportFiles, ExportFileWriter } from './files.js';
import type { ExportsRepository } from './repository.js';

/**
 * Export files in the `export_chunks` table, one row per ~1 MiB piece: any instance serves
 * any download, and instances need no shared disk. Like a file written as `….partial` and
 * renamed, the pieces are written under `<export id>.<writer>` and take the export's id when
 * complete (in one transaction), so that an instance that lost its claim never mixes its
 * pieces with the new claimant's. A download reads one piece at a time.
 */
export class PostgresExportFiles implements ExportFiles {
  constructor(
    private readonly store: Pick<Store, 'transaction'>,
    private readonly pieces: Pick<
      ExportsRepository,
      'removePartialPieces' | 'addPiece' | 'movePieces' | 'piece' | 'removePieces' | 'piecesBytes'
    >,
  ) {}

  async create(id: string): Promise<ExportFileWriter> {
    // Pieces left by an earlier attempt (a restart, a dead instance) go first.
    await this.pieces.removePartialPieces(id);
    const partial = `${id}.${ulid()}`;
    let n = 0;
    return {
      write: (chunk) => this.pieces.addPiece(partial, n++, chunk),
      finish: () => this.store.transaction(() => this.pieces.movePieces(partial, id)),
      discard: () => this.pieces.removePieces(partial),
    };
  }

  async read(id: string): Promise<AsyncIterable<Buffer> | undefined> {
    const first = await this.pieces.piece(id, 0);
    if (!first) return undefined;
    const { pieces } = this;
    return (async function* () {
      let next: Buffer | undefined = first;
      for (let n = 1; next; n++) {
        yield next;
        next = await pieces.piece(id, n);
      }
    })();
  }

  remove(id: string): Promise<void> {
    return this.pieces.removePieces(id);
  }

  usedBytes(): Promise<number> {
    return this.pieces.piecesBytes();
  }
}
