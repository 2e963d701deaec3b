import { systemHandlers } from './handlers.js';

export type SystemDeps = Parameters<typeof systemHandlers>[0];

/** Health, readiness, the spec and its rendered reference. */
export function createSystem(deps: SystemDeps) {
  return { handlers: systemHandlers(deps), jobs: [] };
}
