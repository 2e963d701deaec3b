import { created, type Handler, noContent, sendPage } from '../../http/index.js';
import { apiKey } from './representation.js';
import type { ApiKeysService } from './service.js';

export function apiKeyHandlers(apiKeys: ApiKeysService) {
  const listApiKeys: Handler<'listApiKeys'> = async ({ actor, query, res }) => {
    const page = await apiKeys.list(actor, query);
    sendPage(res, { items: page.items.map(apiKey), nextCursor: page.nextCursor });
  };
  const createApiKey: Handler<'createApiKey'> = async ({ actor, key, body, res }) => {
    const result = await apiKeys.create(actor, key, body);
    created(res, { ...apiKey(result.key), secret: result.secret });
  };
  const deleteApiKey: Handler<'deleteApiKey'> = async ({ actor, params, res }) => {
    await apiKeys.revoke(actor, params.id);
    noContent(res);
  };
  return { listApiKeys, createApiKey, deleteApiKey };
}
