import { created, type Handler, noContent, ok, sendPage } from '../../http/index.js';
import { isoMillis } from '../../lib/time.js';
import { delivery, logStream } from './representation.js';
import type { LogStreamsService } from './service.js';

export function logStreamHandlers(streams: LogStreamsService) {
  const listLogStreams: Handler<'listLogStreams'> = async ({ query, res }) => {
    const [page, head] = await Promise.all([streams.list(query), streams.head()]);
    sendPage(res, {
      items: page.items.map((row) => logStream(row, head)),
      nextCursor: page.nextCursor,
    });
  };
  const createLogStream: Handler<'createLogStream'> = async ({ actor, body, res }) => {
    const { row, secret } = await streams.create(actor, body);
    created(res, { ...logStream(row, await streams.head()), ...(secret ? { secret } : {}) });
  };
  const getLogStream: Handler<'getLogStream'> = async ({ params, res }) => {
    ok(res, logStream(await streams.get(params.id), await streams.head()));
  };
  const updateLogStream: Handler<'updateLogStream'> = async ({ actor, params, body, res }) => {
    ok(res, logStream(await streams.update(actor, params.id, body), await streams.head()));
  };
  const deleteLogStream: Handler<'deleteLogStream'> = async ({ actor, params, res }) => {
    await streams.delete(actor, params.id);
    noContent(res);
  };
  const replayLogStream: Handler<'replayLogStream'> = async ({ actor, params, body, res }) => {
    ok(res, logStream(await streams.replay(actor, params.id, body.fromSeq), await streams.head()));
  };
  const rotateLogStreamSecret: Handler<'rotateLogStreamSecret'> = async ({
    actor,
    params,
    res,
  }) => {
    const rotated = await streams.rotateSecret(actor, params.id);
    ok(res, {
      secret: rotated.secret,
      previousSecretExpiresAt: isoMillis(rotated.previousSecretExpiresAt),
    });
  };
  const testLogStream: Handler<'testLogStream'> = async ({ params, res }) => {
    ok(res, await streams.test(params.id));
  };
  const listLogStreamDeliveries: Handler<'listLogStreamDeliveries'> = async ({ params, res }) => {
    ok(res, (await streams.deliveries(params.id)).map(delivery));
  };
  return {
    listLogStreams,
    createLogStream,
    getLogStream,
    updateLogStream,
    deleteLogStream,
    replayLogStream,
    rotateLogStreamSecret,
    testLogStream,
    listLogStreamDeliveries,
  };
}
