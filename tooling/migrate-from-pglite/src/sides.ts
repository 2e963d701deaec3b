import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { type CopySide, quote } from './tables.js';

const columnList = (columns: string[]) => columns.map(quote).join(', ');

/** A PGlite database: COPY goes through its `/dev/blob` device. */
export function pgliteSide(db: PGlite): CopySide {
  return {
    query: async <T>(sql: string, params?: unknown[]) => (await db.query<T>(sql, params)).rows,
    copyOut: async (select) => {
      const { blob } = await db.query(`COPY (${select}) TO '/dev/blob'`);
      return new Uint8Array((await blob?.arrayBuffer()) ?? new ArrayBuffer(0));
    },
    copyIn: async (table, columns, rows) =>
      void (await db.query(`COPY ${quote(table)} (${columnList(columns)}) FROM '/dev/blob'`, [], {
        blob: new Blob([rows]),
      })),
  };
}

/** A PostgreSQL server, on one connection. */
export function postgresSide(client: pg.Client): CopySide {
  return {
    query: async <T>(sql: string, params?: unknown[]) =>
      (await client.query(sql, params)).rows as T[],
    copyOut: async (select) => {
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`COPY (${select}) TO STDOUT`)))
        chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    copyIn: (table, columns, rows) =>
      pipeline(
        Readable.from([Buffer.from(rows)]),
        client.query(copyFrom(`COPY ${quote(table)} (${columnList(columns)}) FROM STDIN`)),
      ),
  };
}
