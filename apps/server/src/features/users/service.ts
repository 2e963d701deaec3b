import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { AuditTrail } from '../../lib/audit-trail.js';
import type { Condition } from '../../lib/condition.js';
import { type Cursors, listScope, type Page } from '../../lib/cursor.js';
import { Conflict, Forbidden, Invalid, invalid, NotFound } from '../../lib/errors.js';
import type { Precondition } from '../../lib/etag.js';
import { requirePrecondition } from '../../lib/etag.js';
import { idPattern, newId } from '../../lib/ids.js';
import { mergePatch } from '../../lib/merge-patch.js';
import { hashPassword } from '../../lib/password.js';
import type { CachedState } from '../../lib/state-versions.js';
import { nowSeconds } from '../../lib/time.js';
import { conflictOnDuplicate } from '../../storage/database-errors.js';
import { lockedUpdate } from '../../storage/locked-update.js';
import type { StaleMarker } from '../../storage/state-versions.js';
import type { Store } from '../../storage/store.js';
import type { ApiKeysApi } from '../api-keys/api.js';
import type { KeptResponses } from '../idempotency/api.js';
import type { Access, AttributesRead, GrantedField, PoliciesApi } from '../policies/api.js';
import type { UserRow } from './model.js';
import type { UsersRepository } from './repository.js';

type UserCreate = components['schemas']['UserCreate'];
/** `/v1`'s update, and the new email a SCIM `userName` change brings. */
type UserUpdate = components['schemas']['UserUpdate'] & { email?: string };

const METADATA_LIMIT_BYTES = 16 * 1024;
/** The spec's `maxItems` of a user's `roles`. */
const MAX_ROLES = 100;
const USER_ID = idPattern('user');

function checkMetadataSize(metadata: unknown): void {
  if (Buffer.byteLength(JSON.stringify(metadata)) > METADATA_LIMIT_BYTES) {
    throw invalid('metadata', 'must be at most 16 KiB when serialized');
  }
}

/**
 * Without `users:grant` on each role added or removed, `users:update` on oneself would reach
 * any role's rights: 403, nothing changed. A role not decided beforehand was changed by a
 * concurrent request: 409, so that the client retries against the current roles.
 */
function requireGrants(granted: Map<string, boolean> | undefined, changed: string[]): void {
  if (!granted) return;
  for (const role of changed) {
    const allowed = granted.get(role);
    if (allowed === undefined)
      throw new Conflict("The user's roles changed during the request; try again.");
    if (!allowed) throw new Forbidden(`This key may not users:grant on roles/${role}.`);
  }
}

/**
 * Without `users:grant` on `attributes/<key>` for each metadata key a stored policy reads,
 * `users:update` on oneself would reach every right granted on that attribute: 403, nothing
 * changed. `granted` holds exactly the keys named in the request that a policy reads.
 */
function requireAttributeGrants(granted: Map<string, boolean> | undefined, changed: string[]) {
  if (!granted) return;
  for (const key of changed)
    if (granted.get(key) === false)
      throw new Forbidden(`This key may not users:grant on attributes/${key}.`);
}

/**
 * A user's fields whose change is a grant of `fields/<field>`: `email` and `emailVerified`
 * while a stored policy reads them, `externalId` always (it is whom the IdP's sign-in maps a
 * person to, decisions §17).
 */
type GrantableField = GrantedField | 'externalId';

/**
 * 403 for a field changed that `granted` (decided before the transaction) says the actor may
 * not grant; a field not in it needs no grant.
 */
function requireFieldGrants(
  granted: Map<GrantableField, boolean> | undefined,
  changed: GrantableField[],
) {
  if (!granted) return;
  for (const field of changed)
    if (granted.get(field) === false)
      throw new Forbidden(`This key may not users:grant on fields/${field}.`);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Equal JSON values, whatever the order of object keys (JSONB keeps its own order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    );
  }
  return a === b;
}

/** The top-level keys of `keys` that are added, changed or removed between the two metadata. */
function changedKeys(before: unknown, after: unknown, keys: string[]): string[] {
  const was = isObject(before) ? before : {};
  const is = isObject(after) ? after : {};
  return keys.filter(
    (key) => Object.hasOwn(was, key) !== Object.hasOwn(is, key) || !sameJson(was[key], is[key]),
  );
}

const duplicate = () => new Conflict('A user with this email or externalId already exists.');

