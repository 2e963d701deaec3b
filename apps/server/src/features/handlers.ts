import type { Handlers } from '../http/context.js';
import { chainHandlers } from './audit-log/chain/handlers.js';
import { entryHandlers } from './audit-log/entries/handlers.js';
import { exportHandlers } from './audit-log/exports/handlers.js';
import { redactionHandlers } from './audit-log/redaction/handlers.js';
import { searchHandlers } from './audit-log/search/handlers.js';
import { statsHandlers } from './audit-log/stats/handlers.js';
import { type ConsoleFiles, consoleHandlers } from './console/index.js';
import type { Services } from './services.js';
import { systemHandlers } from './system/index.js';

/** Every operation of the spec, by operationId: a new operation breaks the build until handled. */
export function createHandlers(
  services: Services,
  system: Parameters<typeof systemHandlers>[0],
  consoleFiles: ConsoleFiles,
): Handlers {
  return {
    ...services.handlers,
    ...entryHandlers(services.logs),
    ...chainHandlers(services.chain, (...check) => services.access.permits(...check)),
    ...redactionHandlers(services.redactions),
    ...searchHandlers(services.search),
    ...statsHandlers(services.stats),
    ...exportHandlers(services.exports),
    ...systemHandlers(system),
    ...consoleHandlers(consoleFiles),
  };
}
