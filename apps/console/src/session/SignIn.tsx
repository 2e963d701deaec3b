import { SecadminApiError } from '@secadmin/api-client';
import { type FormEvent, useId, useState } from 'react';
import { clientFor, useSession } from './session.js';

/**
 * Asks for an API key and checks it with one read: a 401 means the key is not accepted; a 403
 * means the key is good but may not list logs, which the views say for themselves.
 */
export function SignIn() {
  const { signIn } = useSession();
  const [key, setKey] = useState('');
  const [remember, setRemember] = useState(false);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const keyId = useId();
  const problemId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!/^sk_\S+$/.test(trimmed)) {
      setProblem('An API key starts with sk_ (for example sk_3Jf…); paste the whole key.');
      return;
    }
    setBusy(true);
    setProblem(undefined);
    const client = clientFor(trimmed);
    try {
      await client.logs.list({ limit: 1 });
      signIn(client, trimmed, remember);
    } catch (error) {
      if (error instanceof SecadminApiError && error.status === 403)
        signIn(client, trimmed, remember);
      else if (error instanceof SecadminApiError && error.status === 401)
        setProblem('This key is not accepted: it is unknown, revoked or expired.');
      else setProblem(`The server could not be reached: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>secadmin console</h1>
      <form onSubmit={submit} noValidate>
        <p>Sign in with an API key. The console sends it only to this server's API.</p>
        <label htmlFor={keyId}>API key</label>
        <input
          id={keyId}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          onChange={(event) => setKey(event.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? problemId : undefined}
          required
        />
        <label className="checkbox">
          <input
            type="checkbox"
            checked={remember}
            onChange={(event) => setRemember(event.target.checked)}
          />
          Remember in this tab (until the tab closes)
        </label>
        {problem && (
          <p id={problemId} className="error" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
