import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopLeftoverPostmaster } from '@secadmin/db';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** What it wrote to stdout so far (its log lines). */
  output: () => string;
  /**
   * SIGKILL: no graceful shutdown, no flushing, like a crash. On the embedded database its
   * PostgreSQL is left running, as a crash leaves it: the next start on the data dir stops it.
   */
  kill9(): Promise<void>;
  stop(): Promise<void>;
  /** For a test's cleanup: kill -9 if it still runs, and stop the PostgreSQL a crash left. */
  dispose(): Promise<void>;
}

/** `dist/main.js` in its own process, on the embedded database unless `env` says otherwise; its stdout collected. */
export function launchMain(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
} {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      SECADMIN_METRICS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

/**
 * The real server (`dist/main.js`) in its own process, so that it can be killed. It listens on a
 * port the OS picks (port 0), read back from its start-up line, so parallel test files never collide.
 */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const { child, output } = launchMain({ PORT: '0', LOG_LEVEL: 'info', ...env });
  const started = Date.now();
  let url: string | undefined;
  for (;;) {
    url ??= listeningUrl(output());
    if (
      url &&
      (await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ))
    )
      break;
    if (child.exitCode !== null)
      throw new Error(`server exited with ${child.exitCode}: ${output()}`);
    if (Date.now() - started > 90_000) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = once(child, 'exit');
  return {
    url,
    child,
    output,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    dispose: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      if (!env.DATABASE_URL && env.SECADMIN_DATA_DIR)
        await stopLeftoverPostmaster(join(env.SECADMIN_DATA_DIR, 'postgres'));
    },
  };
}

function listeningUrl(output: string): string | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('"secadmin listening"')) continue;
    const url = (JSON.parse(line) as { url?: string }).url;
    return url?.replace('localhost', '127.0.0.1');
  }
  return undefined;
}
