import type { LogRow } from '../repository.js';
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

/** The text of an export file, piece by piece: a head, one chunk per entry, a tail. */
export interface ExportEncoder {
  head: string;
  entry(row: LogRow, first: boolean): string;
  tail: string;
}

export function encoderFor(format: ExportFormat, includeMetadata: boolean): ExportEncoder {
  if (format === 'csv') {
    const columns = includeMetadata ? CSV_COLUMNS : CSV_COLUMNS.filter((c) => c !== 'metadata');
    return {
      head: `${columns.join(',')}\r\n`,
      entry: (row) => `${csvValues(row, includeMetadata).map(csvCell).join(',')}\r\n`,
      tail: '',
    };
  }
  return {
    head: '[',
    entry: (row, first) => {
      const { metadata, ...rest } = logDetail(row);
      return (
        (first ? '\n' : ',\n') + JSON.stringify(includeMetadata ? { ...rest, metadata } : rest)
      );
    },
    tail: '\n]\n',
  };
}

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};
