import type { components } from '@secadmin/api-types';
import type { Resources } from './generated/operations.js';
import type { RequestOptions } from './operation-types.js';
import { sleep } from './retry.js';

type Export = components['schemas']['Export'];

/** How {@link ExportHelpers.wait} polls. */
export interface WaitOptions {
  /** Between two looks at the export, in ms (default 500). */
  intervalMs?: number;
  /** Give up (rejecting) after this long, in ms (default: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** What `client.exports` adds to its operations. */
export interface ExportHelpers {
  /**
   * Polls the export until it is `completed` and resolves to it; rejects when it ends `failed`
   * (with its `error`), after `timeoutMs`, or when `signal` aborts.
   */
  wait(exportId: string, options?: WaitOptions): Promise<Export>;
  /**
   * Downloads a completed export by its `downloadUrl` (the signed token in it authorizes the
   * download; no API key is needed), from this client's server. Also takes
   * `(file, { token }, options?)` as the operation does.
   */
  download: Resources['exports']['download'] &
    ((downloadUrl: string, options?: RequestOptions) => Promise<Response>);
}

export type Exports = Omit<Resources['exports'], 'download'> & ExportHelpers;

export function withExportHelpers(exports: Resources['exports']): Exports {
  const downloadFile = exports.download;
  const download = ((fileOrUrl: string, queryOrOptions?: unknown, options?: RequestOptions) => {
    if (!/^https?:\/\//i.test(fileOrUrl))
      return downloadFile(fileOrUrl, queryOrOptions as { token: string }, options);
    const url = new URL(fileOrUrl);
    const file = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const token = url.searchParams.get('token');
    if (!file || !token)
      throw new TypeError(
        `${url.origin}${url.pathname} is not an export's downloadUrl (no file or token)`,
      );
    return downloadFile(file, { token }, queryOrOptions as RequestOptions | undefined);
  }) as ExportHelpers['download'];

  async function wait(exportId: string, options: WaitOptions = {}): Promise<Export> {
    const { intervalMs = 500, timeoutMs = Number.POSITIVE_INFINITY, signal } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const current = await exports.get(exportId, signal ? { signal } : undefined);
      if (current.status === 'completed') return current;
      if (current.status === 'failed')
        throw new Error(`export ${exportId} failed: ${current.error ?? 'no reason given'}`);
      if (Date.now() + intervalMs > deadline)
        throw new Error(`export ${exportId} is still ${current.status} after ${timeoutMs} ms`);
      await sleep(intervalMs, signal);
    }
  }

  return { ...exports, download, wait };
}
