import type { Store } from '../../storage/store.js';
import { apiKeyHandlers } from './handlers.js';
import { ApiKeysRepository } from './repository.js';
import { type ApiKeysDeps, ApiKeysService } from './service.js';

export function createApiKeys(
  deps: Omit<ApiKeysDeps, 'keys' | 'store'> & { store: Pick<Store, 'connection' | 'transaction'> },
) {
  const service = new ApiKeysService({
    ...deps,
    keys: new ApiKeysRepository(deps.store.connection),
  });
  return { service, handlers: apiKeyHandlers(service), jobs: [] };
}
