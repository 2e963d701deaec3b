import { useQuery } from '@tanstack/react-query';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { pretty } from '../form-fields.js';
import { openPolicy } from './PoliciesView.js';

export function PolicyDetail({ id }: { id: string }) {
  const client = useClient();
  const policy = useQuery({ queryKey: ['policy', id], queryFn: () => client.policies.get(id) });
  return (
    <>
      <p>
        <Link view="policies">All policies</Link>
      </p>
      {policy.error ? (
        <ApiErrorMessage error={policy.error} doing={`read policy ${id}`} />
      ) : !policy.data ? (
        <p aria-live="polite">Loading the policy…</p>
      ) : (
        <article aria-labelledby="policy-name">
          <h2 id="policy-name">{policy.data.name}</h2>
          {policy.data.description && <p>{policy.data.description}</p>}
          <dl className="facts">
            <dt>ID</dt>
            <dd className="mono">{policy.data.id}</dd>
            <dt>Effect</dt>
            <dd>
              <span className={`badge ${policy.data.effect}`}>{policy.data.effect}</span>
            </dd>
            <dt>Principals</dt>
            <dd>
              <List items={policy.data.principals} empty="none (it matches no request)" />
            </dd>
            <dt>Actions</dt>
            <dd>
              <List items={policy.data.actions} />
            </dd>
            <dt>Resources</dt>
            <dd>
              <List items={policy.data.resources} />
            </dd>
            <dt>Conditions</dt>
            <dd>
              {policy.data.conditions ? (
                <pre className="json">{pretty(policy.data.conditions)}</pre>
              ) : (
                'none'
              )}
            </dd>
            <dt>Created</dt>
            <dd>
              <time dateTime={policy.data.createdAt}>{policy.data.createdAt}</time>
            </dd>
            <dt>Updated</dt>
            <dd>
              <time dateTime={policy.data.updatedAt}>{policy.data.updatedAt}</time>
            </dd>
          </dl>
          <p className="actions">
            <button type="button" onClick={() => openPolicy(id, true)}>
              Edit
            </button>
          </p>
        </article>
      )}
    </>
  );
}

function List({ items, empty = 'none' }: { items: string[]; empty?: string }) {
  if (items.length === 0) return <>{empty}</>;
  return (
    <ul className="plain">
      {items.map((item) => (
        <li key={item} className="mono">
          {item}
        </li>
      ))}
    </ul>
  );
}
