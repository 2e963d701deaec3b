import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { MoreButton, usePages } from '../paging.js';

/** Users oldest first, or the one with `email` (exact, case-insensitive). */
export function UserList({ email }: { email: string | undefined }) {
  const client = useClient();
  const pages = usePages(['users', email], (cursor) =>
    client.users.list({ limit: 50, cursor, ...(email && { email }) }),
  );
  if (pages.error)
    return (
      <ApiErrorMessage error={pages.error} doing={email ? 'find users by email' : 'list users'} />
    );
  if (pages.isPending) return <p aria-live="polite">Loading users…</p>;
  if (pages.items.length === 0)
    return <p role="status">{email ? `No user has the email ${email}.` : 'No users yet.'}</p>;
  return (
    <>
      <table className="grid">
        <caption className="visually-hidden">
          {email ? `Users with the email ${email}` : 'Users, oldest first'}
        </caption>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Name</th>
            <th scope="col">Roles</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((user) => (
            <tr key={user.id}>
              <th scope="row">
                <Link view="users" state={new URLSearchParams({ id: user.id })}>
                  {user.email}
                </Link>
              </th>
              <td>{user.name}</td>
              <td className="mono">{user.roles.join(', ')}</td>
              <td>
                <time dateTime={user.createdAt}>{user.createdAt}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreButton pages={pages} what="users" />
    </>
  );
}
