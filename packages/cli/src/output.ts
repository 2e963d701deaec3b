/** Where results go: aligned tables for people, JSON for scripts (`--json`). */
export interface Output {
  json: boolean;
  /** Prints `value` as JSON with `--json`, otherwise calls `human`. */
  result(value: unknown, human: () => void): void;
  line(text?: string): void;
  table(rows: readonly Record<string, unknown>[], columns?: readonly string[]): void;
  /** Diagnostics and progress: stderr, so stdout stays machine-readable. */
  note(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, human) {
      if (json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
      else human();
    },
    line(text = '') {
      process.stdout.write(`${text}\n`);
    },
    table(rows, columns) {
      process.stdout.write(formatTable(rows, columns));
    },
    note(text) {
      process.stderr.write(`${text}\n`);
    },
  };
}

export function formatTable(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[] = [...new Set(rows.flatMap((row) => Object.keys(row)))],
): string {
  if (rows.length === 0) return '(none)\n';
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const render = (values: readonly string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return `${[render(columns.map((c) => c.toUpperCase())), ...cells.map(render)].join('\n')}\n`;
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.map(cellText).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
