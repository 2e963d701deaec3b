import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { components } from '@secadmin/api-types';
import { type Cursors, listScope, type Page } from '../../lib/cursor.js';
import { Forbidden, invalid, NotFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { RequestActor } from '../../lib/request-actor.js';
import { INVALID_INSTANT, nowSeconds, parseInstant } from '../../lib/time.js';
import { isUniqueViolation } from '../../storage/connection.js';
import type { Store } from '../../storage/repositories.js';
import type { StateVersionsSource } from '../../storage/state-versions.js';
import type { StateVersions } from '../../storage/state-versions-repository.js';
import type { AuditLogApi } from '../audit-log/index.js';
import type { KeptResponses } from '../idempotency/index.js';
import type { ApiKeyRow } from './repository.js';

type ApiKeyCreate = components['schemas']['ApiKeyCreate'];
type Plan = components['schemas']['Plan'];

const KEY_ID = /^key_[0-9a-hjkmnp-tv-z]{26}$/;
const SECRET = /^sk_[A-Za-z0-9_-]{32,128}$/;
const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, number> = { free: 100, pro: 1000 };
const PLAN_RANK: Record<Plan, number> = { free: 0, pro: 1, enterprise: 2 };

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generateSecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** A stored key as the service hands it out (never with its secret). */
export type ApiKey = ApiKeyRow;

export type Authentication =
  | { ok: true; key: ApiKeyRow }
  | { ok: false; reason: 'malformed' | 'unknown' | 'expired' };

export class ApiKeysService {
  /** Known keys by secret hash, valid while `state_versions.api_keys` does not move. */
  private cache = { version: -1n, byHash: new Map<string, ApiKeyRow>() };

  constructor(
    private readonly store: Store,
    private readonly audit: Pick<AuditLogApi, 'record'>,
    private readonly versions: StateVersionsSource,
    private readonly cursors: Cursors,
    private readonly keptResponses: KeptResponses,
  ) {}

  /**
   * Looks the key up by the SHA-256 of its secret, then compares the hashes in constant
   * time. A key found is cached until `state_versions.api_keys` moves (every revocation
   * bumps it, on any instance) and its expiry is checked on every request: a revoked or
   * expired key fails on its next request.
   */
  async authenticate(
    secret: string,
    versions: StateVersions,
    now = new Date(),
  ): Promise<Authentication> {
    if (!SECRET.test(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    if (this.cache.version !== versions.apiKeys)
      this.cache = { version: versions.apiKeys, byHash: new Map() };
    const cache = this.cache;
    let key = cache.byHash.get(hash) ?? null;
    if (!key) {
      key = await this.store.apiKeys.findByHash(hash);
      // Only keys that exist are cached: guessing cannot fill memory.
      if (key && cache.byHash.size < 100_000) cache.byHash.set(hash, key);
    }
    if (!key || !timingSafeEqual(Buffer.from(key.secretHash), Buffer.from(hash))) {
      return { ok: false, reason: 'unknown' };
    }
    if (key.expiresAt && key.expiresAt <= now) return { ok: false, reason: 'expired' };
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
      const existing = await this.store.apiKeys.findRoot();
      if (existing) {
        await this.store.apiKeys.updateRoot(existing.id, {
          rateLimitPerMinute: options.rateLimit,
          ...(options.secret !== undefined ? { secretHash: hashSecret(options.secret) } : {}),
        });
        await this.versions.bump(this.store, 'apiKeys');
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
      await writeFile(file, `${secret}\n`, { mode: 0o600 });
      await chmod(file, 0o600);
      return { generatedFile: file };
    }
  }

  private async insertRoot(secretHash: string, rateLimit: number): Promise<void> {
    await this.store.apiKeys.insert({
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
    creator: ApiKeyRow,
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
      !(await this.store.users.find(input.principal.slice(5)))
    ) {
      throw invalid('principal', 'names no existing user');
    }
    const secret = generateSecret();
    const key = await this.store.transaction(async (repos) => {
      const row = await repos.apiKeys.insert({
        id: newId('key'),
        name: input.name,
        principal: input.principal,
        plan,
        rateLimitPerMinute: limit,
        secretHash: hashSecret(secret),
        expiresAt,
        createdAt: nowSeconds(),
      });
      await this.audit.record(actor, {
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
    const after = this.cursors.decode(scope, KEY_ID, query.cursor);
    const rows = await this.store.apiKeys.list(principal, after, query.limit + 1);
    return this.cursors.page(rows, query.limit, scope, (row) => row.createdAt);
  }

  async revoke(actor: RequestActor, id: string): Promise<void> {
    await this.store.transaction(async (repos) => {
      const key = await repos.apiKeys.find(id);
      if (!key || (!actor.isRoot && (key.isRoot || key.principal !== actor.principal)))
        throw new NotFound('API key');
      if (key.isRoot) throw new Forbidden('The root key cannot be revoked through the API.');
      await repos.apiKeys.delete(id);
      await this.keptResponses.withdrawResponsesShowing(repos, id);
      await this.versions.bump(repos, 'apiKeys');
      await this.audit.record(actor, {
        event: 'apikey.revoked',
        target: { id, type: 'api_key' },
      });
    });
  }
}
