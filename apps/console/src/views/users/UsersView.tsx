import { type FormEvent, useId, useState } from 'react';
import { navigate, useLocation } from '../../shell/location.js';
import '../views.css';
import { UserDetail } from './UserDetail.js';
import { UserList } from './UserList.js';

/** Users: find one by email (`#email=…`), or list them; one user's detail at `#id=user_…`. */
export default function UsersView() {
  const { state } = useLocation();
  const id = state.get('id');
  const email = state.get('email') ?? undefined;
  return (
    <section className="admin-view" aria-labelledby="users-title">
      <h1 id="users-title">Users</h1>
      {id ? (
        <UserDetail id={id} />
      ) : (
        <>
          <FindByEmail key={email} email={email} />
          <UserList email={email} />
        </>
      )}
    </section>
  );
}

function FindByEmail({ email }: { email: string | undefined }) {
  const [text, setText] = useState(email ?? '');
  const inputId = useId();
  function submit(event: FormEvent) {
    event.preventDefault();
    const wanted = text.trim();
    navigate('users', new URLSearchParams(wanted ? { email: wanted } : {}));
  }
  return (
    <search>
      <form className="inline-form" onSubmit={submit}>
        <label htmlFor={inputId}>Email</label>
        <input
          id={inputId}
          type="search"
          inputMode="email"
          autoComplete="off"
          spellCheck={false}
          placeholder="ada@example.com"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <button type="submit">Find</button>
        {email && (
          <button type="button" className="secondary" onClick={() => navigate('users')}>
            Show all users
          </button>
        )}
      </form>
    </search>
  );
}
