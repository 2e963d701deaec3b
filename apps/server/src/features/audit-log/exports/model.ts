import type { Export } from '@secadmin/db';

export type ExportRow = Export;

/** An entry's cells before metadata as PostgreSQL writes them (csv-sql.ts). */
export interface CsvCellsRow {
  id: string;
  /**
   * The entry's timestamp as PostgreSQL writes it (with its offset): where the next batch
   * starts. Text: only the last row's is used, and a Date parsed for every row slowed the read.
   */
  at: string;
  cells: string;
  /** jsonb's text, when the export includes metadata. */
  metadata: string | null;
}
