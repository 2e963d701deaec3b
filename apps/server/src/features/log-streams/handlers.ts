import type { Handler } from '../../http/index.js';
import { NotFound } from '../../lib/errors.js';

// The spec commit: the operations exist, the feature follows in the next commits.
const none = () => {
  throw new NotFound('log stream');
};

export function logStreamHandlers() {
  const listLogStreams: Handler<'listLogStreams'> = none;
  const createLogStream: Handler<'createLogStream'> = none;
  const getLogStream: Handler<'getLogStream'> = none;
  const updateLogStream: Handler<'updateLogStream'> = none;
  const deleteLogStream: Handler<'deleteLogStream'> = none;
  const replayLogStream: Handler<'replayLogStream'> = none;
  const rotateLogStreamSecret: Handler<'rotateLogStreamSecret'> = none;
  const testLogStream: Handler<'testLogStream'> = none;
  const listLogStreamDeliveries: Handler<'listLogStreamDeliveries'> = none;
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
