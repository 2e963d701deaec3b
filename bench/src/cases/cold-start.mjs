// From starting the server to /readyz 200 on its embedded PostgreSQL: a fresh data dir (initdb,
// migrations) and an existing one.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, SERVER_MAIN, SYSTEM_NODE, waitFor } from '../lib/processes.mjs';

/** @param {string} dataDir */
async function startOnce(dataDir) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(SYSTEM_NODE, [SERVER_MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      // Every server of a test run would otherwise bind the metrics port 9464.
      SECADMIN_METRICS_PORT: '0',
      SECADMIN_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  try {
    await waitFor(`http://127.0.0.1:${port}/readyz`);
    return performance.now() - started;
  } finally {
    // Stopped on failure too: left running, it would outlive the run.
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  }
}

export async function coldStart() {
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-cold-'));
  try {
    const fresh = await startOnce(dataDir);
    const existing = await startOnce(dataDir);
    return [
      {
        case: 'cold start to /readyz (node apps/server/dist/main.js, embedded PostgreSQL)',
        peer: '—',
        secadmin: `fresh data dir ${(fresh / 1000).toFixed(2)} s; existing ${(existing / 1000).toFixed(2)} s`,
        peerFigure: '—',
        ratio: null,
        target: '< 3 s on an existing data dir',
        met: existing < 3000,
      },
    ];
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
