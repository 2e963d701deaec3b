import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLI_MAIN } from './processes.js';

export interface Receiving {
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Ctrl-C: resolves to the exit code. */
  stop(): Promise<number>;
}

const running = new Set<ChildProcess>();

/** Kills what `startReceive` started and is still running (for an afterAll). */
export function killReceivers(): void {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  running.clear();
}

/** `secadmin streams receive …` as a process, once it says where it listens. */
export async function startReceive(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Receiving> {
  const child = spawn(process.execPath, [CLI_MAIN, 'streams', 'receive', ...args], {
    env: { ...process.env, SECADMIN_STREAM_SECRET: '', SECADMIN_PUBLIC_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const started = Date.now();
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
    if (url)
      return {
        url,
        stdout: () => stdout,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGINT');
          const [code] = await exited;
          running.delete(child);
          return code as number;
        },
      };
    if (child.exitCode !== null) throw new Error(`receive exited: ${stderr}`);
    if (Date.now() - started > 60_000) throw new Error(`receive did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
