import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { navigate } from '../../shell/location.js';
import { MoreButton, usePages } from '../paging.js';

export function PolicyList() {
  const client = useClient();
  const pages = usePages(['policies'], (cursor) => client.policies.list({ limit: 50, cursor }));
  return (
    <>
      <p className="actions">
        <button
          type="button"
          onClick={() => navigate('policies', new URLSearchParams({ new: '1' }))}
        >
          New policy
        </button>
        <Link view="playground">Open the playground</Link>
      </p>
      {pages.error ? (
        <ApiErrorMessage error={pages.error} doing="list policies" />
      ) : pages.isPending ? (
        <p aria-live="polite">Loading policies…</p>
      ) : pages.items.length === 0 ? (
        <p>No policies yet. Without a policy, every key but the root key is denied.</p>
      ) : (
        <table className="grid">
          <caption className="visually-hidden">Policies, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Effect</th>
              <th scope="col">Principals</th>
              <th scope="col">Actions</th>
              <th scope="col">Resources</th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((policy) => (
              <tr key={policy.id}>
                <th scope="row">
                  <Link view="policies" state={new URLSearchParams({ id: policy.id })}>
                    {policy.name}
                  </Link>
                </th>
                <td>
                  <span className={`badge ${policy.effect}`}>{policy.effect}</span>
                </td>
                <td className="mono">{policy.principals.join(', ')}</td>
                <td className="mono">{policy.actions.join(', ')}</td>
                <td className="mono">{policy.resources.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton pages={pages} what="policies" />
    </>
  );
}
