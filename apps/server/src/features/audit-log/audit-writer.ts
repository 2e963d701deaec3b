import type { RequestActor } from '../../lib/actor.js';
import { newId } from '../../lib/ids.js';
import type { EntriesRepository } from './entries/repository.js';

/**
 * The log schema's limits (`LogContext` in the spec) on what the service copies from request
 * headers into its own entries: a client picks these values, so they are cut, never refused.
 */
const USER_AGENT_MAX = 1024;
const IP_MAX = 64;

/** `text` cut to at most `max` characters (code points, as the schema's `maxLength` counts). */
function cut(text: string | undefined, max: number): string | null {
  if (text === undefined) return null;
  if (text.length <= max) return text;
  let end = 0;
  let count = 0;
  for (const character of text) {
    if (count === max) break;
    end += character.length;
    count++;
  }
  return text.slice(0, end);
}

export interface AuditRecord {
  /** The entry's id, when the caller needs it beforehand (a user deletion's records name it). */
  id?: string;
  event:
    | 'user.created'
    | 'user.updated'
    | 'user.deleted'
    | 'role.created'
    | 'role.updated'
    | 'role.deleted'
    | 'policy.created'
    | 'policy.updated'
    | 'policy.deleted'
    | 'apikey.created'
    | 'apikey.revoked'
    | 'logs.export.created'
    | 'stream.created'
    | 'stream.updated'
    | 'stream.deleted'
    | 'stream.secret_rotated';
  target: { id: string; type: 'user' | 'role' | 'policy' | 'api_key' | 'export' | 'log_stream' };
  /** Facts about the change, beside `principal`. */
  metadata?: Record<string, unknown>;
}

/** What the service itself did, with no request behind it (actor `{type: "service"}`). */
export type SystemRecord =
  | {
      event: 'logs.retention.applied';
      target: { type: 'audit_log' };
      metadata: Record<string, string | number>;
    }
  | {
      event: 'stream.disabled';
      target: { type: 'log_stream'; id: string };
      metadata: Record<string, string | number>;
    };

/**
 * The one seam through which services write the service's own audit entries. Each write
 * joins the transaction open in the caller's async call chain, so a change and its entry
 * commit together or not at all.
 */
export interface AuditWriter {
  record(actor: RequestActor, record: AuditRecord): Promise<void>;
  /** A rejected key (the secret itself is never recorded). */
  recordAuthFailure(request: {
    ip: string | undefined;
    userAgent: string | undefined;
    traceId: string | undefined;
    reason: string;
  }): Promise<void>;
  /** Within the transaction of what it records. */
  recordSystem(record: SystemRecord): Promise<void>;
}

export const createAuditWriter = (entries: Pick<EntriesRepository, 'insert'>): AuditWriter => ({
  async record(actor, { id, event, target, metadata }) {
    await entries.insert([
      {
        id: id ?? newId('log'),
        timestamp: new Date(),
        event,
        actorId: actor.keyId,
        actorType: 'api_key',
        targetId: target.id,
        targetType: target.type,
        ip: cut(actor.ip, IP_MAX),
        userAgent: cut(actor.userAgent, USER_AGENT_MAX),
        result: 'success',
        traceId: actor.traceId ?? null,
        metadata: {
          principal: actor.principal,
          ...(actor.via ? { via: actor.via } : {}),
          ...metadata,
        },
        origin: 'service',
      },
    ]);
  },
  async recordAuthFailure({ ip, userAgent, traceId, reason }) {
    await entries.insert([
      {
        id: newId('log'),
        timestamp: new Date(),
        event: 'auth.failed',
        actorType: 'anonymous',
        ip: cut(ip, IP_MAX),
        userAgent: cut(userAgent, USER_AGENT_MAX),
        result: 'failure',
        traceId: traceId ?? null,
        metadata: { reason },
        origin: 'service',
      },
    ]);
  },
  async recordSystem({ event, target, metadata }) {
    await entries.insert([
      {
        id: newId('log'),
        timestamp: new Date(),
        event,
        actorType: 'service',
        targetType: target.type,
        ...('id' in target ? { targetId: target.id } : {}),
        result: 'success',
        metadata,
        origin: 'service',
      },
    ]);
  },
});
