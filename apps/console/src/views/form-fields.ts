import { SecadminApiError } from '@secadmin/api-client';

/**
 * The problems a 400 names at or under one field of the body (`principals` gathers
 * `body.principals[2]`; `conditions` gathers `body.conditions.ip.allowlist[0]`), as the
 * messages to show at that field and the field names to pass to `shownAtFields`. Given the
 * body that was sent, an item of a list of strings is named by its value, not its index.
 */
export function problemsAt(
  error: unknown,
  field: string,
  sent?: unknown,
): { messages: string[]; fields: string[] } {
  if (!(error instanceof SecadminApiError) || error.status !== 400)
    return { messages: [], fields: [] };
  const found = error.details.filter((detail) => {
    const name = detail.field.replace(/^body\./, '');
    return name === field || name.startsWith(`${field}.`) || name.startsWith(`${field}[`);
  });
  return {
    messages: found.map((detail) => {
      const name = detail.field.replace(/^body\./, '');
      if (name === field) return detail.message;
      const rest = name.slice(field.length);
      const index = /^\[(\d+)\]$/.exec(rest)?.[1];
      const list = (sent as Record<string, unknown> | undefined)?.[field];
      const value = index !== undefined && Array.isArray(list) ? list[Number(index)] : undefined;
      return typeof value === 'string'
        ? `“${value}” ${detail.message}`
        : `${rest}: ${detail.message}`;
    }),
    fields: found.map((detail) => detail.field),
  };
}

/** The non-empty lines of a text area, trimmed: one principal, action or resource a line. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * A JSON text area's value: `undefined` when left empty, the parsed value, or a problem to show
 * at the field (nothing is sent while one is left).
 */
export function parseJsonField(
  text: string,
  expect: 'object' | 'array',
): { value?: unknown; problem?: string } {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `is not JSON: ${(error as Error).message}` };
  }
  const isArray = Array.isArray(value);
  const isObject = typeof value === 'object' && value !== null && !isArray;
  if (expect === 'array' && !isArray) return { problem: 'must be a JSON array ([…])' };
  if (expect === 'object' && !isObject) return { problem: 'must be a JSON object ({…})' };
  return { value };
}

/** JSON for a text area or a `<pre>`, two spaces deep. */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2);
