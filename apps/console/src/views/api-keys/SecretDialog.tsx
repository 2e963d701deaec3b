import { useEffect, useId, useRef, useState } from 'react';
import type { ApiKeyCreated } from './ApiKeysView.js';

/**
 * The new key's secret, this once: a modal dialog to copy it from. Closing it (Done, Escape)
 * drops the secret: it is in no storage, no address and no cache, and cannot be shown again.
 */
export function SecretDialog({
  created,
  onClose,
}: {
  created: ApiKeyCreated;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [copied, setCopied] = useState<string>();
  const titleId = useId();
  const secretId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    element.showModal();
    return () => element.close();
  }, []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.secret);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('The browser did not allow copying: select the secret and copy it yourself.');
    }
  }

  return (
    <dialog ref={dialog} className="secret" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>Key “{created.name}” created</h2>
      <p>
        <strong>Copy the secret now.</strong> It is shown this once: the server keeps only a hash,
        and the console forgets it when this dialog closes.
      </p>
      <label htmlFor={secretId}>Secret of {created.id}</label>
      <input
        id={secretId}
        className="mono"
        readOnly
        value={created.secret}
        spellCheck={false}
        autoComplete="off"
        onFocus={(event) => event.target.select()}
      />
      <p className="actions">
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
          Done, I have stored it
        </button>
      </p>
      <p role="status">{copied}</p>
    </dialog>
  );
}