export interface UsersDeps {
  store: Pick<Store, 'transaction'>;
  users: Pick<
    UsersRepository,
    | 'insert'
    | 'find'
    | 'existing'
    | 'read'
    | 'standing'
    | 'attributes'
    | 'findForUpdate'
    | 'list'
    | 'update'
    | 'delete'
    | 'memberCounts'
    | 'withdrawRole'
    | 'search'
    | 'membersOf'
  >;
  versions: StaleMarker;
  audit: AuditTrail<'user.created' | 'user.updated' | 'user.deleted', 'user'>;
  cursors: Pick<Cursors, 'decode' | 'page'>;
  access: Access;
  /** Which metadata keys stored policies read: changing one is a grant (policies). */
  attributesRead: AttributesRead;
  /** What a user's deletion does elsewhere, in its transaction. */
  apiKeys: ApiKeysApi;
  policies: PoliciesApi;
  logs: {
    /**
     * Redacts the user's email from the audit entries linked to it and writes the
     * `user.deleted` entry that names what it altered (audit-log).
     */
    recordUserDeletion(actor: RequestActor, userId: string, email: string): Promise<void>;
    redactionsApplied(): Promise<void>;
  };
  keptResponses: Pick<KeptResponses, 'forgetResponsesMentioning'>;
}

export class UsersService {
  private readonly users: UsersDeps['users'];

  constructor(private readonly deps: UsersDeps) {
    this.users = deps.users;
  }

  async create(actor: RequestActor, input: UserCreate): Promise<UserRow> {
    const metadata = input.metadata ?? {};
    checkMetadataSize(metadata);
    const roles = input.roles ?? [];
    requireGrants(await this.grantable(actor, roles), roles);
    const keys = Object.keys(metadata);
    requireAttributeGrants(await this.attributeGrants(actor, keys), keys);
    // A new user's emailVerified is false, and its externalId maps whom the creator chose to
    // a user that holds only what the creator could grant it.
    requireFieldGrants(await this.fieldGrants(actor, ['email']), ['email']);
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    const now = nowSeconds();
    return conflictOnDuplicate(duplicate, () =>
      this.deps.store.transaction(async () => {
        const user = await this.users.insert({
          id: newId('user'),
          email: input.email,
          emailLower: input.email.toLowerCase(),
          name: input.name ?? '',
          passwordHash,
          roles: input.roles ?? [],
          active: input.active ?? true,
          externalId: input.externalId ?? null,
          metadata: metadata as object,
          createdAt: now,
          updatedAt: now,
        });
        await this.deps.audit.record(actor, {
          event: 'user.created',
          target: { id: user.id, type: 'user' },
        });
        return user;
      }),
    );
  }

  async get(id: string): Promise<UserRow> {
    const user = await this.users.read(id);
    if (!user) throw new NotFound('user');
    return user;
  }

  async list(query: {
    limit: number;
    cursor?: string;
    email?: string;
    role?: string;
    active?: boolean;
    externalId?: string;
  }): Promise<Page<UserRow>> {
    const scope = listScope('users', {
      email: query.email?.toLowerCase(),
      role: query.role,
      active: query.active,
      externalId: query.externalId,
    });
    const after = this.deps.cursors.decode(scope, USER_ID, query.cursor);
    const rows = await this.users.list(query, after, query.limit + 1);
    return this.deps.cursors.page(rows, query.limit, scope, (row) => row.createdAt);
  }

  /**
   * Up to `take` users' ids after a keyset position (oldest first): how AuthZEN's subject
   * search walks the stored users.
   */
  async idsAfter(
    after: { at: Date; id: string } | undefined,
    take: number,
  ): Promise<{ id: string; createdAt: Date }[]> {
    const rows = await this.users.list({}, after, take);
    return rows.map(({ id, createdAt }) => ({ id, createdAt }));
  }

