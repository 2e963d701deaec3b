import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { AuditTrail } from '../../lib/audit-trail.js';
import { type Cursors, listScope, type Page } from '../../lib/cursor.js';
import { Forbidden, invalid } from '../../lib/errors.js';
import { idPattern, newId } from '../../lib/ids.js';
import { createSecretFile } from '../../lib/secret-file.js';
import type { CachedState } from '../../lib/state-versions.js';
import { INVALID_INSTANT, nowSeconds, parseInstant } from '../../lib/time.js';
import { isUniqueViolation } from '../../storage/database-errors.js';
import { lockedUpdate } from '../../storage/locked-update.js';
import type { RequestVersions, StaleMarker } from '../../storage/state-versions.js';
import type { Store } from '../../storage/store.js';
import type { KeptResponses } from '../idempotency/api.js';
import type { ApiKeyRow } from './model.js';
import type { ApiKeysRepository } from './repository.js';

type ApiKeyCreate = components['schemas']['ApiKeyCreate'];
type Plan = components['schemas']['Plan'];

const KEY_ID = idPattern('key');
const SECRET = /^sk_[A-Za-z0-9_-]{32,128}$/;
const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = { free: 100, pro: 1000 };
const PLAN_RANK: Record<Plan, number> = { free: 0, pro: 1, enterprise: 2 };

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generateSecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

export type Authentication =
  | { ok: true; key: ApiKeyRow }
  | { ok: false; reason: 'malformed' | 'unknown' | 'expired' | 'principal_inactive' };

/** The key that creates a key: a non-root one may create none stronger than itself. */
type Creator = Pick<
  ApiKeyRow,
  'isRoot' | 'principal' | 'plan' | 'rateLimitPerMinute' | 'expiresAt'
>;

export interface ApiKeysDeps {
  store: Pick<Store, 'transaction'>;
  keys: Pick<
    ApiKeysRepository,
    | 'findByHash'
    | 'findForUpdate'
    | 'findRoot'
    | 'insert'
    | 'updateRoot'
    | 'list'
    | 'delete'
    | 'deleteOfPrincipal'
  >;
  versions: StaleMarker & RequestVersions;
  audit: AuditTrail<'apikey.created' | 'apikey.revoked', 'api_key'>;
  cursors: Pick<Cursors, 'decode' | 'page'>;
  keptResponses: Pick<KeptResponses, 'forgetKey'>;
  /** Whether a user with this id exists (users). */
  userExists: (id: string) => Promise<boolean>;
  /** False only for a stored user with `active: false` (users). */
  userActive: (id: string) => Promise<boolean>;
}

export class ApiKeysService {
  /**
   * Known keys by secret hash, with whether their principal is an inactive user, valid while
   * `state_versions.api_keys` does not move.
   */
  private cache = {
    version: -1n,
    byHash: new Map<string, { key: ApiKeyRow; inactive: boolean }>(),
  };
  private readonly keys: ApiKeysDeps['keys'];

  constructor(private readonly deps: ApiKeysDeps) {
    this.keys = deps.keys;
  }

