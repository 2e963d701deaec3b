import type { components } from '@secadmin/api-client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Field } from '../Field.js';
import { problemsAt } from '../form-fields.js';
import type { ApiKeyCreated } from './ApiKeysView.js';

type ApiKeyCreate = components['schemas']['ApiKeyCreate'];
type Plan = components['schemas']['Plan'];

const FIELDS = ['name', 'principal', 'plan', 'rateLimitPerMinute', 'expiresAt'] as const;

export function CreateApiKey({ onCreated }: { onCreated: (created: ApiKeyCreated) => void }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [principal, setPrincipal] = useState('');
  const [plan, setPlan] = useState<Plan>('free');
  const [limit, setLimit] = useState('');
  const [expires, setExpires] = useState('');
  const [limitProblem, setLimitProblem] = useState<string>();
  const create = useMutation({
    mutationFn: (body: ApiKeyCreate) => client.apiKeys.create(body),
    // The answer holds the secret: it goes to the dialog and nowhere else, not even this cache.
    gcTime: 0,
    onSuccess: async (created) => {
      onCreated(created);
      create.reset();
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const problems = Object.fromEntries(FIELDS.map((f) => [f, problemsAt(create.error, f)]));
  const shownAtFields = Object.values(problems).flatMap((p) => p.fields);

  function submit(event: FormEvent) {
    event.preventDefault();
    const wantsLimit = plan === 'enterprise';
    if (wantsLimit && !/^\d+$/.test(limit.trim())) {
      setLimitProblem(
        'must be a whole number of requests per minute (the enterprise plan needs one)',
      );
      return;
    }
    setLimitProblem(undefined);
    create.mutate({
      name,
      principal: principal.trim(),
      plan,
      ...(wantsLimit && { rateLimitPerMinute: Number(limit.trim()) }),
      ...(expires && { expiresAt: new Date(expires).toISOString().replace(/\.\d{3}Z$/, 'Z') }),
    });
  }

  return (
    <form className="editor" onSubmit={submit} noValidate aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <Field label="Name" problems={problems.name?.messages}>
        {(input) => <input {...input} value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field
        label="Principal"
        hint="Who the key acts as: user:<id>, role:<id> or service:<name>. A key that is not root may only create keys for its own principal."
        problems={problems.principal?.messages}
      >
        {(input) => (
          <input
            {...input}
            className="mono"
            spellCheck={false}
            placeholder="service:ci"
            value={principal}
            onChange={(e) => setPrincipal(e.target.value)}
          />
        )}
      </Field>
      <Field
        label="Plan"
        hint="free: 100 requests a minute; pro: 1,000; enterprise: the limit you set."
        problems={problems.plan?.messages}
      >
        {(input) => (
          <select {...input} value={plan} onChange={(e) => setPlan(e.target.value as Plan)}>
            <option value="free">free</option>
            <option value="pro">pro</option>
            <option value="enterprise">enterprise</option>
          </select>
        )}
      </Field>
      {plan === 'enterprise' && (
        <Field
          label="Requests per minute"
          problems={[
            ...(limitProblem ? [limitProblem] : []),
            ...(problems.rateLimitPerMinute?.messages ?? []),
          ]}
        >
          {(input) => (
            <input
              {...input}
              inputMode="numeric"
              value={limit}
              onChange={(e) => setLimit(e.target.value)}
            />
          )}
        </Field>
      )}
      <Field label="Expires (optional, your local time)" problems={problems.expiresAt?.messages}>
        {(input) => (
          <input
            {...input}
            type="datetime-local"
            value={expires}
            onChange={(e) => setExpires(e.target.value)}
          />
        )}
      </Field>
      {create.error && (
        <ApiErrorMessage
          error={create.error}
          doing="create API keys"
          shownAtFields={shownAtFields}
        />
      )}
      <p className="actions">
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create key'}
        </button>
      </p>
    </form>
  );
}
