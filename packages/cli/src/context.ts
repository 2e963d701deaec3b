import { createSecadminClient, type SecadminClient } from '@secadmin/api-client';
import { usageError } from './errors.js';
import { createOutput, type Output } from './output.js';

/** The options every command accepts (before or after its name). */
export interface GlobalOptions {
  url?: string;
  apiKey?: string;
  json?: boolean;
}

export interface CommandContext {
  client: SecadminClient;
  out: Output;
}

/** The client and output for one command; flags win over `SECADMIN_URL` / `SECADMIN_API_KEY`. */
export function commandContext(options: GlobalOptions): CommandContext {
  const baseUrl = options.url ?? process.env.SECADMIN_URL;
  const apiKey = options.apiKey ?? process.env.SECADMIN_API_KEY;
  if (!baseUrl) throw usageError('no server: set SECADMIN_URL or pass --url');
  if (!isHttpUrl(baseUrl))
    throw usageError(
      `the server URL must start with http:// or https://, e.g. http://localhost:3000 (got "${baseUrl}")`,
    );
  if (!apiKey) throw usageError('no API key: set SECADMIN_API_KEY or pass --api-key');
  return {
    client: createSecadminClient({ baseUrl, apiKey, retry: { maxRetries: 2, maxWaitMs: 10_000 } }),
    out: createOutput(options.json ?? false),
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
