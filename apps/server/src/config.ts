import { resolve } from 'node:path';

export interface Config {
  port: number;
  host: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  adminApiKey: string | undefined;
  secret: string | undefined;
  downloadUrl: string;
  downloadTtlSeconds: number;
  rootRateLimit: number;
  trustProxy: boolean | number | string;
  logLevel: string;
  /** Validate every response against the spec (tests): a drift becomes a 500. */
  validateResponses: boolean;
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer ≥ ${min}, got "${text}".`);
  }
  return value;
}

function trustProxy(text: string | undefined): boolean | number | string {
  if (text === undefined || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  return /^\d+$/.test(text) ? Number(text) : text;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 3000);
  return {
    port,
    host: env.HOST || undefined,
    dataDir: resolve(env.SECADMIN_DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    adminApiKey: env.SECADMIN_ADMIN_API_KEY || undefined,
    secret: env.SECADMIN_SECRET || undefined,
    downloadUrl: (env.SECADMIN_DOWNLOAD_URL || `http://localhost:${port}/downloads`).replace(
      /\/+$/,
      '',
    ),
    downloadTtlSeconds: integer(env, 'SECADMIN_DOWNLOAD_TTL_S', 86_400, 1),
    rootRateLimit: integer(env, 'SECADMIN_ROOT_RATE_LIMIT', 100_000, 1),
    trustProxy: trustProxy(env.SECADMIN_TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    validateResponses: env.SECADMIN_VALIDATE_RESPONSES === 'true',
  };
}
