import { type Handler, ok } from '../../../http/index.js';
import type { Redactions } from './service.js';

export function redactionHandlers(redactions: Redactions) {
  const getLogRedactions: Handler<'getLogRedactions'> = async ({ params, res }) => {
    ok(res, await redactions.list(params.id));
  };
  return { getLogRedactions };
}
