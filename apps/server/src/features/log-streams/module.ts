import type { Logger } from 'pino';
import type { Cursors } from '../../lib/cursor.js';
import { ulid } from '../../lib/ids.js';
import type { Trace } from '../../lib/trace.js';
import type { Store } from '../../storage/store.js';
import type { AuditLogApi, SealedEntries } from '../audit-log/api.js';
import type { Access } from '../policies/api.js';
import { CredentialBox } from './crypto.js';
import { type DelivererOptions, StreamDeliverer } from './deliverer.js';
import { type Resolve, systemResolve } from './destination-guard.js';
import { logStreamHandlers } from './handlers.js';
import { StreamsRepository } from './repository.js';
import { LogStreamsService } from './service.js';

export interface LogStreamsOptions {
  store: Store;
  sealed: SealedEntries;
  audit: AuditLogApi;
  cursors: Cursors;
  /** Decides the `logs:export` a stream's creation, destination, filter, replay and secret need. */
  access: Pick<Access, 'permits'>;
  /** `SECADMIN_SECRET`: the key of stored secrets and tokens is derived from it. */
  secret: string;
  logger: Logger;
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  leaseMs: number;
  pollMs: number;
  /** Wraps each delivery in a trace span (when tracing is on). */
  trace?: Trace | undefined;
  /** DNS (tests inject one to change the answer between check and connect). */
  resolve?: Resolve | undefined;
  counters?: DelivererOptions['counters'];
}

/** Log streams: the API's handlers, the deliverer job, and what retention keeps. */
export function createLogStreams(options: LogStreamsOptions) {
  const streams = new StreamsRepository(options.store.connection);
  const box = new CredentialBox(options.secret);
  const sender = {
    allowPrivateNetworks: options.allowPrivateNetworks,
    resolve: options.resolve ?? systemResolve,
    timeoutMs: options.timeoutMs,
  };
  const deliverer = new StreamDeliverer({
    store: options.store,
    streams,
    sealed: options.sealed,
    audit: options.audit,
    box,
    sender,
    owner: `instance_${ulid()}`,
    leaseMs: options.leaseMs,
    pollMs: options.pollMs,
    retryBaseMs: options.retryBaseMs,
    retryMaxMs: options.retryMaxMs,
    logger: options.logger,
    counters: options.counters,
    trace: options.trace,
  });
  const service = new LogStreamsService({
    store: options.store,
    streams,
    sealed: options.sealed,
    audit: options.audit,
    cursors: options.cursors,
    access: options.access,
    box,
    sender,
    kick: () => deliverer.kick(),
  });
  return {
    handlers: logStreamHandlers(service),
    jobs: [deliverer],
    /** Pushes the log to log streams; `stop()` waits for the deliveries in flight (tests). */
    deliverer,
    /** The lowest seq an active or failing stream has not delivered (retention keeps it). */
    oldestUndelivered: () => streams.oldestUndelivered(),
  };
}
