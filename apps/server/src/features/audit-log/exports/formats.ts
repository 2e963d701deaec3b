import type { RedactionProof } from '@secadmin/log-chain';
import type { LogRow } from '../entries/sql.js';
import { logDetail } from '../representation.js';

export type ExportFormat = 'json' | 'csv';

const CSV_COLUMNS = [
  'id',
  'timestamp',
  'event',
  'actor.id',
  'actor.email',
  'actor.type',
  'target.id',
  'target.type',
  'context.ip',
  'context.userAgent',
  'context.location.city',
  'context.location.country',
  'context.location.region',
  'context.location.coordinates.lat',
  'context.location.coordinates.lng',
  'result',
  'traceId',
  'origin',
  'ingestedBy',
  'receivedAt',
  'metadata',
] as const;

/** RFC 4180 quoting; a text cell that a spreadsheet would run as a formula gets a `'`. */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvValues(row: LogRow, includeMetadata: boolean): (string | number | null)[] {
  const values: (string | number | null)[] = [
    row.id,
    row.timestamp.toISOString(),
    row.event,
    row.actorId,
    row.actorEmail,
    row.actorType,
    row.targetId,
    row.targetType,
    row.ip,
    row.userAgent,
    row.city,
    row.country,
    row.region,
    row.lat,
    row.lng,
    row.result,
    row.traceId,
    row.origin,
    row.ingestedBy,
    row.receivedAt?.toISOString() ?? null,
  ];
  if (includeMetadata) values.push(JSON.stringify(row.metadata));
  return values;
}

/** The CSV header row, CRLF-terminated. */
export function csvHeader(includeMetadata: boolean): string {
  const columns = includeMetadata ? CSV_COLUMNS : CSV_COLUMNS.filter((c) => c !== 'metadata');
  return `${columns.join(',')}\r\n`;
}

/** One entry's CSV row, CRLF-terminated. */
export function csvLine(row: LogRow, includeMetadata: boolean): string {
  return `${csvValues(row, includeMetadata).map(csvCell).join(',')}\r\n`;
}

const TEXT = '(?:[^-=+@\\t",\\r\\n][^",\\r\\n]*)?';
const NUMBER = '([^",\\r\\n]*)';
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
/** id, timestamp, 11 text cells, 2 coordinates, 4 text cells, receivedAt. */
const PLAIN_CELLS = new RegExp(
  `^${TEXT},${ISO}(?:,${TEXT}){11},${NUMBER},${NUMBER}(?:,${TEXT}){4},(?:${ISO})?$`,
);
const sameNumber = (text: string) => text === '' || String(Number(text)) === text;

/** A string, or `: ` / `, ` between values: jsonb's text has a space after each. */
const JSONB_SPACES = /("(?:[^"\\]|\\.)*")|([:,]) /g;
/**
 * Where JSON.stringify(JSON.parse(text)) would write more than the spaces differently: a
 * number it writes with an exponent (≥ 1e21, < 1e-6), an integer-like key (it puts those first).
 */
const JSONB_ELSE = /\d{22}|0\.0{6}|[{,] ?"(?:0|[1-9]\d*)":/;

/**
 * The CSV row of an entry from PostgreSQL's comma-joined cells (csv-sql.ts) and metadata
 * text, when that is what `csvLine` writes: 21 cells, none to quote or guard, coordinates
 * as JavaScript writes numbers, metadata that JSON.stringify writes as jsonb does but for
 * spaces. Undefined otherwise.
 */
export function csvLineFromCells(
  cells: string,
  metadata: string | null,
  includeMetadata: boolean,
): string | undefined {
  const match = PLAIN_CELLS.exec(cells);
  if (!match || !sameNumber(match[1] as string) || !sameNumber(match[2] as string))
    return undefined;
  if (!includeMetadata) return `${cells}\r\n`;
  if (metadata === null || JSONB_ELSE.test(metadata)) return undefined;
  return `${cells},${csvCell(metadata.replace(JSONB_SPACES, '$1$2'))}\r\n`;
}

/**
 * The JSON array of full entries, piece by piece: a head, one piece per entry, a tail. A
 * redacted entry also names the `user.deleted` entries whose records name it (`redactedBy`)
 * and carries the proofs (`redactionProofs`) of those no earlier entry of the file carries.
 */
export const jsonArray = {
  head: '[',
  entry: (
    row: LogRow,
    first: boolean,
    includeMetadata: boolean,
    redactedBy?: readonly string[],
    redactionProofs: readonly RedactionProof[] = [],
  ): string => {
    const { metadata, ...rest } = logDetail(row);
    const entry = {
      ...rest,
      ...(includeMetadata ? { metadata } : {}),
      ...(redactedBy ? { redactedBy } : {}),
      ...(redactionProofs.length > 0 ? { redactionProofs } : {}),
    };
    return (first ? '\n' : ',\n') + JSON.stringify(entry);
  },
  tail: '\n]\n',
};

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};
