import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const SERVER = fileURLToPath(new URL('../../../../apps/server/dist/main.js', import.meta.url));
export const API_KEY = `sk_${'c'.repeat(40)}`;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ServerProcess {
  url: string;
  stop(): Promise<void>;
}

/**
 * The real server (`apps/server/dist/main.js`) in its own process on a port the OS picks,
 * read back from its `secadmin listening` line; embedded database unless `databaseUrl`; `env`
 * adds to or overrides its environment.
 */
export async function startServer(
  dataDir: string,
  databaseUrl = '',
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl,
      // Every server of a test run would otherwise bind the metrics port 9464.
      SECADMIN_METRICS_PORT: '0',
      SECADMIN_DATA_DIR: join(dataDir, 'data'),
      SECADMIN_ADMIN_API_KEY: API_KEY,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const started = Date.now();
  for (;;) {
    const line = output.split('\n').find((l) => l.includes('"secadmin listening"'));
    if (line) {
      const url = (JSON.parse(line) as { url: string }).url.replace('localhost', '127.0.0.1');
      return {
        url,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    }
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    if (Date.now() - started > 90_000) throw new Error('server did not start');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The built CLI as a process, pointed at `url` through the environment. */
export function runCli(
  url: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_MAIN, ...args],
      { env: { ...process.env, SECADMIN_URL: url, SECADMIN_API_KEY: API_KEY, ...env } },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
