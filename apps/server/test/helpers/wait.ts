import { setTimeout as sleep } from 'node:timers/promises';
import { createSecadminClient, type SecadminClient } from '@secadmin/api-client';

/**
 * Polls `check` every 50 ms until it is true; fails after `timeoutMs`. Tests wait for what they
 * need this way, never for a fixed time: CI runs on two loaded cores.
 */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Until this process's clock is past `instant` (the server in the same process reads the same clock). */
export async function waitUntilPast(what: string, instant: string | Date): Promise<void> {
  const at = new Date(instant).getTime();
  await waitFor(what, () => Date.now() > at, Math.max(0, at - Date.now()) + 15_000);
}

/** A client of a server running in its own process. */
export function clientOf(url: string, apiKey: string): SecadminClient {
  return createSecadminClient({ baseUrl: url, apiKey, retry: { maxRetries: 0 } });
}

async function readExport(client: SecadminClient, exportId: string) {
  const { data } = await client.GET('/v1/logs/export/{exportId}', {
    params: { path: { exportId } },
  });
  return data?.data;
}

export type ExportState = NonNullable<Awaited<ReturnType<typeof readExport>>>;

/** The export once it is no longer `processing`: `completed` or `failed`. */
export async function waitForExport(
  client: SecadminClient,
  exportId: string,
  timeoutMs = 60_000,
): Promise<ExportState> {
  let state: ExportState | undefined;
  await waitFor(
    `export ${exportId} to finish`,
    async () => {
      state = await readExport(client, exportId);
      return state !== undefined && state.status !== 'processing';
    },
    timeoutMs,
  );
  return state as ExportState;
}
