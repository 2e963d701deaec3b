import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { MoreButton, usePages } from '../paging.js';

export function ApiKeyList() {
  const client = useClient();
  const queryClient = useQueryClient();
  const pages = usePages(['api-keys'], (cursor) => client.apiKeys.list({ limit: 50, cursor }));
  const [confirming, setConfirming] = useState<string>();
  const revoke = useMutation({
    mutationFn: (id: string) => client.apiKeys.delete(id),
    onSuccess: async () => {
      setConfirming(undefined);
      await queryClient.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  if (pages.error) return <ApiErrorMessage error={pages.error} doing="list API keys" />;
  if (pages.isPending) return <p aria-live="polite">Loading keys…</p>;
  return (
    <>
      {revoke.error && <ApiErrorMessage error={revoke.error} doing="revoke this API key" />}
      {pages.items.length === 0 ? (
        <p>No API keys this key may see.</p>
      ) : (
        <table className="grid">
          <caption className="visually-hidden">API keys, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Principal</th>
              <th scope="col">Plan</th>
              <th scope="col">Limit a minute</th>
              <th scope="col">Expires</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pages.items.map((key) => (
              <tr key={key.id}>
                <th scope="row">
                  {key.name} <span className="mono muted">{key.id}</span>
                </th>
                <td className="mono">{key.principal}</td>
                <td>{key.plan}</td>
                <td>{key.rateLimitPerMinute.toLocaleString('en')}</td>
                <td>
                  {key.expiresAt ? <time dateTime={key.expiresAt}>{key.expiresAt}</time> : 'never'}
                </td>
                <td>
                  <time dateTime={key.createdAt}>{key.createdAt}</time>
                </td>
                <td>
                  {confirming === key.id ? (
                    <fieldset className="confirm">
                      <legend>Revoke “{key.name}”? It stops working at once.</legend>
                      <button
                        type="button"
                        className="danger"
                        disabled={revoke.isPending}
                        onClick={() => revoke.mutate(key.id)}
                      >
                        Revoke now
                      </button>
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => setConfirming(undefined)}
                      >
                        Keep
                      </button>
                    </fieldset>
                  ) : (
                    <button
                      type="button"
                      className="secondary"
                      aria-label={`Revoke ${key.name}`}
                      onClick={() => {
                        revoke.reset();
                        setConfirming(key.id);
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton pages={pages} what="keys" />
    </>
  );
}
