import type { ReactNode } from 'react';
import { hrefOf, navigate } from '../shell/location.js';

/** A link to a view's state that stays in the page (a new tab still works with its keys). */
export function ViewLink({
  view,
  state,
  children,
}: {
  view: string;
  state?: Record<string, string>;
  children: ReactNode;
}) {
  const params = new URLSearchParams(state);
  return (
    <a
      href={hrefOf(view, params)}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(view, params);
      }}
    >
      {children}
    </a>
  );
}
