import type { ApiKeysService } from './service.js';

export type { ApiKeysService } from './service.js';

/** What deleting a user does to its keys, in the caller's transaction. */
export type ApiKeysApi = Pick<ApiKeysService, 'revokeAllOf'>;
