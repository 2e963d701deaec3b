import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ApiErrorMessage } from '../../api/ApiErrorMessage.js';
import { useClient } from '../../session/session.js';
import { Link } from '../../shell/Link.js';
import { Field } from '../Field.js';
import { problemsAt } from '../form-fields.js';
import { Deliveries } from './Deliveries.js';
import { Destination, LastError, REFRESH_MS, StreamStatus } from './stream-parts.js';

export function LogStreamDetail({ id }: { id: string }) {
  const client = useClient();
  const stream = useQuery({
    queryKey: ['log-stream', id],
    queryFn: () => client.logStreams.get(id),
    refetchInterval: (query) => (query.state.error ? false : REFRESH_MS),
  });
  return (
    <>
      <p>
        <Link view="log-streams">All log streams</Link>
      </p>
      {stream.error ? (
        <ApiErrorMessage error={stream.error} doing={`read log stream ${id}`} />
      ) : !stream.data ? (
        <p aria-live="polite">Loading the stream…</p>
      ) : (
        <article aria-labelledby="stream-title">
          <h2 id="stream-title">{stream.data.name}</h2>
          <dl className="facts">
            <dt>ID</dt>
            <dd className="mono">{stream.data.id}</dd>
            <dt>Destination</dt>
            <dd>
              <Destination destination={stream.data.destination} />
            </dd>
            <dt>Status</dt>
            <dd>
              <StreamStatus status={stream.data.status} />
              {stream.data.consecutiveFailures > 0 &&
                ` after ${stream.data.consecutiveFailures} failed deliveries in a row`}
            </dd>
            <dt>Lag</dt>
            <dd>{stream.data.lagEntries.toLocaleString('en')} sealed entries not delivered yet</dd>
            <dt>Delivered through</dt>
            <dd>seq {stream.data.deliveredThroughSeq}</dd>
            <dt>Last delivery</dt>
            <dd>
              {stream.data.lastDeliveryAt ? (
                <time dateTime={stream.data.lastDeliveryAt}>{stream.data.lastDeliveryAt}</time>
              ) : (
                'never'
              )}
            </dd>
            <dt>Last error</dt>
            <dd>
              <LastError error={stream.data.lastError} />
            </dd>
            <dt>Filter</dt>
            <dd className="mono">
              {Object.keys(stream.data.filter).length === 0
                ? 'every entry'
                : JSON.stringify(stream.data.filter)}
            </dd>
            <dt>Batch size</dt>
            <dd>{stream.data.batchSize}</dd>
          </dl>
          <StreamActions id={id} status={stream.data.status} />
          <Deliveries id={id} />
        </article>
      )}
    </>
  );
}

function StreamActions({ id, status }: { id: string; status: string }) {
  const client = useClient();
  const queryClient = useQueryClient();
  const [fromSeq, setFromSeq] = useState('1');
  const [seqProblem, setSeqProblem] = useState<string>();
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['log-stream', id] }),
      queryClient.invalidateQueries({ queryKey: ['log-streams'] }),
      queryClient.invalidateQueries({ queryKey: ['log-stream-deliveries', id] }),
    ]);
  const setStatus = useMutation({
    mutationFn: (next: 'paused' | 'active') => client.logStreams.update(id, { status: next }),
    onSuccess: refresh,
  });
  const replay = useMutation({
    mutationFn: (seq: number) => client.logStreams.replay(id, { fromSeq: seq }),
    onSuccess: refresh,
  });
  const test = useMutation({ mutationFn: () => client.logStreams.test(id) });

  function submitReplay(event: FormEvent) {
    event.preventDefault();
    if (!/^[1-9]\d*$/.test(fromSeq.trim())) {
      setSeqProblem('must be a seq: a whole number from 1');
      return;
    }
    setSeqProblem(undefined);
    replay.mutate(Number(fromSeq.trim()));
  }
  const paused = status === 'paused';
  const replayProblems = problemsAt(replay.error, 'fromSeq');

  return (
    <section aria-labelledby="stream-actions-title">
      <h3 id="stream-actions-title">Actions</h3>
      <div className="actions">
        <button
          type="button"
          className="secondary"
          disabled={setStatus.isPending}
          onClick={() => setStatus.mutate(status === 'active' ? 'paused' : 'active')}
        >
          {status === 'active' ? 'Pause' : paused ? 'Resume' : 'Resume (resets the failure count)'}
        </button>
        <button
          type="button"
          className="secondary"
          disabled={test.isPending}
          onClick={() => test.mutate()}
        >
          {test.isPending ? 'Sending…' : 'Send a test message'}
        </button>
      </div>
      {setStatus.error && (
        <ApiErrorMessage
          error={setStatus.error}
          doing={status === 'active' ? 'pause this stream' : 'resume this stream'}
        />
      )}
      {test.error && <ApiErrorMessage error={test.error} doing="send a test message" />}
      {test.data && (
        <p role="status" className={`notice ${test.data.delivered ? 'ok' : 'error'}`}>
          {test.data.delivered
            ? 'The test message was delivered'
            : 'The test message was not delivered'}
          {test.data.httpStatus !== undefined && ` (HTTP ${test.data.httpStatus})`} in{' '}
          {test.data.durationMs} ms
          {test.data.error && `: ${test.data.error}`}.
        </p>
      )}
      <form className="inline-form" onSubmit={submitReplay} noValidate>
        <Field
          label="Replay from seq"
          hint="The stream goes on from this seq: messages from it are sent again."
          problems={[...(seqProblem ? [seqProblem] : []), ...replayProblems.messages]}
        >
          {(input) => (
            <input
              {...input}
              inputMode="numeric"
              value={fromSeq}
              onChange={(e) => setFromSeq(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" className="secondary" disabled={replay.isPending}>
          Replay
        </button>
      </form>
      {replay.error && (
        <ApiErrorMessage
          error={replay.error}
          doing="replay this stream"
          shownAtFields={replayProblems.fields}
        />
      )}
      {replay.isSuccess && <p role="status">The stream goes on from seq {replay.variables}.</p>}
    </section>
  );
}
