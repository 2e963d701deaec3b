import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { navigate } from '../../shell/location.js';
import { Field } from '../Field.js';
import { problemsAt } from '../form-fields.js';
import { bodyOf, emptyForm, formOf, type PolicyForm } from './policy-form.js';

/** Edits the policy `id`, or writes a new one; `onDone` gets the saved policy's id. */
export function PolicyEditor({ id, onDone }: { id?: string; onDone: (id?: string) => void }) {
  const client = useClient();
  const stored = useQuery({
    queryKey: ['policy', id, 'for editing'],
    enabled: id !== undefined,
    // The ETag of this very answer, so a save does not overwrite a change made meanwhile.
    queryFn: async () => {
      const policy = await client.policies.get(id as string);
      return { policy, etag: client.etagOf(policy) };
    },
    gcTime: 0,
  });
  if (id === undefined) return <PolicyFormView onDone={onDone} initial={emptyForm} />;
  if (stored.error) return <ApiErrorMessage error={stored.error} doing={`read policy ${id}`} />;
  if (!stored.data) return <p aria-live="polite">Loading the policy…</p>;
  return (
    <PolicyFormView
      id={id}
      etag={stored.data.etag}
      initial={formOf(stored.data.policy)}
      onDone={onDone}
    />
  );
}

const FIELDS = [
  'name',
  'description',
  'effect',
  'principals',
  'actions',
  'resources',
  'conditions',
] as const;

function PolicyFormView({
  id,
  etag,
  initial,
  onDone,
}: {
  id?: string;
  etag?: string | undefined;
  initial: PolicyForm;
  onDone: (id?: string) => void;
}) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [form, setForm] = useState(initial);
  const [conditionsProblem, setConditionsProblem] = useState<string>();
  const save = useMutation({
    mutationFn: async (body: NonNullable<ReturnType<typeof bodyOf>['body']>) => {
      if (id === undefined) return client.policies.create(body);
      const { description, conditions, ...rest } = body;
      return client.policies.update(
        id,
        { ...rest, description: description ?? null, conditions: conditions ?? null },
        etag ? { ifMatch: etag } : {},
      );
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['policies'] });
      await queryClient.invalidateQueries({ queryKey: ['policy', saved.id] });
      onDone(saved.id);
    },
  });
  const problems = Object.fromEntries(
    FIELDS.map((f) => [f, problemsAt(save.error, f, save.variables)]),
  );
  const shownAtFields = Object.values(problems).flatMap((p) => p.fields);
  const set = (field: keyof PolicyForm) => (event: { target: { value: string } }) =>
    setForm({ ...form, [field]: event.target.value });

  function submit(event: FormEvent) {
    event.preventDefault();
    const { body, conditionsProblem } = bodyOf(form);
    setConditionsProblem(conditionsProblem);
    if (body) save.mutate(body);
    else save.reset(); // the API's answer to an earlier try is not about this text
  }

  function tryInPlayground() {
    const { body, conditionsProblem } = bodyOf(form);
    setConditionsProblem(conditionsProblem);
    if (body) navigate('playground', new URLSearchParams({ drafts: JSON.stringify([body]) }));
  }

  return (
    <form className="editor" onSubmit={submit} noValidate aria-labelledby="editor-title">
      <p>
        <Link view="policies" state={new URLSearchParams(id ? { id } : {})}>
          {id ? 'Back to the policy' : 'All policies'}
        </Link>
      </p>
      <h2 id="editor-title">{id ? `Edit ${initial.name}` : 'New policy'}</h2>
      <Field label="Name" problems={problems.name?.messages}>
        {(input) => <input {...input} value={form.name} onChange={set('name')} required />}
      </Field>
      <Field label="Description" problems={problems.description?.messages}>
        {(input) => (
          <textarea {...input} rows={2} value={form.description} onChange={set('description')} />
        )}
      </Field>
      <Field label="Effect" problems={problems.effect?.messages}>
        {(input) => (
          <select {...input} value={form.effect} onChange={set('effect')}>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
          </select>
        )}
      </Field>
      <Field
        label="Principals"
        hint="One a line: user:<id>, role:<id>, service:<name>, user:${self} or *."
        problems={problems.principals?.messages}
      >
        {(input) => (
          <textarea
            {...input}
            className="mono"
            rows={3}
            value={form.principals}
            onChange={set('principals')}
          />
        )}
      </Field>
      <Field
        label="Actions"
        hint="One a line: <area>:<verb>; * matches any run of characters (users:*)."
        problems={problems.actions?.messages}
      >
        {(input) => (
          <textarea
            {...input}
            className="mono"
            rows={3}
            value={form.actions}
            onChange={set('actions')}
          />
        )}
      </Field>
      <Field
        label="Resources"
        hint="One a line; * matches any run of characters, / included; ${self} is the principal's id."
        problems={problems.resources?.messages}
      >
        {(input) => (
          <textarea
            {...input}
            className="mono"
            rows={3}
            value={form.resources}
            onChange={set('resources')}
          />
        )}
      </Field>
      <Field
        label="Conditions (JSON)"
        hint='Empty for none. For example {"ip": {"allowlist": ["10.0.0.0/8"]}}.'
        problems={[
          ...(conditionsProblem ? [conditionsProblem] : []),
          ...(problems.conditions?.messages ?? []),
        ]}
      >
        {(input) => (
          <textarea
            {...input}
            className="mono"
            rows={6}
            spellCheck={false}
            value={form.conditions}
            onChange={set('conditions')}
          />
        )}
      </Field>
      {save.error && (
        <ApiErrorMessage error={save.error} doing="save the policy" shownAtFields={shownAtFields} />
      )}
      <p className="actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : id ? 'Save changes' : 'Create policy'}
        </button>
        <button type="button" className="secondary" onClick={tryInPlayground}>
          Try as a draft in the playground
        </button>
        <button type="button" className="secondary" onClick={() => onDone(id)}>
          Cancel
        </button>
      </p>
    </form>
  );
}
