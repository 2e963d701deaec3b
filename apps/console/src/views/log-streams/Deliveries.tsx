import { useQuery } from '@tanstack/react-query';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { REFRESH_MS } from './stream-parts.js';

/** The stream's last delivery attempts, newest first. */
export function Deliveries({ id }: { id: string }) {
  const client = useClient();
  const deliveries = useQuery({
    queryKey: ['log-stream-deliveries', id],
    queryFn: () => client.logStreams.listDeliveries(id),
    refetchInterval: (query) => (query.state.error ? false : REFRESH_MS),
  });
  return (
    <section aria-labelledby="deliveries-title">
      <h3 id="deliveries-title">Deliveries</h3>
      {deliveries.error ? (
        <ApiErrorMessage error={deliveries.error} doing="list this stream's deliveries" />
      ) : !deliveries.data ? (
        <p aria-live="polite">Loading deliveries…</p>
      ) : deliveries.data.length === 0 ? (
        <p>Nothing delivered or tried yet.</p>
      ) : (
        <table className="grid">
          <caption className="visually-hidden">Delivery attempts, newest first</caption>
          <thead>
            <tr>
              <th scope="col">At</th>
              <th scope="col">Seqs</th>
              <th scope="col">Entries</th>
              <th scope="col">Attempt</th>
              <th scope="col">HTTP status</th>
              <th scope="col">Duration</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.map((delivery) => (
              <tr
                key={`${delivery.at}-${delivery.fromSeq}-${delivery.attempt}`}
                className={delivery.error ? 'failed' : undefined}
              >
                <td>
                  <time dateTime={delivery.at}>{delivery.at}</time>
                </td>
                <td className="number">
                  {delivery.fromSeq}–{delivery.toSeq}
                </td>
                <td className="number">{delivery.entries}</td>
                <td className="number">{delivery.attempt}</td>
                <td className="number">{delivery.httpStatus ?? '—'}</td>
                <td className="number">{delivery.durationMs} ms</td>
                <td>{delivery.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
