import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';

describe('loadConfig', () => {
  it('reads SECADMIN_RATE_LIMIT_ON_STORE_ERROR, open by default', () => {
    expect(loadConfig({}).rateLimitOnStoreError).toBe('open');
    expect(loadConfig({ SECADMIN_RATE_LIMIT_ON_STORE_ERROR: 'closed' }).rateLimitOnStoreError).toBe(
      'closed',
    );
  });

  it('refuses any other value with a message naming the variable and its values', () => {
    expect(() => loadConfig({ SECADMIN_RATE_LIMIT_ON_STORE_ERROR: 'Open' })).toThrow(
      'SECADMIN_RATE_LIMIT_ON_STORE_ERROR must be one of open, closed, got "Open".',
    );
  });

  it('reads SECADMIN_DB_CONNECT_TIMEOUT_S, 30 by default', () => {
    expect(loadConfig({}).dbConnectTimeoutSeconds).toBe(30);
    expect(loadConfig({ SECADMIN_DB_CONNECT_TIMEOUT_S: '5' }).dbConnectTimeoutSeconds).toBe(5);
    expect(() => loadConfig({ SECADMIN_DB_CONNECT_TIMEOUT_S: 'soon' })).toThrow(
      'SECADMIN_DB_CONNECT_TIMEOUT_S must be an integer',
    );
  });

  it('reads SECADMIN_CORS_ORIGINS as a comma list of origins', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ SECADMIN_CORS_ORIGINS: 'https://a.example.com, http://localhost:5173' })
        .corsOrigins,
    ).toEqual(['https://a.example.com', 'http://localhost:5173']);
    expect(() => loadConfig({ SECADMIN_CORS_ORIGINS: 'https://a.example.com/app' })).toThrow(
      'SECADMIN_CORS_ORIGINS must list origins',
    );
  });

  it('reads SECADMIN_LOG_RETENTION_DAYS: unset keeps entries forever, else whole days ≥ 1', () => {
    expect(loadConfig({}).logRetentionDays).toBeUndefined();
    expect(loadConfig({ SECADMIN_LOG_RETENTION_DAYS: '90' }).logRetentionDays).toBe(90);
    for (const bad of ['0', '-1', '1.5', 'forever'])
      expect(() => loadConfig({ SECADMIN_LOG_RETENTION_DAYS: bad })).toThrow(
        'SECADMIN_LOG_RETENTION_DAYS must be an integer ≥ 1',
      );
  });

  it('reads SECADMIN_INGEST_SEAL_WAIT_MS: 5 s by default, 0 for never, else whole milliseconds up to a minute', () => {
    expect(loadConfig({}).ingestSealWaitMs).toBe(5_000);
    expect(loadConfig({ SECADMIN_INGEST_SEAL_WAIT_MS: '0' }).ingestSealWaitMs).toBe(0);
    expect(loadConfig({ SECADMIN_INGEST_SEAL_WAIT_MS: '250' }).ingestSealWaitMs).toBe(250);
    for (const bad of ['-1', '1.5', 'never'])
      expect(() => loadConfig({ SECADMIN_INGEST_SEAL_WAIT_MS: bad })).toThrow(
        'SECADMIN_INGEST_SEAL_WAIT_MS must be an integer',
      );
    expect(loadConfig({ SECADMIN_INGEST_SEAL_WAIT_MS: '60000' }).ingestSealWaitMs).toBe(60_000);
    for (const huge of ['60001', '3000000000', '1e30'])
      expect(() => loadConfig({ SECADMIN_INGEST_SEAL_WAIT_MS: huge })).toThrow(
        'SECADMIN_INGEST_SEAL_WAIT_MS must be at most 60000',
      );
  });

  it('reads SECADMIN_PUBLIC_URL without its trailing slash, localhost on PORT by default, and refuses anything but a plain http(s) URL', () => {
    expect(loadConfig({}).publicUrl).toBe('http://localhost:3000');
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    expect(loadConfig({ SECADMIN_PUBLIC_URL: 'https://pdp.example.com/tenant1/' }).publicUrl).toBe(
      'https://pdp.example.com/tenant1',
    );
    for (const bad of [
      'pdp.example.com',
      'ftp://pdp.example.com',
      'https://pdp.example.com/?a=1',
      'https://pdp.example.com/#x',
      'https://user:pw@pdp.example.com',
    ])
      expect(() => loadConfig({ SECADMIN_PUBLIC_URL: bad }), bad).toThrow(/SECADMIN_PUBLIC_URL/);
    // The refused value is not repeated: it may hold a password.
    expect(() =>
      loadConfig({ SECADMIN_PUBLIC_URL: 'https://user:s3cret@pdp.example.com' }),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining('s3cret') }));
  });

  it('reads DATABASE_READ_URL only beside a PostgreSQL DATABASE_URL, and never repeats it in an error', () => {
    const primary = 'postgres://secadmin:pw@primary:5432/secadmin';
    const replica = 'postgresql://secadmin:s3cret@replica:5432/secadmin';
    expect(loadConfig({ DATABASE_URL: primary }).databaseReadUrl).toBeUndefined();
    expect(loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: replica }).databaseReadUrl).toBe(
      replica,
    );
    const refused = (env: NodeJS.ProcessEnv, message: RegExp) =>
      expect(() => loadConfig(env)).toThrow(
        expect.objectContaining({
          message: expect.stringMatching(new RegExp(`^${message.source}(?!.*s3cret)`)),
        }),
      );
    refused({ DATABASE_READ_URL: replica }, /DATABASE_READ_URL needs DATABASE_URL/);
    refused(
      { DATABASE_URL: 'mysql://db/secadmin', DATABASE_READ_URL: replica },
      /DATABASE_READ_URL needs DATABASE_URL/,
    );
    refused(
      { DATABASE_URL: primary, DATABASE_READ_URL: 'mysql://u:s3cret@replica/secadmin' },
      /DATABASE_READ_URL must be a PostgreSQL URL/,
    );
  });

  it('reads OTEL_EXPORTER_OTLP_ENDPOINT as a plain http(s) base URL, unset by default', () => {
    expect(loadConfig({}).otlpEndpoint).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).otlpEndpoint).toBe(
      'http://collector:4318',
    );
    expect(() =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:s3cret@collector:4318' }),
    ).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/^OTEL_EXPORTER_OTLP_ENDPOINT(?!.*s3cret)/),
      }),
    );
  });

  it('reads SECADMIN_METRICS_HOST, loopback by default, apart from HOST', () => {
    expect(loadConfig({}).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ SECADMIN_METRICS_HOST: '::' }).metricsHost).toBe('::');
  });

  it('reads SECADMIN_IDEMPOTENCY_MAX_KEPT_MB as bytes, 64 MiB by default, at least 1', () => {
    expect(loadConfig({}).idempotencyMaxKeptBytes).toBe(64 * 2 ** 20);
    expect(loadConfig({ SECADMIN_IDEMPOTENCY_MAX_KEPT_MB: '2' }).idempotencyMaxKeptBytes).toBe(
      2 * 2 ** 20,
    );
    expect(() => loadConfig({ SECADMIN_IDEMPOTENCY_MAX_KEPT_MB: '0' })).toThrow(
      'SECADMIN_IDEMPOTENCY_MAX_KEPT_MB must be an integer ≥ 1',
    );
  });

  it('reads SECADMIN_MIN_FREE_DISK_MB as bytes, 512 MiB by default, 0 to turn the check off', () => {
    expect(loadConfig({}).minFreeDiskBytes).toBe(512 * 2 ** 20);
    expect(loadConfig({ SECADMIN_MIN_FREE_DISK_MB: '0' }).minFreeDiskBytes).toBe(0);
    expect(() => loadConfig({ SECADMIN_MIN_FREE_DISK_MB: '1.5' })).toThrow(
      'SECADMIN_MIN_FREE_DISK_MB must be an integer',
    );
  });
});
