import type { Handlers } from '../http/context.js';
import type { Services } from '../services/index.js';
import { apiKeyHandlers } from './api-keys.js';
import { logHandlers } from './logs.js';
import { policyHandlers } from './policies.js';
import { systemHandlers } from './system.js';
import { userHandlers } from './users.js';

/** Every operation of the spec, by operationId: a new operation breaks the build until handled. */
export function createHandlers(
  services: Services,
  system: Parameters<typeof systemHandlers>[0],
): Handlers {
  return {
    ...userHandlers(services.users),
    ...policyHandlers(services.policies, services.access),
    ...apiKeyHandlers(services.apiKeys),
    ...logHandlers(services.logs, services.search, services.exports),
    ...systemHandlers(system),
  };
}
