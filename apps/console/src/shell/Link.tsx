import type { AnchorHTMLAttributes } from 'react';
import { hrefOf, navigate } from './location.js';

/**
 * A link to a view of the console: a real `href` (it opens in a new tab, where the person signs
 * in again), followed in this page without reloading it, so the key in memory stays.
 */
export function Link({
  view,
  state,
  ...rest
}: { view: string; state?: URLSearchParams } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  return (
    <a
      {...rest}
      href={hrefOf(view, state)}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey || event.button !== 0)
          return;
        event.preventDefault();
        navigate(view, state);
      }}
    />
  );
}
