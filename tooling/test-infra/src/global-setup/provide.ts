import type { ProvidedContext } from 'vitest';
import type { TestProject } from 'vitest/node';
import { NotInstalledError, type RunServer } from '../servers.js';

/** Gives tests the URL of the run's server as inject(key); the returned teardown releases it. */
export async function provideServer(
  project: TestProject,
  key: keyof ProvidedContext,
  server: () => Promise<RunServer>,
): Promise<() => Promise<void>> {
  let run: RunServer;
  try {
    run = await server();
  } catch (error) {
    if (!(error instanceof NotInstalledError)) throw error;
    // Not a failing test but a missing tool: one line saying how to get it, and stop.
    console.error(error.message);
    process.exit(1);
  }
  console.log(run.summary);
  project.provide(key, run.url);
  return run.release;
}