  /** Merges metadata under a row lock: concurrent updates never lose each other's keys. */
  async update(
    actor: RequestActor,
    id: string,
    patch: UserUpdate,
    precondition?: Precondition,
  ): Promise<UserRow> {
    if (Object.keys(patch).length === 0) {
      const user = await this.get(id);
      requirePrecondition(precondition, user, 'user');
      return user;
    }
    // Decided before the transaction, so that its row lock is held only for the write; the
    // roles changed are known only under the row lock.
    const granted =
      patch.roles === undefined
        ? undefined
        : await this.grantable(actor, [...patch.roles, ...(await this.get(id)).roles]);
    const metadataKeys = patch.metadata === undefined ? [] : Object.keys(patch.metadata);
    const attributesGranted = await this.attributeGrants(actor, metadataKeys);
    const fieldsGranted = await this.fieldGrants(actor, [
      ...(patch.email !== undefined ? (['email', 'emailVerified'] as const) : []),
      ...(patch.externalId !== undefined ? (['externalId'] as const) : []),
    ]);
    return conflictOnDuplicate(duplicate, () =>
      lockedUpdate(this.deps, {
        what: 'user',
        lock: () => this.users.findForUpdate(id),
        precondition,
        write: async (current) => {
          const data: Parameters<UsersDeps['users']['update']>[1] = {
            updatedAt: nowSeconds(),
            version: { increment: 1 },
          };
          const stale: CachedState[] = [];
          if (patch.name !== undefined) data.name = patch.name;
          const fieldsChanged: GrantableField[] = [];
          if (patch.email !== undefined && patch.email !== current.email) {
            data.email = patch.email;
            data.emailLower = patch.email.toLowerCase();
            // Nobody has verified the new address.
            data.emailVerified = false;
            fieldsChanged.push('email');
            if (current.emailVerified) fieldsChanged.push('emailVerified');
          }
          if (patch.externalId !== undefined && patch.externalId !== current.externalId) {
            data.externalId = patch.externalId;
            fieldsChanged.push('externalId');
          }
          requireFieldGrants(fieldsGranted, fieldsChanged);
          if (patch.roles !== undefined) {
            const before = new Set(current.roles);
            const after = new Set(patch.roles);
            requireGrants(granted, [
              ...patch.roles.filter((role) => !before.has(role)),
              ...current.roles.filter((role) => !after.has(role)),
            ]);
            data.roles = patch.roles;
            stale.push('userRoles');
          }
          if (patch.active !== undefined && patch.active !== current.active) {
            data.active = patch.active;
            // Decisions about the user and its keys' authentication, on every instance.
            stale.push('userRoles', 'apiKeys');
          }
          if (patch.metadata !== undefined) {
            const metadata = mergePatch(current.metadata, patch.metadata);
            checkMetadataSize(metadata);
            requireAttributeGrants(
              attributesGranted,
              changedKeys(current.metadata, metadata, metadataKeys),
            );
            data.metadata = metadata as object;
          }
          return { result: await this.users.update(id, data), stale };
        },
        record: () =>
          this.deps.audit.record(actor, { event: 'user.updated', target: { id, type: 'user' } }),
      }),
    );
  }

  /**
   * Whether the actor may add or remove each role: `users:grant` on `roles/<role>`
   * (docs/auth-and-access.md). `undefined` for the root key, which may grant any.
   */
  private async grantable(
    actor: RequestActor,
    roles: string[],
  ): Promise<Map<string, boolean> | undefined> {
    if (actor.isRoot) return undefined;
    const granted = new Map<string, boolean>();
    for (const role of new Set(roles))
      granted.set(role, await this.deps.access.permits(actor, 'users:grant', `roles/${role}`));
    return granted;
  }

  /**
   * Whether the actor may add, change or remove each of these metadata keys that a stored
   * policy reads: `users:grant` on `attributes/<key>` (docs/auth-and-access.md). Keys no
   * policy reads are not in the map: any `users:update` may change them. `undefined` for the
   * root key, which may change any.
   */
  private async attributeGrants(
    actor: RequestActor,
    keys: string[],
  ): Promise<Map<string, boolean> | undefined> {
    if (actor.isRoot || keys.length === 0) return undefined;
    const read = await this.deps.attributesRead.userAttributesRead();
    const granted = new Map<string, boolean>();
    for (const key of new Set(keys))
      if (read.every || read.keys.has(key))
        granted.set(key, await this.deps.access.permits(actor, 'users:grant', `attributes/${key}`));
    return granted;
  }

  /**
   * Whether the actor may change each of these fields: `users:grant` on `fields/<field>`
   * (docs/auth-and-access.md) for `externalId`, and for `email` and `emailVerified` while a
   * stored policy reads them; a field not in the map needs no grant. `undefined` for the root
   * key, which may change any.
   */
  private async fieldGrants(
    actor: RequestActor,
    fields: readonly GrantableField[],
  ): Promise<Map<GrantableField, boolean> | undefined> {
    if (actor.isRoot || fields.length === 0) return undefined;
    const read = await this.deps.attributesRead.userAttributesRead();
    const granted = new Map<GrantableField, boolean>();
    for (const field of new Set(fields))
      if (field === 'externalId' || read.fields.has(field))
        granted.set(field, await this.deps.access.permits(actor, 'users:grant', `fields/${field}`));
    return granted;
  }

