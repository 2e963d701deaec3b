import type { SecadminClient } from '@secadmin/api-client';
import type { components } from '@secadmin/api-types';
import type { Database } from '@secadmin/db';
import { FeedRepository } from '../../src/features/audit-log/analytics/feed-repository.js';
import { createAuditWriter } from '../../src/features/audit-log/audit-writer.js';
import { EntriesRepository } from '../../src/features/audit-log/entries/repository.js';
import type { LogRow } from '../../src/features/audit-log/entries/sql.js';
import { PartitionsRepository } from '../../src/features/audit-log/partitions/repository.js';
import { RetentionRepository } from '../../src/features/audit-log/retention/repository.js';
import { LogRetention } from '../../src/features/audit-log/retention/service.js';
import { createStore } from '../../src/storage/store.js';

let counter = 0;
export const uniqueEmail = (prefix = 'user') => `${prefix}.${Date.now()}.${counter++}@example.com`;
export const uniqueName = (prefix = 'policy') => `${prefix}-${Date.now()}-${counter++}`;

export async function createUser(
  client: SecadminClient,
  body: Partial<{
    email: string;
    name: string;
    roles: string[];
    metadata: Record<string, unknown>;
    password: string;
    active: boolean;
  }> = {},
) {
  const { data } = await client.POST('/v1/users', {
    body: { email: uniqueEmail(), name: 'Test User', ...body },
  });
  if (!data) throw new Error('createUser returned no data');
  return data.data;
}

export async function createKey(
  client: SecadminClient,
  principal: string,
  extra: Partial<{
    plan: 'free' | 'pro' | 'enterprise';
    rateLimitPerMinute: number;
    expiresAt: string;
  }> = {},
) {
  const { data } = await client.POST('/v1/api-keys', {
    body: { name: 'test key', principal, ...extra },
  });
  if (!data) throw new Error('createKey returned no data');
  return data.data;
}

export async function createPolicy(
  client: SecadminClient,
  body: Partial<{
    name: string;
    effect: 'allow' | 'deny';
    principals: string[];
    actions: string[];
    resources: string[];
    description: string;
    conditions: components['schemas']['PolicyConditions'];
  }>,
) {
  const { data } = await client.POST('/v1/policies', {
    body: {
      name: uniqueName(),
      effect: 'allow',
      principals: ['service:fixture'],
      actions: ['fixture:noop'],
      resources: ['fixture'],
      ...body,
    },
  });
  if (!data) throw new Error('createPolicy returned no data');
  return data.data;
}

/** Awaits a rejected call and returns the thrown error's status and code. */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ status: number; code: string; details: { field: string; message: string }[] }> {
  try {
    await promise;
  } catch (error) {
    const e = error as {
      status: number;
      code: string;
      details: { field: string; message: string }[];
    };
    return { status: e.status, code: e.code, details: e.details };
  }
  throw new Error('expected the call to fail');
}

/** Budgets are fixed one-minute windows: start a burst at least 5 s before the next one opens. */
export async function outsideWindowBoundary(): Promise<void> {
  const untilNextWindow = 60_000 - (Date.now() % 60_000);
  if (untilNextWindow < 5_000)
    await new Promise((resolve) => setTimeout(resolve, untilNextWindow + 50));
}

/** A stored log row with every searchable field empty but `event` and `actor.type`, for highlighting tests. */
export const logRow = (fields: Partial<LogRow>): LogRow =>
  ({
    event: 'user.login',
    actorId: null,
    actorEmail: null,
    actorType: 'user',
    targetId: null,
    targetType: null,
    ip: null,
    userAgent: null,
    city: null,
    country: null,
    region: null,
    metadata: {},
    ...fields,
  }) as LogRow;

/**
 * A retention of `days` on a server's database, applied by the test (the test servers keep
 * every entry). All its parts are on one store, so its record joins its transaction.
 */
export function retentionOn(
  db: Database,
  days: number,
  heldFrom?: () => Promise<number | undefined>,
): LogRetention {
  const store = createStore(db);
  return new LogRetention(
    store,
    new PartitionsRepository(store.connection),
    new RetentionRepository(store.connection),
    new FeedRepository(store.connection),
    createAuditWriter(new EntriesRepository(store.connection)),
    days,
    heldFrom,
  );
}
