import { useQuery } from '@tanstack/react-query';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { pretty } from '../form-fields.js';

export function UserDetail({ id }: { id: string }) {
  const client = useClient();
  const user = useQuery({ queryKey: ['user', id], queryFn: () => client.users.get(id) });
  return (
    <>
      <p>
        <Link view="users">All users</Link>
      </p>
      {user.error ? (
        <ApiErrorMessage error={user.error} doing={`read user ${id}`} />
      ) : !user.data ? (
        <p aria-live="polite">Loading the user…</p>
      ) : (
        <article aria-labelledby="user-title">
          <h2 id="user-title">
            {user.data.name ? `${user.data.name} <${user.data.email}>` : user.data.email}
          </h2>
          <dl className="facts">
            <dt>ID</dt>
            <dd className="mono">{user.data.id}</dd>
            <dt>Email</dt>
            <dd>
              {user.data.email} {user.data.emailVerified ? '(verified)' : '(not verified)'}
            </dd>
            <dt>Active</dt>
            <dd>
              {user.data.active ? (
                'yes'
              ) : (
                <span className="badge deny">
                  inactive: every decision about this user is a deny
                </span>
              )}
            </dd>
            {user.data.externalId && (
              <>
                <dt>External ID</dt>
                <dd className="mono">{user.data.externalId}</dd>
              </>
            )}
            <dt>Roles</dt>
            <dd>
              {user.data.roles.length === 0 ? (
                'none'
              ) : (
                <ul className="plain">
                  {user.data.roles.map((role) => (
                    <li key={role} className="mono">
                      {role}
                    </li>
                  ))}
                </ul>
              )}
            </dd>
            <dt>Metadata</dt>
            <dd>
              {Object.keys(user.data.metadata).length === 0 ? (
                'none'
              ) : (
                <pre className="json">{pretty(user.data.metadata)}</pre>
              )}
            </dd>
            <dt>Created</dt>
            <dd>
              <time dateTime={user.data.createdAt}>{user.data.createdAt}</time>
            </dd>
            <dt>Updated</dt>
            <dd>
              <time dateTime={user.data.updatedAt}>{user.data.updatedAt}</time>
            </dd>
          </dl>
          <p>
            <Link
              view="playground"
              state={new URLSearchParams({ principal: `user:${user.data.id}` })}
            >
              Check this user's access in the playground
            </Link>
          </p>
          <UserKeys userId={user.data.id} />
        </article>
      )}
    </>
  );
}

/**
 * The API keys acting as this user. The API lists keys without a principal filter, so this
 * walks the pages and keeps this user's.
 */
function UserKeys({ userId }: { userId: string }) {
  const client = useClient();
  const principal = `user:${userId}`;
  const keys = useQuery({
    queryKey: ['api-keys', 'of', principal],
    queryFn: async () => {
      const found = [];
      for await (const key of client.apiKeys.list({ limit: 100 }))
        if (key.principal === principal) found.push(key);
      return found;
    },
  });
  return (
    <section aria-labelledby="user-keys-title">
      <h3 id="user-keys-title">API keys</h3>
      {keys.error ? (
        <ApiErrorMessage error={keys.error} doing="list API keys" />
      ) : !keys.data ? (
        <p aria-live="polite">Loading keys…</p>
      ) : keys.data.length === 0 ? (
        <p>No API key acts as this user.</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">ID</th>
              <th scope="col">Plan</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((key) => (
              <tr key={key.id}>
                <th scope="row">{key.name}</th>
                <td className="mono">{key.id}</td>
                <td>{key.plan}</td>
                <td>
                  {key.expiresAt ? <time dateTime={key.expiresAt}>{key.expiresAt}</time> : 'never'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
