import type { Handlers } from '../http/context.js';
import { apiKeyHandlers } from './api-keys/handlers.js';
import { chainHandlers } from './audit-log/chain/handlers.js';
import { entryHandlers } from './audit-log/entries/handlers.js';
import { exportHandlers } from './audit-log/exports/handlers.js';
import { searchHandlers } from './audit-log/search/handlers.js';
import { policyHandlers } from './policies/handlers.js';
import type { Services } from './services.js';
import { systemHandlers } from './system/handlers.js';
import { userHandlers } from './users/handlers.js';

/** Every operation of the spec, by operationId: a new operation breaks the build until handled. */
export function createHandlers(
  services: Services,
  system: Parameters<typeof systemHandlers>[0],
): Handlers {
  return {
    ...userHandlers(services.users),
    ...policyHandlers(services.policies, services.simulation),
    ...apiKeyHandlers(services.apiKeys),
    ...entryHandlers(services.logs),
    ...chainHandlers(services.chain),
    ...searchHandlers(services.search),
    ...exportHandlers(services.exports),
    ...systemHandlers(system),
  };
}
