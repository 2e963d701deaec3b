import { type FormEvent, useEffect, useId, useState } from 'react';
import { fieldError } from '../../api/ApiErrorMessage.js';
import { fromUtcInput, toUtcInput } from '../../lib/time.js';
import { lastRange, RANGES, type SearchState } from './search-state.js';

/**
 * The search box (the API's search syntax), and the time range: a preset (its range is taken
 * when the search is run, so it stays fixed in the address) or two UTC times.
 */
export function SearchForm({
  state,
  error,
  onSearch,
}: {
  state: SearchState;
  /** The last search's error: its problems with `query`, `from` and `to` show at those fields. */
  error: unknown;
  onSearch: (next: { query: string; from: string; to: string }) => void;
}) {
  const [query, setQuery] = useState(state.query);
  const [preset, setPreset] = useState<string>('custom');
  const [from, setFrom] = useState(toUtcInput(state.from));
  const [to, setTo] = useState(toUtcInput(state.to));
  const [rangeProblem, setRangeProblem] = useState<string>();
  useEffect(() => {
    setQuery(state.query);
    setFrom(toUtcInput(state.from));
    setTo(toUtcInput(state.to));
  }, [state.query, state.from, state.to]);
  const ids = { query: useId(), help: useId(), preset: useId(), from: useId(), to: useId() };
  const queryProblem = fieldError(error, 'body.query');
  const fromProblem = rangeProblem ?? fieldError(error, 'body.from');

  function submit(event: FormEvent) {
    event.preventDefault();
    const chosen = RANGES.find((range) => range.id === preset);
    const range = chosen
      ? lastRange(chosen.ms)
      : { from: fromUtcInput(from), to: fromUtcInput(to) };
    if (!range.from || !range.to) {
      setRangeProblem('Give both times as YYYY-MM-DD HH:MM:SS (UTC).');
      return;
    }
    if (Date.parse(range.from) >= Date.parse(range.to)) {
      setRangeProblem('The start must be before the end.');
      return;
    }
    setRangeProblem(undefined);
    onSearch({ query: query.trim(), from: range.from, to: range.to });
  }

  return (
    <search>
      <form className="search" onSubmit={submit} noValidate>
        <div className="query">
          <label htmlFor={ids.query}>Search</label>
          <input
            id={ids.query}
            type="search"
            value={query}
            maxLength={500}
            onChange={(event) => setQuery(event.target.value)}
            placeholder='login -result:success actor:ada@example.com "exact phrase"'
            aria-describedby={queryProblem ? `${ids.help} ${ids.query}-problem` : ids.help}
            aria-invalid={queryProblem ? true : undefined}
          />
          <p id={ids.help} className="help muted">
            Words are AND-ed; <code>"exact phrase"</code>, <code>a OR b</code>, <code>-word</code>;{' '}
            <code>event:user.*</code>, <code>actor:</code> id or email, <code>result:failure</code>,{' '}
            <code>ip:</code>. Empty: every entry of the range.
          </p>
          {queryProblem && (
            <p id={`${ids.query}-problem`} className="field-error">
              {queryProblem}
            </p>
          )}
        </div>
        <div className="range">
          <label htmlFor={ids.preset}>Time range</label>
          <select
            id={ids.preset}
            value={preset}
            onChange={(event) => setPreset(event.target.value)}
          >
            {RANGES.map((range) => (
              <option key={range.id} value={range.id}>
                {range.label}
              </option>
            ))}
            <option value="custom">Between the times below</option>
          </select>
          <label htmlFor={ids.from}>From (UTC)</label>
          <input
            id={ids.from}
            type="datetime-local"
            step={1}
            value={from}
            disabled={preset !== 'custom'}
            onChange={(event) => setFrom(event.target.value)}
            aria-invalid={fromProblem ? true : undefined}
            aria-describedby={fromProblem ? `${ids.from}-problem` : undefined}
          />
          <label htmlFor={ids.to}>To (UTC, excluded)</label>
          <input
            id={ids.to}
            type="datetime-local"
            step={1}
            value={to}
            disabled={preset !== 'custom'}
            onChange={(event) => setTo(event.target.value)}
          />
          {fromProblem && (
            <p id={`${ids.from}-problem`} className="field-error">
              {fromProblem}
            </p>
          )}
        </div>
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
