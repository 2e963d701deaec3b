import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What services and the export worker count; labels are fixed words, never user data. */
export interface DomainCounters {
  decided(decision: 'allow' | 'explicit_deny' | 'implicit_deny'): void;
  ingested(entries: number): void;
  ingestWaited(seconds: number): void;
  sealLag(seconds: number): void;
  exportFinished(status: 'completed' | 'failed'): void;
  /** A log stream's delivery attempt ended (the label is the stream's id, never its URL). */
  streamDelivery(stream: string, outcome: 'success' | 'failure'): void;
  /** Sealed entries a log stream has not delivered yet. */
  streamLag(stream: string, entries: number): void;
  /** A deleted stream's series go away. */
  streamGone(stream: string): void;
}

/** docs/operations.md: the Prometheus metrics of one server, in a registry of its own. */
export class Metrics implements DomainCounters {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'secadmin_http_requests_total',
    help: 'HTTP requests answered, by operationId (unknown for no route) and status code.',
    labelNames: ['operation', 'status'],
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'secadmin_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its response, by operationId.',
    labelNames: ['operation'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly decisions = new Counter({
    name: 'secadmin_policy_decisions_total',
    help: 'Policy decisions (request authorization and simulations), by outcome.',
    labelNames: ['decision'],
    registers: [this.registry],
  });
  private readonly entries = new Counter({
    name: 'secadmin_log_entries_ingested_total',
    help: 'Audit-log entries stored through POST /v1/logs.',
    registers: [this.registry],
  });
  private readonly sealLags = new Histogram({
    name: 'secadmin_log_seal_lag_seconds',
    help: 'Time from storing an audit-log entry to sealing it into the hash chain (the commit of its chain row).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly ingestWaits = new Histogram({
    name: 'secadmin_log_ingest_seal_wait_seconds',
    help: 'Time an ingest waited, before writing, for a sealer a full batch or more behind (per ingest that waited).',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly exports = new Counter({
    name: 'secadmin_exports_total',
    help: 'Exports finished, by status (completed, failed).',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly rateLimited = new Counter({
    name: 'secadmin_rate_limited_total',
    help: 'Requests refused with 429 rate_limited.',
    registers: [this.registry],
  });

  private readonly streamDeliveries = new Counter({
    name: 'secadmin_stream_deliveries_total',
    help: 'Log stream delivery attempts, by stream id and outcome (success, failure).',
    labelNames: ['stream', 'outcome'],
    registers: [this.registry],
  });
  private readonly streamLags = new Gauge({
    name: 'secadmin_stream_lag_entries',
    help: 'Sealed audit-log entries after what a log stream has delivered, by stream id.',
    labelNames: ['stream'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  decided(decision: 'allow' | 'explicit_deny' | 'implicit_deny'): void {
    this.decisions.inc({ decision });
  }

  ingested(entries: number): void {
    this.entries.inc(entries);
  }

  ingestWaited(seconds: number): void {
    this.ingestWaits.observe(seconds);
  }

  sealLag(seconds: number): void {
    this.sealLags.observe(seconds);
  }

  exportFinished(status: 'completed' | 'failed'): void {
    this.exports.inc({ status });
  }

  streamDelivery(stream: string, outcome: 'success' | 'failure'): void {
    this.streamDeliveries.inc({ stream, outcome });
  }

  streamLag(stream: string, entries: number): void {
    this.streamLags.set({ stream }, entries);
  }

  streamGone(stream: string): void {
    this.streamLags.remove({ stream });
    this.streamDeliveries.remove({ stream, outcome: 'success' });
    this.streamDeliveries.remove({ stream, outcome: 'failure' });
  }

  /** Counts every response when it finishes, under `res.locals.operationId` (set by dispatch). */
  httpMiddleware(): RequestHandler {
    return (_req, res, next) => {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const operation = res.locals.operationId ?? 'unknown';
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        this.requests.inc({ operation, status: String(res.statusCode) });
        this.durations.observe({ operation }, seconds);
        if (res.statusCode === 429) this.rateLimited.inc();
      });
      next();
    };
  }

  /** `GET /metrics` on a listener of its own; port 0 picks a free one (tests). */
  async listen(port: number, host: string): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(text),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { url: `http://${hostname}:${address.port}/metrics`, server };
  }
}