  /**
   * Looks the key up by the SHA-256 of its secret, then compares the hashes in constant
   * time. A key found is cached until `state_versions.api_keys` moves (every revocation,
   * and every change of a user's `active`, bumps it, on any instance) and its expiry is
   * checked on every request: a revoked or expired key, or one of an inactive user, fails on
   * its next request.
   */
  async authenticate(secret: string, now = new Date()): Promise<Authentication> {
    if (!SECRET.test(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    const { apiKeys: version } = await this.deps.versions.ofRequest();
    if (this.cache.version !== version) this.cache = { version, byHash: new Map() };
    const cache = this.cache;
    let known = cache.byHash.get(hash);
    if (!known) {
      const key = await this.keys.findByHash(hash);
      if (!key) return { ok: false, reason: 'unknown' };
      const inactive =
        key.principal.startsWith('user:') && !(await this.deps.userActive(key.principal.slice(5)));
      known = { key, inactive };
      // Only keys that exist are cached: guessing cannot fill memory.
      if (cache.byHash.size < 100_000) cache.byHash.set(hash, known);
    }
    const { key, inactive } = known;
    if (!timingSafeEqual(Buffer.from(key.secretHash), Buffer.from(hash))) {
      return { ok: false, reason: 'unknown' };
    }
    if (key.expiresAt && key.expiresAt <= now) return { ok: false, reason: 'expired' };
    if (inactive) return { ok: false, reason: 'principal_inactive' };
    return { ok: true, key };
  }

  /**
   * The root key: from `SECADMIN_ADMIN_API_KEY` when set (its hash replaces a previous
   * root's), else generated once into `<dataDir>/root-api-key` (0600). Returns the file
   * written, if any: its path may be logged, never its content.
   */
  async ensureRootKey(options: {
    secret: string | undefined;
    dataDir: string;
    rateLimit: number;
  }): Promise<{ generatedFile?: string }> {
    if (options.secret !== undefined && !SECRET.test(options.secret)) {
      throw new Error(
        'SECADMIN_ADMIN_API_KEY must be "sk_" followed by at least 32 characters of [A-Za-z0-9_-].',
      );
    }
    for (let attempt = 0; ; attempt++) {
      const existing = await this.keys.findRoot();
      if (existing) {
        await this.keys.updateRoot(existing.id, {
          rateLimitPerMinute: options.rateLimit,
          ...(options.secret !== undefined ? { secretHash: hashSecret(options.secret) } : {}),
        });
        await this.deps.versions.bump('apiKeys');
        return {};
      }
      const secret = options.secret ?? generateSecret();
      try {
        await this.insertRoot(hashSecret(secret), options.rateLimit);
      } catch (error) {
        // Another instance created the root key at the same moment: use that one.
        if (isUniqueViolation(error) && attempt === 0) continue;
        throw error;
      }
      if (options.secret !== undefined) return {};
      const file = join(options.dataDir, 'root-api-key');
      // A file left from an earlier database holds a secret that no longer opens anything.
      await rm(file, { force: true });
      if (!(await createSecretFile(file, `${secret}\n`)))
        throw new Error(`${file} appeared while the root key was written; start again`);
      return { generatedFile: file };
    }
  }

  private async insertRoot(secretHash: string, rateLimit: number): Promise<void> {
    await this.keys.insert({
      id: newId('key'),
      name: 'root',
      principal: 'service:root',
      plan: 'enterprise',
      rateLimitPerMinute: rateLimit,
      secretHash,
      isRoot: true,
      createdAt: nowSeconds(),
    });
  }

  /** A non-root key may only create keys no stronger than itself, for its own principal. */
  async create(
    actor: RequestActor,
    creator: Creator,
    input: ApiKeyCreate,
  ): Promise<{ key: ApiKeyRow; secret: string }> {
    const plan: Plan = input.plan ?? 'free';
    if (plan === 'enterprise' && input.rateLimitPerMinute === undefined) {
      throw invalid('rateLimitPerMinute', 'is required with plan enterprise');
    }
    if (plan !== 'enterprise' && input.rateLimitPerMinute !== undefined) {
      throw invalid('rateLimitPerMinute', 'is only allowed with plan enterprise');
    }
    const limit = plan === 'enterprise' ? (input.rateLimitPerMinute as number) : PLAN_LIMITS[plan];
    const parsed = input.expiresAt === undefined ? null : parseInstant(input.expiresAt);
    if (parsed === undefined) throw invalid('expiresAt', INVALID_INSTANT);
    // Key timestamps have no fraction of a second.
    const expiresAt = parsed && new Date(Math.floor(parsed.getTime() / 1000) * 1000);
    if (expiresAt && expiresAt <= new Date()) throw invalid('expiresAt', 'must be in the future');
    if (!creator.isRoot) {
      const stronger =
        input.principal !== creator.principal ||
        PLAN_RANK[plan] > PLAN_RANK[creator.plan as Plan] ||
        limit > creator.rateLimitPerMinute ||
        (creator.expiresAt !== null && (expiresAt === null || expiresAt > creator.expiresAt));
      if (stronger) {
        throw new Forbidden(
          'A key may only create keys for its own principal, with no higher plan or limit and no later expiry.',
        );
      }
    }
    if (
      input.principal.startsWith('user:') &&
      !(await this.deps.userExists(input.principal.slice(5)))
    ) {
      throw invalid('principal', 'names no existing user');
    }
    const secret = generateSecret();
    const key = await this.deps.store.transaction(async () => {
      const row = await this.keys.insert({
        id: newId('key'),
        name: input.name,
        principal: input.principal,
        plan,
        rateLimitPerMinute: limit,
        secretHash: hashSecret(secret),
        expiresAt,
        createdAt: nowSeconds(),
      });
      await this.deps.audit.record(actor, {
        event: 'apikey.created',
        target: { id: row.id, type: 'api_key' },
      });
      return row;
    });
    return { key, secret };
  }

  async list(
    actor: RequestActor,
    query: { limit: number; cursor?: string },
  ): Promise<Page<ApiKeyRow>> {
    // A non-root key sees only its own principal's keys, never the root key (docs/auth-and-access.md).
    const principal = actor.isRoot ? undefined : actor.principal;
    const scope = listScope('apikeys', { principal });
    const after = this.deps.cursors.decode(scope, KEY_ID, query.cursor);
    const rows = await this.keys.list(principal, after, query.limit + 1);
    return this.deps.cursors.page(rows, query.limit, scope, (row) => row.createdAt);
  }

  /** A key the actor may not see is one that does not exist (404), the root key a 403. */
  async revoke(actor: RequestActor, id: string): Promise<void> {
    await lockedUpdate(this.deps, {
      what: 'API key',
      lock: async () => {
        const key = await this.keys.findForUpdate(id);
        return key && (actor.isRoot || (!key.isRoot && key.principal === actor.principal))
          ? key
          : null;
      },
      write: async (key) => {
        if (key.isRoot) throw new Forbidden('The root key cannot be revoked through the API.');
        await this.keys.delete(id);
        await this.deps.keptResponses.forgetKey(id);
        return { result: undefined, stale: ['apiKeys'] };
      },
      record: () =>
        this.deps.audit.record(actor, { event: 'apikey.revoked', target: { id, type: 'api_key' } }),
    });
  }

  /**
   * Deletes the principal's keys, in the caller's transaction: a replay of a key's creation
   * shows its secret no more. Returns the cached state this makes stale, for the caller to bump
   * once its rows are written.
   */
  async revokeAllOf(principal: string): Promise<CachedState[]> {
    for (const keyId of await this.keys.deleteOfPrincipal(principal))
      await this.deps.keptResponses.forgetKey(keyId);
    return ['apiKeys'];
  }
}
