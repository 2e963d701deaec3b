import type { Middleware } from 'openapi-fetch';
import { version } from './generated/version.js';

/** What every request says about its sender. */
export interface HeaderOptions {
  apiKey: string | undefined;
  idempotencyKeys: boolean;
}

/**
 * Sets `Authorization: Bearer <apiKey>`, `User-Agent: secadmin-api-client/<version>` unless the
 * caller set one, and a random `Idempotency-Key` on a POST that has none, so that retrying it
 * cannot apply it twice.
 */
export function requestHeaders({ apiKey, idempotencyKeys }: HeaderOptions): Middleware {
  return {
    onRequest({ request }) {
      const { headers } = request;
      if (apiKey !== undefined) headers.set('Authorization', `Bearer ${apiKey}`);
      if (!headers.has('User-Agent')) headers.set('User-Agent', `secadmin-api-client/${version}`);
      if (idempotencyKeys && request.method === 'POST' && !headers.has('Idempotency-Key'))
        headers.set('Idempotency-Key', crypto.randomUUID());
      return request;
    },
  };
}
