import type { Database } from '@secadmin/db';
import { ulid } from '../../../lib/ids.js';
import type { ExportFiles, ExportFileWriter } from './files.js';

/**
 * Export files in the `export_chunks` table, one row per ~1 MiB piece: any instance serves
 * any download, and instances need no shared disk. Like a file written as `….partial` and
 * renamed, the pieces are written under `<export id>.<writer>` and take the export's id when
 * complete, so that an instance that lost its claim never mixes its pieces with the new
 * claimant's. A download reads one piece at a time.
 */
export class PostgresExportFiles implements ExportFiles {
  constructor(private readonly db: Pick<Database, 'query' | 'prisma'>) {}

  async create(id: string): Promise<ExportFileWriter> {
    // Pieces left by an earlier attempt (a restart, a dead instance) go first.
    await this.db.query('DELETE FROM export_chunks WHERE starts_with(export_id, $1)', [`${id}.`]);
    const partial = `${id}.${ulid()}`;
    let n = 0;
    return {
      write: async (chunk) => {
        await this.db.query('INSERT INTO export_chunks (export_id, n, data) VALUES ($1, $2, $3)', [
          partial,
          n++,
          chunk,
        ]);
      },
      finish: async () => {
        const { prisma } = this.db;
        await prisma.$transaction([
          prisma.$executeRaw`DELETE FROM export_chunks WHERE export_id = ${id}`,
          prisma.$executeRaw`UPDATE export_chunks SET export_id = ${id} WHERE export_id = ${partial}`,
        ]);
      },
      discard: async () => {
        await this.db.query('DELETE FROM export_chunks WHERE export_id = $1', [partial]);
      },
    };
  }

  async read(id: string): Promise<AsyncIterable<Buffer> | undefined> {
    const piece = async (n: number) =>
      (
        await this.db.query<{ data: Buffer }>(
          'SELECT data FROM export_chunks WHERE export_id = $1 AND n = $2',
          [id, n],
        )
      )[0]?.data;
    const first = await piece(0);
    if (!first) return undefined;
    return (async function* () {
      let next: Buffer | undefined = first;
      for (let n = 1; next; n++) {
        yield next;
        next = await piece(n);
      }
    })();
  }

  async remove(id: string): Promise<void> {
    await this.db.query('DELETE FROM export_chunks WHERE export_id = $1', [id]);
  }

  async usedBytes(): Promise<number> {
    const rows = await this.db.query<{ n: string }>(
      'SELECT coalesce(sum(octet_length(data)), 0)::text AS n FROM export_chunks',
    );
    return Number(rows[0]?.n ?? 0);
  }
}
