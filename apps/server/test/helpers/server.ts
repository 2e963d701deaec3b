import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecadminClient, type SecadminClient } from '@secadmin/api-client';
import { createScratchDatabase, type ScratchDatabase } from '@secadmin/test-infra';
import pg from 'pg';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { generateSecret } from '../../src/features/api-keys/service.js';
import { createLogger } from '../../src/logger.js';
import { type RunningServer, startServer } from '../../src/server.js';

/**
 * A database of its own on the run's PostgreSQL server, dropped by `drop`: empty, or
 * `migrated` (a copy of the run's migrated template).
 */
export async function createTestDatabase({
  migrated = false,
} = {}): Promise<
  ScratchDatabase & { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> }
> {
  const database = await createScratchDatabase(
    inject('postgresUrl'),
    'secadmin_test',
    migrated ? { template: inject('postgresTemplate') } : {},
  );
  return {
    ...database,
    query: async <T>(sql: string, params?: unknown[]) => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows as T[];
      } finally {
        await client.end();
      }
    },
  };
}

export interface TestServer extends RunningServer {
  config: Config;
  rootKey: string;
  /** A client with the root key (no retries, so 429s are visible). */
  client: SecadminClient;
  clientWith(apiKey: string | undefined): SecadminClient;
  /** Seals what was ingested and feeds the analytics store until search and statistics see it. */
  searchable(): Promise<void>;
  /** Stops the server and starts a new one on the same data dir and database. */
  restart(overrides?: Partial<Config>): Promise<TestServer>;
  stop(): Promise<void>;
}

interface Storage {
  dataDir: string;
  databaseUrl: string;
  /** The server's database in this process's embedded analytics store. */
  analyticsDatabase: string;
  cleanup: () => Promise<void>;
}

/**
 * The embedded analytics engine keeps one data directory per process: the servers a test
 * process starts share it, each with a database of its own.
 */
const analyticsPath = join(inject('analyticsRoot'), String(process.pid));
process.once('exit', () => rmSync(analyticsPath, { recursive: true, force: true }));

/**
 * An analytics store database that servers of one deployment share (pass it as the `analytics`
 * override to each): started one after another on one PostgreSQL database, they find the copy
 * the one before them fed, as instances of a deployment find their ClickHouse server's.
 */
export function sharedAnalytics(): Config['analytics'] {
  return {
    url: undefined,
    cluster: undefined,
    embeddedPath: analyticsPath,
    embeddedDatabase: `test_${randomBytes(8).toString('hex')}`,
  };
}

async function createStorage(): Promise<Storage> {
  const dataDir = await mkdtemp(join(tmpdir(), 'secadmin-test-'));
  const pgDb = await createTestDatabase({ migrated: true });
  return {
    dataDir,
    databaseUrl: pgDb.url,
    analyticsDatabase: `test_${randomBytes(8).toString('hex')}`,
    cleanup: async () => {
      await pgDb.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a test may change beyond the config: where the server's log lines go. */
export interface LaunchOptions {
  logger?: Logger;
}

async function launch(
  storage: Storage,
  rootKey: string,
  overrides: Partial<Config>,
  options: LaunchOptions,
): Promise<TestServer> {
  const config: Config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir: storage.dataDir,
    databaseUrl: storage.databaseUrl,
    redisUrl: undefined,
    metricsPort: 0,
    adminApiKey: rootKey,
    downloadUrl: 'http://secadmin.test/downloads',
    validateResponses: true,
    analytics: {
      url: undefined,
      cluster: undefined,
      embeddedPath: analyticsPath,
      embeddedDatabase: storage.analyticsDatabase,
    },
    ...overrides,
  };
  const server = await startServer(
    config,
    options.logger ?? createLogger(process.env.LOG_LEVEL ?? 'silent'),
  );
  const clientWith = (apiKey: string | undefined) =>
    createSecadminClient({
      baseUrl: server.url,
      ...(apiKey ? { apiKey } : {}),
      retry: { maxRetries: 0 },
    });
  const test: TestServer = {
    ...server,
    config,
    rootKey,
    client: clientWith(rootKey),
    clientWith,
    searchable: async () => {
      await server.sealer.flush();
      await server.searchIndex.caughtUp();
    },
    restart: async (more = {}) => {
      await server.close();
      return launch(storage, rootKey, { ...overrides, ...more }, options);
    },
    stop: async () => {
      await server.close();
      await storage.cleanup();
    },
  };
  return test;
}

/** A fresh server on a fresh data dir and a fresh, migrated database of the run's PostgreSQL. */
export async function startTestServer(
  overrides: Partial<Config> = {},
  options: LaunchOptions = {},
): Promise<TestServer> {
  const storage = await createStorage();
  try {
    return await launch(storage, overrides.adminApiKey ?? generateSecret(), overrides, options);
  } catch (error) {
    await storage.cleanup();
    throw error;
  }
}

/** Fetch a path of the server directly, for what the typed client cannot send. */
export function raw(
  server: { url: string },
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, init);
}

/** A POST of JSON text exactly as given (hostile bodies too), with the root key. */
export function postText(
  server: { url: string; rootKey: string },
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return raw(server, path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${server.rootKey}`,
      'content-type': 'application/json',
      ...headers,
    },
    body,
  });
}

/** Turns a downloadUrl (on SECADMIN_DOWNLOAD_URL) into one on the test server. */
export function localDownload(server: { url: string }, downloadUrl: string): string {
  const url = new URL(downloadUrl);
  return `${server.url}${url.pathname}${url.search}`;
}

/** A response body as the test reads it: any JSON. */
// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON bodies
export const json = (res: Response): Promise<any> => res.json();
