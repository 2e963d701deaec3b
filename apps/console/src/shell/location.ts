import { useSyncExternalStore } from 'react';

/**
 * The console's address: `/console/<view>#<state>`. The view is a path, so the server answers
 * it with the console's page; the view's state (a search, an open entry) is in the fragment,
 * which browsers never send to a server. Neither ever holds the API key.
 */
export const BASE = '/console';
const CHANGE = 'secadmin:location';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener('hashchange', onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener('hashchange', onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

const snapshot = () => window.location.pathname + window.location.hash;

/** The current view's name (`logs` for `/console/logs`; empty for `/console`). */
export function viewName(path = window.location.pathname): string {
  return path.slice(BASE.length).replace(/^\/+|\/+$/g, '');
}

/** Re-renders on every change of the address; answers `{ view, state }`. */
export function useLocation(): { view: string; state: URLSearchParams } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const hashAt = current.indexOf('#');
  const path = hashAt === -1 ? current : current.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : current.slice(hashAt + 1);
  return { view: viewName(path), state: new URLSearchParams(hash) };
}

export function hrefOf(view: string, state?: URLSearchParams): string {
  const hash = state?.toString();
  return `${BASE}/${view}${hash ? `#${hash}` : ''}`;
}

/** Goes to a view with the given state; `replace` keeps the browser's history as it is. */
export function navigate(view: string, state?: URLSearchParams, replace = false): void {
  const href = hrefOf(view, state);
  if (href === snapshot()) return;
  if (replace) window.history.replaceState(null, '', href);
  else window.history.pushState(null, '', href);
  window.dispatchEvent(new Event(CHANGE));
}
