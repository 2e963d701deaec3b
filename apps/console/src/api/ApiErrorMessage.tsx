import { SecadminApiError, SecadminConnectionError } from '@secadmin/api-client';
import { useSession } from '../session/session.js';

/** The message the API gave for one field (`body.query`), for showing at that field. */
export function fieldError(error: unknown, field: string): string | undefined {
  if (!(error instanceof SecadminApiError)) return undefined;
  return error.details.find((detail) => detail.field === field)?.message;
}

/**
 * An API error as a person reads it: a 403 says what this key may not do (the server names the
 * right), a 401 offers to sign in again, a 400 lists what to change (except the fields shown at
 * their inputs), anything else says what happened and the request's id to report it.
 */
export function ApiErrorMessage({
  error,
  doing,
  shownAtFields = [],
}: {
  error: unknown;
  /** What was being done, for the sentence: "search the log". */
  doing: string;
  /** Fields whose problem is shown beside their input already. */
  shownAtFields?: string[];
}) {
  const { signOut } = useSession();
  if (error instanceof SecadminApiError) {
    if (error.status === 403)
      return (
        <div className="notice forbidden" role="alert">
          <p>
            <strong>This key may not {doing}.</strong> The server says: “{error.message}” Ask an
            administrator for a policy that allows it, or sign in with another key.
          </p>
        </div>
      );
    if (error.status === 401)
      return (
        <div className="notice error" role="alert">
          <p>
            <strong>The key is no longer accepted</strong> (revoked or expired).{' '}
            <button type="button" onClick={signOut}>
              Sign in again
            </button>
          </p>
        </div>
      );
    const details = error.details.filter((detail) => !shownAtFields.includes(detail.field));
    if (error.status === 400 && details.length === 0 && shownAtFields.length > 0) return null;
    return (
      <div className="notice error" role="alert">
        <p>
          <strong>Could not {doing}:</strong> {error.message}
          {error.status >= 500 && error.requestId && ` (request ${error.requestId})`}
        </p>
        {details.length > 0 && (
          <ul>
            {details.map((detail) => (
              <li key={`${detail.field}:${detail.message}`}>
                <code>{detail.field}</code> {detail.message}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  const message =
    error instanceof SecadminConnectionError
      ? 'the server did not answer. Check the connection and try again.'
      : (error as Error)?.message;
  return (
    <div className="notice error" role="alert">
      <p>
        <strong>Could not {doing}:</strong> {message}
      </p>
    </div>
  );
}
