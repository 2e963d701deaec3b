import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { MoreButton, usePages } from '../paging.js';
import { Destination, LastError, REFRESH_MS, StreamStatus } from './stream-parts.js';

export function LogStreamList() {
  const client = useClient();
  const pages = usePages(
    ['log-streams'],
    (cursor) => client.logStreams.list({ limit: 50, cursor }),
    REFRESH_MS,
  );
  if (pages.error) return <ApiErrorMessage error={pages.error} doing="list log streams" />;
  if (pages.isPending) return <p aria-live="polite">Loading log streams…</p>;
  if (pages.items.length === 0)
    return (
      <p>
        No log streams. A stream pushes the sealed log to a SIEM or a webhook; create one through
        the API.
      </p>
    );
  return (
    <>
      <table className="grid">
        <caption className="visually-hidden">Log streams, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Destination</th>
            <th scope="col">Status</th>
            <th scope="col">Lag (entries)</th>
            <th scope="col">Delivered through seq</th>
            <th scope="col">Last delivery</th>
            <th scope="col">Last error</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((stream) => (
            <tr key={stream.id}>
              <th scope="row">
                <Link view="log-streams" state={new URLSearchParams({ id: stream.id })}>
                  {stream.name}
                </Link>
              </th>
              <td>
                <Destination destination={stream.destination} />
              </td>
              <td>
                <StreamStatus status={stream.status} />
              </td>
              <td className="number">{stream.lagEntries.toLocaleString('en')}</td>
              <td className="number">{stream.deliveredThroughSeq}</td>
              <td>
                {stream.lastDeliveryAt ? (
                  <time dateTime={stream.lastDeliveryAt}>{stream.lastDeliveryAt}</time>
                ) : (
                  <span className="muted">never</span>
                )}
              </td>
              <td>
                <LastError error={stream.lastError} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <MoreButton pages={pages} what="streams" />
    </>
  );
}
