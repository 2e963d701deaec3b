import type { components } from '@secadmin/api-client';

export type LogStream = components['schemas']['LogStream'];

/** While a stream is watched, its lag and health are asked for again this often. */
export const REFRESH_MS = 5_000;

const STATUS_CLASS: Record<LogStream['status'], string> = {
  active: 'allow',
  paused: 'neutral',
  failing: 'deny',
  disabled: 'deny',
};

export function StreamStatus({ status }: { status: LogStream['status'] }) {
  return <span className={`badge ${STATUS_CLASS[status]}`}>{status}</span>;
}

export function LastError({ error }: { error: LogStream['lastError'] }) {
  if (!error) return <span className="muted">none</span>;
  return (
    <>
      {error.httpStatus !== undefined && <>HTTP {error.httpStatus}: </>}
      {error.message}{' '}
      <span className="muted">
        (<time dateTime={error.at}>{error.at}</time>)
      </span>
    </>
  );
}

export function Destination({ destination }: { destination: LogStream['destination'] }) {
  return (
    <>
      {destination.type === 'splunk_hec' ? 'Splunk HEC' : 'Webhook'}{' '}
      <span className="mono">{destination.url}</span>
    </>
  );
}
