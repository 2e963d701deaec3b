import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { SignIn } from '../session/SignIn.js';
import { useSession } from '../session/session.js';
import { views } from '../views/registry.js';
import { CrashBoundary } from './CrashBoundary.js';
import { Link } from './Link.js';
import { navigate, useLocation } from './location.js';

const loaded = new Map(views.map((view) => [view.path, lazy(view.load)]));

export function Shell() {
  const { client, signOut } = useSession();
  const { view } = useLocation();
  const first = views[0]?.path ?? '';
  useEffect(() => {
    if (view === '') navigate(first, undefined, true);
  }, [view, first]);
  const current = views.find((v) => v.path === view);
  const View = loaded.get(view);
  const main = useRef<HTMLElement>(null);
  const shownView = useRef(view);
  // On a narrow screen the menu is behind a button; choosing a view closes it.
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();
  useEffect(() => setMenuOpen(false), [view]);
  useEffect(() => {
    if (current) document.title = `${current.label} · secadmin console`;
    // After a change of view, keyboard and screen-reader users start at the new content.
    if (shownView.current !== view) main.current?.focus();
    shownView.current = view;
  }, [current, view]);
  // …and so they do after signing in, rather than on a page whose focused form is gone.
  const signedIn = client !== undefined;
  useEffect(() => {
    if (signedIn) main.current?.focus();
  }, [signedIn]);

  if (!client) return <SignIn />;
  return (
    <div className="shell">
      {/* A button, not a link to #main: the fragment holds the view's state. */}
      <button type="button" className="skip" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header className="top">
        <span className="brand">secadmin console</span>
        <button
          type="button"
          className="menu-toggle secondary"
          aria-expanded={menuOpen}
          aria-controls={menuId}
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <nav aria-label="Views" id={menuId} className={menuOpen ? 'open' : undefined}>
          <ul>
            {views.map((v) => (
              <li key={v.path}>
                <Link view={v.path} aria-current={v.path === view ? 'page' : undefined}>
                  {v.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" className="sign-out" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        <CrashBoundary key={view}>
          <Suspense fallback={<p aria-live="polite">Loading…</p>}>
            {View ? (
              <View />
            ) : (
              view !== '' && (
                <section>
                  <h1>No such view</h1>
                  <p>The console has no view named “{view}”. Choose one from the menu above.</p>
                </section>
              )
            )}
          </Suspense>
        </CrashBoundary>
      </main>
    </div>
  );
}
