import type { Data } from '@secadmin/api-client';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { ApiErrorMessage, fieldError } from '../../api/ApiErrorMessage.js';
import { DAY, fromUtcInput, toUtcInput, utc } from '../../lib/time.js';
import { useClient } from '../../session/session.js';
import { navigate, useLocation } from '../../shell/location.js';
import { Field } from '../Field.js';

type Export = Data<'getExport'>;

/**
 * Exports a time range of the log as CSV or JSON, every entry of it or only a search's hits:
 * the range and the search come from the audit log ("Export this search" carries them in the
 * address), the export's progress is polled, and the finished file is downloaded through the
 * client (its signed URL never shows in the page).
 */
export default function ExportsView() {
  const { state } = useLocation();
  const exportId = state.get('export') ?? undefined;
  const [query, setQuery] = useState(state.get('q') ?? '');
  const now = Date.now();
  const [from, setFrom] = useState(
    toUtcInput(state.get('from') ?? new Date(now - 7 * DAY).toISOString()),
  );
  const [to, setTo] = useState(toUtcInput(state.get('to') ?? new Date(now).toISOString()));
  const [format, setFormat] = useState<'csv' | 'json'>('csv');
  const [includeMetadata, setIncludeMetadata] = useState(true);
  const client = useClient();
  const ids = { from: useId(), to: useId(), format: useId(), metadata: useId() };

  const create = useMutation({
    mutationFn: (body: Parameters<typeof client.exports.create>[0]) => client.exports.create(body),
    onSuccess: (created) => {
      const next = new URLSearchParams(state);
      next.set('export', created.exportId);
      navigate('exports', next, true);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const range = { from: fromUtcInput(from), to: fromUtcInput(to) };
    if (!range.from || !range.to) return;
    const search = query.trim();
    create.mutate({
      from: range.from,
      to: range.to,
      format,
      includeMetadata,
      ...(search ? { query: search } : {}),
    });
  }
  const queryProblem = fieldError(create.error, 'body.query');
  const fromProblem =
    fieldError(create.error, 'body.from') ??
    (fromUtcInput(from) ? undefined : 'Give a time as YYYY-MM-DD HH:MM:SS (UTC).');
  const toProblem =
    fieldError(create.error, 'body.to') ??
    (fromUtcInput(to) ? undefined : 'Give a time as YYYY-MM-DD HH:MM:SS (UTC).');

  return (
    <section aria-labelledby="exports-title" className="exports">
      <h1 id="exports-title">Exports</h1>
      <p>
        The entries of a time range, every one or only those a search finds, as a file: CSV for a
        spreadsheet, JSON to verify offline against the signed checkpoints.
      </p>
      <form className="export-form" onSubmit={submit} noValidate>
        <div>
          <label htmlFor={ids.from}>From (UTC)</label>
          <input
            id={ids.from}
            type="datetime-local"
            step={1}
            value={from}
            onChange={(event) => setFrom(event.target.value)}
            aria-invalid={fromProblem ? true : undefined}
            aria-describedby={fromProblem ? `${ids.from}-problem` : undefined}
          />
          {fromProblem && (
            <p id={`${ids.from}-problem`} className="field-error">
              {fromProblem}
            </p>
          )}
        </div>
        <div>
          <label htmlFor={ids.to}>To (UTC, excluded)</label>
          <input
            id={ids.to}
            type="datetime-local"
            step={1}
            value={to}
            onChange={(event) => setTo(event.target.value)}
            aria-invalid={toProblem ? true : undefined}
            aria-describedby={toProblem ? `${ids.to}-problem` : undefined}
          />
          {toProblem && (
            <p id={`${ids.to}-problem`} className="field-error">
              {toProblem}
            </p>
          )}
        </div>
        <Field
          label="Search (empty: every entry of the range)"
          problems={queryProblem ? [queryProblem] : []}
        >
          {(input) => (
            <input
              {...input}
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
            />
          )}
        </Field>
        <div>
          <label htmlFor={ids.format}>Format</label>
          <select
            id={ids.format}
            value={format}
            onChange={(event) => setFormat(event.target.value as 'csv' | 'json')}
          >
            <option value="csv">CSV</option>
            <option value="json">JSON (full entries, verifiable)</option>
          </select>
        </div>
        <label className="checkbox">
          <input
            id={ids.metadata}
            type="checkbox"
            checked={includeMetadata}
            onChange={(event) => setIncludeMetadata(event.target.checked)}
          />
          Include metadata
        </label>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Starting…' : 'Export'}
        </button>
      </form>
      {create.isError && (
        <ApiErrorMessage
          error={create.error}
          doing="export the log"
          shownAtFields={['body.from', 'body.to', 'body.query']}
        />
      )}
      {exportId && <ExportProgress exportId={exportId} />}
    </section>
  );
}

function ExportProgress({ exportId }: { exportId: string }) {
  const client = useClient();
  const job = useQuery({
    queryKey: ['export', exportId],
    queryFn: ({ signal }) => client.exports.get(exportId, { signal }),
    refetchInterval: (query) => (query.state.data?.status === 'processing' ? 1000 : false),
  });
  const download = useMutation({ mutationFn: (done: Export) => save(client, done) });
  const done = job.data?.status === 'completed' ? job.data : undefined;
  return (
    <section className="export-job" aria-labelledby="job-title" aria-live="polite">
      <h2 id="job-title">
        Export <code>{exportId}</code>
      </h2>
      {job.isError && <ApiErrorMessage error={job.error} doing="read this export" />}
      {job.data?.status === 'processing' && (
        <label>
          Writing about {job.data.estimatedRecords.toLocaleString('en')} entries… <progress />
        </label>
      )}
      {job.data?.status === 'failed' && (
        <p className="notice error" role="alert">
          The export failed: {job.data.error ?? 'no reason given'}.
        </p>
      )}
      {done && (
        <>
          <p role="status">
            Done: {(done.totalRecords ?? 0).toLocaleString('en')} entries,{' '}
            {formatBytes(done.fileSizeBytes ?? 0)} of {done.format.toUpperCase()}
            {done.expiresAt && `, downloadable until ${utc(done.expiresAt)} UTC`}.
          </p>
          <button type="button" onClick={() => download.mutate(done)} disabled={download.isPending}>
            {download.isPending ? 'Downloading…' : `Download ${exportId}.${done.format}`}
          </button>
          {download.isError && <ApiErrorMessage error={download.error} doing="download the file" />}
        </>
      )}
    </section>
  );
}

/** Fetches the file through the client and hands it to the browser as a download. */
async function save(client: ReturnType<typeof useClient>, done: Export): Promise<void> {
  if (!done.downloadUrl) throw new Error('the export has no download address');
  const response = await client.exports.download(done.downloadUrl);
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = `${done.exportId}.${done.format}`;
    link.click();
  } finally {
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
