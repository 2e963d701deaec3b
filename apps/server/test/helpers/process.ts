import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGKILL: no graceful shutdown, no flushing, like a crash. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

let nextPort = 5200 + Math.floor(Math.random() * 400);

/** `dist/main.js` in its own process, on the embedded database unless `env` says otherwise; its stdout collected. */
export function launchMain(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
} {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'info', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

/** The real server (`dist/main.js`) in its own process, so that it can be killed. */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = nextPort++;
  const { child } = launchMain({ PORT: String(port), LOG_LEVEL: 'warn', ...env });
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    if (Date.now() - started > 30_000) throw new Error('server did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = once(child, 'exit');
  return {
    url,
    child,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
