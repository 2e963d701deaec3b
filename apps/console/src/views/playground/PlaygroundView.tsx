import { type components, SecadminApiError } from '@secadmin/api-client';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { useLocation } from '../../shell/location.js';
import { Field } from '../Field.js';
import { parseJsonField, pretty, problemsAt } from '../form-fields.js';
import '../views.css';
import { type Check, ChecksTable } from './ChecksTable.js';
import { decisionSentence, type SimulationResult } from './decision.js';
import { Explanation } from './Explanation.js';
import { Results } from './Results.js';

type BatchRequest = components['schemas']['BatchSimulationRequest'];

/**
 * The policy playground: checks (principal, action, resource) with a context and attributes,
 * answered by the batch simulator with the explain trace, against the stored policies, draft
 * policies not saved yet, or both. Nothing is written. `#principal=…&action=…&resource=…`
 * fills the first check; `#drafts=[…]` the drafts (the policy editor sends its form there).
 */
export default function PlaygroundView() {
  const client = useClient();
  const { state } = useLocation();
  const [checks, setChecks] = useState<Check[]>(() => [
    {
      key: 0,
      principal: state.get('principal') ?? '',
      action: state.get('action') ?? '',
      resource: state.get('resource') ?? '',
    },
  ]);
  const [context, setContext] = useState('');
  const [attributes, setAttributes] = useState('');
  const [drafts, setDrafts] = useState(() => {
    const given = parseJsonField(state.get('drafts') ?? '', 'array');
    return given.value ? pretty(given.value) : '';
  });
  const [useStored, setUseStored] = useState(true);
  const [localProblems, setLocalProblems] = useState<Record<string, string>>({});
  const [selected, setSelected] = useState(0);
  const useStoredId = useId();
  const answer = useRef<HTMLDivElement>(null);

  const run = useMutation({
    mutationFn: (body: BatchRequest) => client.policies.simulateBatch(body),
    onSuccess: () => {
      setSelected(0);
      // The answer is below the form: bring it into sight (the status line reads it out).
      requestAnimationFrame(() => answer.current?.scrollIntoView({ block: 'start' }));
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = {
      context: parseJsonField(context, 'object'),
      attributes: parseJsonField(attributes, 'object'),
      drafts: parseJsonField(drafts, 'array'),
    };
    const problems = Object.fromEntries(
      Object.entries(parsed).flatMap(([field, p]) => (p.problem ? [[field, p.problem]] : [])),
    );
    setLocalProblems(problems);
    if (Object.keys(problems).length > 0) {
      run.reset(); // the API's answer to an earlier try is not about this text
      return;
    }
    const shared = {
      ...(parsed.context.value !== undefined && { context: parsed.context.value }),
      ...(parsed.attributes.value !== undefined && { attributes: parsed.attributes.value }),
    } as Partial<BatchRequest['checks'][number]>;
    run.mutate({
      checks: checks.map(({ principal, action, resource }) => ({
        principal: principal.trim(),
        action: action.trim(),
        resource: resource.trim(),
        ...shared,
      })),
      ...(parsed.drafts.value !== undefined && {
        draftPolicies: parsed.drafts.value as BatchRequest['draftPolicies'],
      }),
      useStored,
      explain: true,
    });
  }

  const sharedProblems = (field: string) => {
    const found = problemsAtAnyCheck(run.error, field);
    return [...(localProblems[field] ? [localProblems[field]] : []), ...found.messages];
  };
  const draftProblems = problemsAt(run.error, 'draftPolicies');
  // `[0].principals[0]: …` reads as `draft 1, principals[0]: …`.
  const draftMessages = draftProblems.messages.map((message) =>
    message.replace(/^\[(\d+)\]\.?/, (_, index) => `draft ${Number(index) + 1}, `),
  );
  const shownAtFields = [
    ...checks.flatMap((_, i) =>
      ['principal', 'action', 'resource'].flatMap(
        (f) => problemsAt(run.error, `checks[${i}].${f}`).fields,
      ),
    ),
    ...problemsAtAnyCheck(run.error, 'context').fields,
    ...problemsAtAnyCheck(run.error, 'attributes').fields,
    ...draftProblems.fields,
  ];
  const results = run.data?.results;
  const sent = run.variables;

  return (
    <section className="admin-view" aria-labelledby="playground-title">
      <h1 id="playground-title">Policy playground</h1>
      <p className="muted">
        Ask whether a principal may do an action on a resource, and see which policy decided.
        Nothing is saved.
      </p>
      <form onSubmit={submit} noValidate className="playground">
        <ChecksTable checks={checks} onChange={setChecks} error={run.error} />
        <div className="columns">
          <Field
            label="Context (JSON)"
            hint='For conditions: {"ip": "10.1.2.3", "time": "2026-11-25T21:00:00Z"}; empty for none.'
            problems={sharedProblems('context')}
          >
            {(input) => (
              <textarea
                {...input}
                className="mono"
                rows={4}
                spellCheck={false}
                value={context}
                onChange={(e) => setContext(e.target.value)}
              />
            )}
          </Field>
          <Field
            label="Attributes (JSON)"
            hint='What the check says of its principal, resource and action: {"resource": {"status": "archived"}}.'
            problems={sharedProblems('attributes')}
          >
            {(input) => (
              <textarea
                {...input}
                className="mono"
                rows={4}
                spellCheck={false}
                value={attributes}
                onChange={(e) => setAttributes(e.target.value)}
              />
            )}
          </Field>
        </div>
        <Field
          label="Draft policies (JSON array)"
          hint="Policies tried as if they were stored, before saving them: the same fields as a new policy."
          problems={[...(localProblems.drafts ? [localProblems.drafts] : []), ...draftMessages]}
        >
          {(input) => (
            <textarea
              {...input}
              className="mono"
              rows={drafts ? 8 : 2}
              spellCheck={false}
              value={drafts}
              onChange={(e) => setDrafts(e.target.value)}
            />
          )}
        </Field>
        <p className="checkbox">
          <input
            id={useStoredId}
            type="checkbox"
            checked={useStored}
            onChange={(e) => setUseStored(e.target.checked)}
          />
          <label htmlFor={useStoredId}>Also evaluate the stored policies</label>
        </p>
        <p className="actions">
          <button type="submit" disabled={run.isPending}>
            {run.isPending
              ? 'Checking…'
              : checks.length > 1
                ? `Check all ${checks.length}`
                : 'Check'}
          </button>
        </p>
      </form>
      {run.error && (
        <ApiErrorMessage
          error={run.error}
          doing="simulate decisions"
          shownAtFields={shownAtFields}
        />
      )}
      <p role="status" className="visually-hidden">
        {results && summary(results)}
      </p>
      {results && sent && (
        <div ref={answer}>
          {results.length > 1 && (
            <Results
              checks={sent.checks}
              results={results}
              selected={selected}
              onSelect={setSelected}
            />
          )}
          {results[selected] && sent.checks[selected] && (
            <Explanation check={sent.checks[selected]} result={results[selected]} />
          )}
        </div>
      )}
    </section>
  );
}

/** What the status line reads out when the answer comes. */
function summary(results: SimulationResult[]): string {
  const [only] = results;
  if (results.length === 1 && only) return decisionSentence(only);
  const allowed = results.filter((r) => r.allowed).length;
  return `${results.length} decisions: ${allowed} allowed, ${results.length - allowed} denied.`;
}

/** The problems a 400 names at `field` of any check (`checks[3].context.ip`): shared inputs. */
function problemsAtAnyCheck(error: unknown, field: string) {
  if (!(error instanceof SecadminApiError) || error.status !== 400)
    return { messages: [], fields: [] };
  const found = error.details.filter((detail) => {
    const rest = /^(?:body\.)?checks\[\d+\]\.(.*)$/.exec(detail.field)?.[1];
    return (
      rest !== undefined &&
      (rest === field || rest.startsWith(`${field}.`) || rest.startsWith(`${field}[`))
    );
  });
  return {
    messages: found.map((detail) => `${detail.field.replace(/^body\./, '')} ${detail.message}`),
    fields: found.map((detail) => detail.field),
  };
}
