import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { AuditTrail } from '../../lib/audit-trail.js';
import type { Condition } from '../../lib/condition.js';
import { type Cursors, listScope, type Page } from '../../lib/cursor.js';
import { Conflict, Forbidden, NotFound } from '../../lib/errors.js';
import { type Precondition, requirePrecondition } from '../../lib/etag.js';
import { nowSeconds } from '../../lib/time.js';
import { conflictOnDuplicate } from '../../storage/database-errors.js';
import { lockedUpdate } from '../../storage/locked-update.js';
import type { StaleMarker } from '../../storage/state-versions.js';
import type { Store } from '../../storage/store.js';
import type { Access } from '../policies/api.js';
import type { RoleRecord, RoleRow } from './model.js';
import type { RolesRepository } from './repository.js';

type RoleCreate = components['schemas']['RoleCreate'];
type RoleUpdate = components['schemas']['RoleUpdate'];

/** Any role id: its cursor positions carry ids of the role id pattern. */
const ROLE_ID = /^[a-z0-9][a-z0-9_.:-]{0,63}$/;

const duplicate = () => new Conflict('A role with this id or externalId already exists.');

export interface RolesDeps {
  store: Pick<Store, 'transaction'>;
  roles: Pick<
    RolesRepository,
    | 'insert'
    | 'find'
    | 'findMany'
    | 'findForUpdate'
    | 'list'
    | 'update'
    | 'delete'
    | 'search'
    | 'idsMatching'
  >;
  versions: StaleMarker;
  audit: AuditTrail<'role.created' | 'role.updated' | 'role.deleted', 'role'>;
  cursors: Pick<Cursors, 'decode' | 'page'>;
  access: Access;
  /** The users holding roles (users feature). */
  members: {
    memberCounts(roleIds: string[]): Promise<Map<string, number>>;
    withdrawRole(roleId: string): Promise<number>;
  };
}

export class RolesService {
  constructor(private readonly deps: RolesDeps) {}

  private async withCounts(rows: RoleRow[]): Promise<RoleRecord[]> {
    const counts = await this.deps.members.memberCounts(rows.map((row) => row.id));
    return rows.map((row) => ({ ...row, memberCount: counts.get(row.id) ?? 0 }));
  }

  async create(actor: RequestActor, input: RoleCreate): Promise<RoleRecord> {
    const now = nowSeconds();
    const row = await conflictOnDuplicate(duplicate, () =>
      this.deps.store.transaction(async () => {
        const role = await this.deps.roles.insert({
          id: input.id,
          name: input.name,
          description: input.description ?? null,
          externalId: input.externalId ?? null,
          createdAt: now,
          updatedAt: now,
        });
        await this.deps.audit.record(actor, {
          event: 'role.created',
          target: { id: role.id, type: 'role' },
        });
        return role;
      }),
    );
    return (await this.withCounts([row]))[0] as RoleRecord;
  }

  async get(id: string): Promise<RoleRecord> {
    const row = await this.deps.roles.find(id);
    if (!row) throw new NotFound('role');
    return (await this.withCounts([row]))[0] as RoleRecord;
  }

  /** The records among `ids`, in no order (a user's `groups` in SCIM). */
  async findMany(ids: string[]): Promise<RoleRow[]> {
    return ids.length === 0 ? [] : this.deps.roles.findMany(ids);
  }

  /** A page of role records matching `condition` (SCIM), by offset, and how many match. */
  search(condition: Condition, offset: number, limit: number) {
    return this.deps.roles.search(condition, offset, limit);
  }

  /** The ids of every role record matching `condition` (SCIM's Groups a key may read). */
  idsMatching(condition: Condition): Promise<string[]> {
    return this.deps.roles.idsMatching(condition);
  }

  async list(query: {
    limit: number;
    cursor?: string;
    externalId?: string;
  }): Promise<Page<RoleRecord>> {
    const scope = listScope('roles', { externalId: query.externalId });
    const after = this.deps.cursors.decode(scope, ROLE_ID, query.cursor);
    const rows = await this.deps.roles.list(query, after, query.limit + 1);
    const page = this.deps.cursors.page(rows, query.limit, scope, (row) => row.createdAt);
    return { ...page, items: await this.withCounts(page.items) };
  }

  async update(
    actor: RequestActor,
    id: string,
    patch: RoleUpdate,
    precondition?: Precondition,
  ): Promise<RoleRecord> {
    if (Object.keys(patch).length === 0) {
      const role = await this.get(id);
      requirePrecondition(precondition, role, 'role');
      return role;
    }
    const row = await conflictOnDuplicate(duplicate, () =>
      lockedUpdate(this.deps, {
        what: 'role',
        lock: () => this.deps.roles.findForUpdate(id),
        precondition,
        write: async () => {
          const data: Parameters<RolesDeps['roles']['update']>[1] = {
            updatedAt: nowSeconds(),
            version: { increment: 1 },
          };
          if (patch.name !== undefined) data.name = patch.name;
          if (patch.description !== undefined) data.description = patch.description;
          if (patch.externalId !== undefined) data.externalId = patch.externalId;
          return { result: await this.deps.roles.update(id, data), stale: [] };
        },
        record: () =>
          this.deps.audit.record(actor, { event: 'role.updated', target: { id, type: 'role' } }),
      }),
    );
    return (await this.withCounts([row]))[0] as RoleRecord;
  }

  /**
   * Deletes the record and takes the role from every user holding it, in one transaction.
   * Each removal is a grant change, so it needs `users:grant` on `roles/<id>` (decided before
   * the transaction, which must not wait on other queries): without it, 403 and nothing
   * changed, unless no user held the role.
   */
  async remove(actor: RequestActor, id: string, precondition?: Precondition): Promise<void> {
    const mayGrant = await this.deps.access.permits(actor, 'users:grant', `roles/${id}`);
    await lockedUpdate(this.deps, {
      what: 'role',
      lock: () => this.deps.roles.findForUpdate(id),
      precondition,
      write: async () => {
        const removedFromUsers = await this.deps.members.withdrawRole(id);
        if (removedFromUsers > 0 && !mayGrant)
          throw new Forbidden(`This key may not users:grant on roles/${id}.`);
        await this.deps.roles.delete(id);
        return { result: removedFromUsers, stale: removedFromUsers > 0 ? ['userRoles'] : [] };
      },
      record: (removedFromUsers) =>
        this.deps.audit.record(actor, {
          event: 'role.deleted',
          target: { id, type: 'role' },
          metadata: { removedFromUsers },
        }),
    });
  }
}
