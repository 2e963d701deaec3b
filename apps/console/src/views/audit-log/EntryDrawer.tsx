import { type LogEntry, SecadminApiError } from '@secadmin/api-client';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { utc } from '../../lib/time.js';
import { useClient } from '../../session/session.js';
import { type ProofStep, proveEntry, type Verdict } from './proof.js';

/**
 * An entry in a modal drawer (a native `<dialog>`: focus stays inside, Escape closes it): the
 * full entry, its provenance, and its chain proof checked in this browser.
 */
export function EntryDrawer({ id, onClose }: { id: string; onClose: () => void }) {
  const client = useClient();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  const entry = useQuery({
    queryKey: ['entry', id],
    queryFn: ({ signal }) => client.logs.get(id, { signal }),
    // An entry is sealed within a second of being written: look again until it is.
    refetchInterval: (query) => (query.state.data?.seq === null ? 1000 : false),
  });

  return (
    <dialog ref={dialog} className="drawer" aria-labelledby="entry-title" onClose={onClose}>
      <header>
        <h2 id="entry-title">
          Entry <code>{id}</code>
        </h2>
        <button type="button" className="secondary" onClick={onClose} aria-label="Close entry">
          Close
        </button>
      </header>
      {entry.isPending && <p aria-live="polite">Loading the entry…</p>}
      {entry.isError && <ApiErrorMessage error={entry.error} doing="read this entry" />}
      {entry.data && <EntryDetails entry={entry.data} />}
    </dialog>
  );
}

function EntryDetails({ entry }: { entry: LogEntry }) {
  return (
    <>
      <dl className="fields">
        <Field name="Time">{utc(entry.timestamp)} UTC</Field>
        <Field name="Event">{entry.event}</Field>
        <Field name="Result">{entry.result}</Field>
        <Field name="Actor">
          {entry.actor.type}
          {entry.actor.id ? ` ${entry.actor.id}` : ' (anonymous)'}
          {entry.actor.email ? ` <${entry.actor.email}>` : ''}
        </Field>
        {entry.target && (
          <Field name="Target">
            {entry.target.type ?? ''} {entry.target.id ?? ''}
          </Field>
        )}
        {entry.context?.ip && <Field name="IP">{entry.context.ip}</Field>}
        {entry.context?.userAgent && <Field name="User agent">{entry.context.userAgent}</Field>}
        {entry.traceId && <Field name="Trace">{entry.traceId}</Field>}
      </dl>
      <h3>Provenance</h3>
      <dl className="fields">
        <Field name="Origin">
          {entry.origin === 'service' ? 'written by secadmin itself' : 'ingested through the API'}
        </Field>
        {entry.ingestedBy && <Field name="Ingested by key">{entry.ingestedBy}</Field>}
        {entry.receivedAt && <Field name="Received">{utc(entry.receivedAt)} UTC</Field>}
      </dl>
      <ChainProof entry={entry} />
      {entry.metadata && Object.keys(entry.metadata).length > 0 && (
        <>
          <h3>Metadata</h3>
          <pre className="json">{JSON.stringify(entry.metadata, null, 2)}</pre>
        </>
      )}
      <details>
        <summary>The whole entry as JSON</summary>
        <pre className="json">{JSON.stringify(entry, null, 2)}</pre>
      </details>
    </>
  );
}

function Field({ name, children }: { name: string; children: ReactNode }) {
  return (
    <>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </>
  );
}

const VERDICTS: Record<Verdict, string> = {
  valid: 'Proof valid',
  invalid: 'Proof invalid',
  pending: 'Proof pending',
  incomplete: 'Proof incomplete',
};
const MARKS: Record<ProofStep['outcome'], string> = {
  passed: '✓',
  failed: '✗',
  unchecked: '?',
  pending: '…',
};
/** How often a pending proof is checked again. */
const PENDING_RECHECK_MS = 5_000;

function ChainProof({ entry }: { entry: LogEntry }) {
  const client = useClient();
  const proof = useQuery({
    queryKey: ['proof', entry.id, entry.hash],
    queryFn: ({ signal }) => proveEntry(client, entry, signal),
    enabled: entry.seq !== null,
    refetchInterval: (query) =>
      query.state.data?.state === 'checked' && query.state.data.verdict === 'pending'
        ? PENDING_RECHECK_MS
        : false,
  });
  const withoutRight = proof.error instanceof SecadminApiError && proof.error.status === 403;
  return (
    <section className="proof" aria-labelledby="proof-title">
      <h3 id="proof-title">Chain proof</h3>
      <dl className="fields">
        <Field name="Seq">{entry.seq ?? 'not sealed yet'}</Field>
        <Field name="Hash">
          <code className="hash">{entry.hash ?? '—'}</code>
        </Field>
      </dl>
      {entry.seq === null && <p aria-live="polite">Waiting for the entry to be sealed…</p>}
      {proof.isPending && entry.seq !== null && <p aria-live="polite">Checking the proof…</p>}
      {withoutRight && (
        <p className="notice forbidden" role="note">
          The proof needs the <code>logs:verify</code> right (to read the signed checkpoints and the
          public key), which this key does not have.
        </p>
      )}
      {proof.isError && !withoutRight && (
        <ApiErrorMessage error={proof.error} doing="check the proof" />
      )}
      {proof.data?.state === 'checked' && (
        <>
          <p className={`verdict ${proof.data.verdict}`} role="status">
            {VERDICTS[proof.data.verdict]}
          </p>
          <ul className="steps">
            {proof.data.steps.map((step) => (
              <li key={step.label} className={step.outcome}>
                <span aria-hidden="true">{MARKS[step.outcome]}</span> <strong>{step.label}</strong>
                <span className="visually-hidden">: {step.outcome}</span>. {step.detail}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
