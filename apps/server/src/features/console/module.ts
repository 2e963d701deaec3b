import { type ConsoleFiles, consoleHandlers } from './handlers.js';

export type { ConsoleFiles } from './handlers.js';

/** The console's page and files, as built. */
export function createConsole(files: ConsoleFiles) {
  return { handlers: consoleHandlers(files), jobs: [] };
}