  /**
   * Deletes the user, its keys and its `user:<id>` policy principals, redacts its email from
   * the audit entries linked to it and forgets kept idempotent responses that show it, in one
   * transaction: all of it happens or none.
   */
  async remove(actor: RequestActor, id: string, precondition?: Precondition): Promise<void> {
    await lockedUpdate(this.deps, {
      what: 'user',
      lock: () => this.users.findForUpdate(id),
      precondition,
      write: async (user) => {
        const principal = `user:${id}`;
        const stale = new Set<CachedState>(['userRoles']);
        for (const which of await this.deps.apiKeys.revokeAllOf(principal)) stale.add(which);
        for (const which of await this.deps.policies.removePrincipal(principal)) stale.add(which);
        await this.users.delete(id);
        await this.deps.keptResponses.forgetResponsesMentioning(user.email);
        return { result: user.email, stale: [...stale] };
      },
      record: (email) => this.deps.logs.recordUserDeletion(actor, id, email),
    });
    await this.deps.logs.redactionsApplied();
  }

  /** A user's roles and `active` flag, null for no such user: every decision about it needs them. */
  standing(userId: string): Promise<{ roles: string[]; active: boolean } | null> {
    return this.users.standing(userId);
  }

  /** What `principal.*` attribute conditions read of a user, null for no such user. */
  attributes(userId: string) {
    return this.users.attributes(userId);
  }

  /** False only for a stored user with `active: false`. */
  async isActive(userId: string): Promise<boolean> {
    return (await this.users.standing(userId))?.active !== false;
  }

  /** A page of users matching `condition` (SCIM), by offset, and how many match. */
  search(condition: Condition, offset: number, limit: number) {
    return this.users.search(condition, offset, limit);
  }

  /** The ids of the users holding a role (a SCIM Group's members). */
  membersOf(roleId: string): Promise<{ id: string }[]> {
    return this.users.membersOf(roleId);
  }

  /**
   * Whether the actor may add or remove `roleId` (`users:grant` on `roles/<id>`), decided
   * before a transaction opens, for `changeMembership`.
   */
  async mayGrant(actor: RequestActor, roleId: string): Promise<boolean> {
    return (await this.grantable(actor, [roleId]))?.get(roleId) ?? true;
  }

  /**
   * Adds `roleId` to the users `add` and takes it from the users `remove`, each a grant change
   * recorded as that user's `user.updated`, in one transaction (or the caller's): an unknown
   * user is 400 naming `members` and nothing changes; without `mayGrant` (decided with
   * `mayGrant()`), 403. Nothing more is needed than `users:grant`: a group's membership is the
   * role's, not the users' other fields.
   */
  changeMembership(
    actor: RequestActor,
    roleId: string,
    change: { add: string[]; remove: string[] },
    mayGrant: boolean,
  ): Promise<void> {
    const add = [...new Set(change.add)];
    const remove = [...new Set(change.remove)].filter((id) => !add.includes(id));
    if (add.length + remove.length === 0) return Promise.resolve();
    if (!mayGrant)
      return Promise.reject(new Forbidden(`This key may not users:grant on roles/${roleId}.`));
    return this.deps.store.transaction(async () => {
      let changed = false;
      for (const [id, adding] of [
        ...add.map((id) => [id, true] as const),
        ...remove.map((id) => [id, false] as const),
      ]) {
        const user = await this.users.findForUpdate(id);
        if (!user)
          throw new Invalid(
            [{ field: 'members', message: `no user with id "${id}"` }],
            `No user with id "${id}": nothing was changed.`,
            'invalidValue',
          );
        const holds = user.roles.includes(roleId);
        if (holds === adding) continue;
        const roles = adding ? [...user.roles, roleId] : user.roles.filter((r) => r !== roleId);
        if (roles.length > MAX_ROLES)
          throw new Invalid(
            [{ field: 'members', message: `user "${id}" would hold more than ${MAX_ROLES} roles` }],
            'The request is invalid.',
            'invalidValue',
          );
        await this.users.update(id, {
          roles,
          updatedAt: nowSeconds(),
          version: { increment: 1 },
        });
        await this.deps.audit.record(actor, {
          event: 'user.updated',
          target: { id, type: 'user' },
        });
        changed = true;
      }
      if (changed) await this.deps.versions.bump('userRoles');
    });
  }

  /** How many users hold each role (roles feature). */
  memberCounts(roleIds: string[]): Promise<Map<string, number>> {
    return this.users.memberCounts(roleIds);
  }

  /**
   * Takes a role from every user holding it, in the caller's transaction; how many users held
   * it. Decisions about them change: the caller bumps `userRoles`.
   */
  withdrawRole(roleId: string): Promise<number> {
    return this.users.withdrawRole(roleId, nowSeconds());
  }

  async exists(userId: string): Promise<boolean> {
    return (await this.users.find(userId)) !== null;
  }

  /** Which of these ids are stored users'. */
  existing(ids: readonly string[]): Promise<Set<string>> {
    return this.users.existing(ids);
  }
}
