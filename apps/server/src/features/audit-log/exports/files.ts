/** Where export files are kept (`PostgresExportFiles`: the `export_chunks` table). */
export interface ExportFiles {
  /** Starts an export's file afresh: a resumed export starts over. */
  create(id: string, format: string): Promise<ExportFileWriter>;
  /** A completed export's file, piece by piece; undefined when it is not there. */
  read(id: string, format: string): Promise<AsyncIterable<Buffer> | undefined>;
  remove(id: string, format: string): Promise<void>;
  /** What all stored export files take together, the ones being written included. */
  usedBytes(): Promise<number>;
}

export interface ExportFileWriter {
  write(chunk: Buffer): Promise<void>;
  /** Puts the file in place for downloads. */
  finish(): Promise<void>;
  /** Removes what was written. */
  discard(): Promise<void>;
}
