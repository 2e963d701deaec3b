import type { Connection } from '../../../storage/connection.js';
import type { ExportFiles, ExportFileWriter } from './files.js';

/**
 * Export files in the `export_chunks` table, one row per ~1 MiB piece: any instance serves
 * any download, and instances need no shared disk. A download reads one piece at a time.
 */
export class PostgresExportFiles implements ExportFiles {
  constructor(private readonly c: Pick<Connection, 'sql'>) {}

  async create(id: string): Promise<ExportFileWriter> {
    await this.remove(id);
    let n = 0;
    return {
      write: async (chunk) => {
        await this.c.sql('INSERT INTO export_chunks (export_id, n, data) VALUES ($1, $2, $3)', [
          id,
          n++,
          chunk,
        ]);
      },
      finish: async () => {},
      discard: () => this.remove(id),
    };
  }

  async read(id: string): Promise<AsyncIterable<Buffer> | undefined> {
    const piece = async (n: number) =>
      (
        await this.c.sql<{ data: Buffer }>(
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
    await this.c.sql('DELETE FROM export_chunks WHERE export_id = $1', [id]);
  }

  async usedBytes(): Promise<number> {
    const rows = await this.c.sql<{ n: string }>(
      'SELECT coalesce(sum(octet_length(data)), 0)::text AS n FROM export_chunks',
    );
    return Number(rows[0]?.n ?? 0);
  }
}
