import { problemsAt } from '../form-fields.js';

export interface Check {
  /** Stays with the row when another row is removed. */
  key: number;
  principal: string;
  action: string;
  resource: string;
}

const COLUMNS = [
  { field: 'principal', label: 'Principal', placeholder: 'user:user_01… or role:auditor' },
  { field: 'action', label: 'Action', placeholder: 'users:read' },
  { field: 'resource', label: 'Resource', placeholder: 'users/user_01…' },
] as const;

/** The checks to answer, one a row (up to 100), each input named for its row. */
export function ChecksTable({
  checks,
  onChange,
  error,
}: {
  checks: Check[];
  onChange: (checks: Check[]) => void;
  error: unknown;
}) {
  const update = (index: number, field: (typeof COLUMNS)[number]['field'], value: string) =>
    onChange(checks.map((check, i) => (i === index ? { ...check, [field]: value } : check)));
  return (
    <fieldset className="checks">
      <legend>Checks</legend>
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">#</th>
            {COLUMNS.map((column) => (
              <th scope="col" key={column.field}>
                {column.label}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {checks.map((check, index) => (
            <tr key={check.key}>
              <td>{index + 1}</td>
              {COLUMNS.map((column) => {
                const problems = problemsAt(error, `checks[${index}].${column.field}`).messages;
                const problemId = `check-${check.key}-${column.field}-problem`;
                return (
                  <td key={column.field}>
                    <input
                      className="mono"
                      aria-label={`${column.label} of check ${index + 1}`}
                      placeholder={column.placeholder}
                      spellCheck={false}
                      value={check[column.field]}
                      onChange={(event) => update(index, column.field, event.target.value)}
                      aria-invalid={problems.length > 0 ? true : undefined}
                      aria-describedby={problems.length > 0 ? problemId : undefined}
                    />
                    {problems.length > 0 && (
                      <p id={problemId} className="field-error" role="alert">
                        {problems.join('; ')}
                      </p>
                    )}
                  </td>
                );
              })}
              <td>
                {checks.length > 1 && (
                  <button
                    type="button"
                    className="secondary"
                    aria-label={`Remove check ${index + 1}`}
                    onClick={() => onChange(checks.filter((_, i) => i !== index))}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {checks.length < 100 && (
        <button
          type="button"
          className="secondary"
          onClick={() => {
            const last = checks.at(-1);
            const key = Math.max(...checks.map((c) => c.key)) + 1;
            onChange([
              ...checks,
              { key, principal: last?.principal ?? '', action: '', resource: '' },
            ]);
          }}
        >
          Add a check
        </button>
      )}
    </fieldset>
  );
}
