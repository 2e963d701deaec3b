import type { RequestHandler } from 'express';
import { authOf, operationOf } from '../http/auth.js';
import { created, noContent, sendPage } from '../http/respond.js';
import { apiKey } from '../representations.js';
import type { ApiKeysService } from '../services/api-keys-service.js';
import type { Body } from './users.js';

export function apiKeyHandlers(apiKeys: ApiKeysService) {
  return {
    listApiKeys: (async (req, res) => {
      const page = await apiKeys.list(
        authOf(res).actor,
        req.query as unknown as { limit: number; cursor?: string },
      );
      sendPage(res, { items: page.items.map(apiKey), nextCursor: page.nextCursor });
    }) satisfies RequestHandler,
    createApiKey: (async (req, res) => {
      const { key, actor } = authOf(res);
      const result = await apiKeys.create(actor, key, req.body as Body<'createApiKey'>);
      created(res, { ...apiKey(result.key), secret: result.secret });
    }) satisfies RequestHandler,
    deleteApiKey: (async (_req, res) => {
      await apiKeys.revoke(authOf(res).actor, operationOf(res).params.id as string);
      noContent(res);
    }) satisfies RequestHandler,
  };
}
