import type { RequestActor } from '../../lib/actor.js';
import { newId } from '../../lib/ids.js';
import type { Repositories, Store } from '../../storage/repositories.js';

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
  event:
    | 'user.created'
    | 'user.updated'
    | 'user.deleted'
    | 'policy.created'
    | 'policy.updated'
    | 'policy.deleted'
    | 'apikey.created'
    | 'apikey.revoked'
    | 'logs.export.created';
  target: { id: string; type: 'user' | 'policy' | 'api_key' | 'export' };
  /** Facts about the change, beside `principal`. */
  metadata?: Record<string, unknown>;
}

/** What the service itself did, with no request behind it (actor `{type: "service"}`). */
export interface SystemRecord {
  event: 'logs.retention.applied';
  target: { type: 'audit_log' };
  metadata: Record<string, string | number>;
}

/**
 * The one seam through which services write the service's own audit entries. It takes
 * the transaction's client, so a change and its entry commit together or not at all.
 */
export interface AuditWriter {
  record(repos: Repositories, actor: RequestActor, record: AuditRecord): Promise<void>;
  /** A rejected key (the secret itself is never recorded). */
  recordAuthFailure(request: {
    ip: string | undefined;
    userAgent: string | undefined;
    reason: string;
  }): Promise<void>;
  /** Within the transaction of what it records. */
  recordSystem(repos: Repositories, record: SystemRecord): Promise<void>;
}

export const createAuditWriter = (store: Store): AuditWriter => ({
  async record(repos, actor, { event, target, metadata }) {
    await repos.logs.insert([
      {
        id: newId('log'),
        timestamp: new Date(),
        event,
        actorId: actor.keyId,
        actorType: 'api_key',
        targetId: target.id,
        targetType: target.type,
        ip: cut(actor.ip, IP_MAX),
        userAgent: cut(actor.userAgent, USER_AGENT_MAX),
        result: 'success',
        metadata: { principal: actor.principal, ...metadata },
        origin: 'service',
      },
    ]);
  },
  async recordAuthFailure({ ip, userAgent, reason }) {
    await store.logs.insert([
      {
        id: newId('log'),
        timestamp: new Date(),
        event: 'auth.failed',
        actorType: 'anonymous',
        ip: cut(ip, IP_MAX),
        userAgent: cut(userAgent, USER_AGENT_MAX),
        result: 'failure',
        metadata: { reason },
        origin: 'service',
      },
    ]);
  },
  async recordSystem(repos, { event, target, metadata }) {
    await repos.logs.insert([
      {
        id: newId('log'),
        timestamp: new Date(),
        event,
        actorType: 'service',
        targetType: target.type,
        result: 'success',
        metadata,
        origin: 'service',
      },
    ]);
  },
});
