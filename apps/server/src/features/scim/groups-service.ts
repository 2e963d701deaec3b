import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { Condition } from '../../lib/condition.js';
import { Conflict, Forbidden, NotFound } from '../../lib/errors.js';
import { type Precondition, requirePrecondition } from '../../lib/etag.js';
import type { Store } from '../../storage/store.js';
import type { Access } from '../policies/api.js';
import type { RoleRecord, RolesService } from '../roles/api.js';
import type { UsersService } from '../users/api.js';
import { checkAttributes, checkReadOnly, GROUP_ATTRIBUTES } from './attributes.js';
import { type FilterSchema, parseFilter } from './filter.js';
import { bad, type ListQuery, listResponse, paging } from './lists.js';
import { applyPatch } from './patch.js';
import {
  GROUP_SCHEMA,
  leavesOut,
  type Projection,
  project,
  type ScimResource,
  scimGroup,
} from './representation.js';

type GroupInput = components['schemas']['ScimGroupInput'];
type PatchOp = components['schemas']['ScimPatchOp'];

const GROUP_FILTER: Omit<FilterSchema, 'rolesOf'> = {
  urn: GROUP_SCHEMA,
  attributes: {
    id: { field: 'id', type: 'string', alwaysPresent: true },
    displayname: { field: 'name', type: 'string', alwaysPresent: true },
    externalid: { field: 'externalId', type: 'string' },
    'meta.lastmodified': { field: 'updatedAt', type: 'dateTime', alwaysPresent: true },
    'meta.created': { field: 'createdAt', type: 'dateTime', alwaysPresent: true },
  },
};

/** A role id made from a display name (decisions §15): lowercased, other characters → `-`. */
export function roleIdFrom(displayName: string): string {
  const id = displayName
    .toLowerCase()
    .replace(/[^a-z0-9_.:-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 56);
  return id.length > 0 ? id : 'group';
}

export interface ScimGroupsDeps {
  store: Pick<Store, 'transaction'>;
  users: Pick<UsersService, 'get' | 'membersOf' | 'mayGrant' | 'changeMembership'>;
  roles: Pick<RolesService, 'get' | 'create' | 'update' | 'remove' | 'search' | 'idsMatching'>;
  access: Access;
  /** `{SECADMIN_PUBLIC_URL}/scim/v2`. */
  base: string;
}

/**
 * SCIM Groups over the roles service; a member change is a grant through the users service.
 * Each change is the `/v1` twin's service call, with the actor marked `via: "scim"`.
 */
export class ScimGroups {
  constructor(private readonly deps: ScimGroupsDeps) {}

  /**
   * A Group as the actor may see it: its `members` only to a key that may `users:list` (who
   * holds a role is a list of users), decided once per request with `mayListUsers`.
   */
  private async groupResource(
    role: RoleRecord,
    showMembers: boolean,
    p: Projection = {},
  ): Promise<ScimResource> {
    const members =
      !showMembers || leavesOut(p, 'members')
        ? undefined
        : await this.deps.users.membersOf(role.id);
    return project(scimGroup(role, members, this.deps.base), p);
  }

  private mayListUsers(actor: RequestActor): Promise<boolean> {
    return this.deps.access.permits(actor, 'users:list', 'users');
  }

  /**
   * The Groups matching the filter that the actor may `roles:read`, paged: the readable ones
   * are found first, so that `totalResults` and `startIndex` count only them.
   */
  async listGroups(actor: RequestActor, query: ListQuery, p: Projection) {
    const { startIndex, count } = paging(query);
    const showMembers = await this.mayListUsers(actor);
    const condition: Condition = query.filter
      ? await parseFilter(query.filter, {
          ...GROUP_FILTER,
          rolesOf: async (userId) => {
            // Which groups a user is in is the members a key without users:list is not shown:
            // `totalResults` would answer it.
            if (!showMembers)
              throw new Forbidden(
                'This key may not users:list on users, which a filter on members needs.',
              );
            try {
              return (await this.deps.users.get(userId)).roles;
            } catch (error) {
              if (error instanceof NotFound) return [];
              throw error;
            }
          },
        })
      : { kind: 'constant', value: true };
    const readable: string[] = [];
    if (!actor.isRoot)
      for (const id of await this.deps.roles.idsMatching(condition))
        if (await this.deps.access.permits(actor, 'roles:read', `roles/${id}`)) readable.push(id);
    const visible: Condition = actor.isRoot
      ? condition
      : { kind: 'and', of: [condition, { kind: 'in', field: 'id', values: readable }] };
    const { total, rows } = await this.deps.roles.search(visible, startIndex - 1, count);
    const resources = await Promise.all(
      rows.map((row) => this.groupResource({ ...row, memberCount: 0 }, showMembers, p)),
    );
    return listResponse(total, startIndex, resources);
  }

  async getGroup(actor: RequestActor, id: string, p: Projection) {
    const role = await this.deps.roles.get(id);
    const showMembers = await this.mayListUsers(actor);
    return { resource: await this.groupResource(role, showMembers, p), role };
  }

  private async require(actor: RequestActor, action: string, resource: string) {
    if (!(await this.deps.access.permits(actor, action, resource)))
      throw new Forbidden(`This key may not ${action} on ${resource}.`);
  }

  /**
   * A Group's PUT and PATCH answer with the group, so a key with no right on it at all gets a
   * 403 before anything is read (not a 404 that tells it whether the group exists); which right
   * each change needs is checked once the change is known.
   */
  private async requireSomeRightOn(actor: RequestActor, id: string) {
    for (const action of ['roles:update', 'users:grant', 'roles:read'])
      if (await this.deps.access.permits(actor, action, `roles/${id}`)) return;
    throw new Forbidden(`This key may not roles:update, users:grant or roles:read on roles/${id}.`);
  }

  private memberIds(members: unknown, field: string): string[] {
    if (members === undefined || members === null) return [];
    if (!Array.isArray(members)) throw bad(field, 'must be an array of {value}');
    return members.map((m, i) => {
      const value = (m as { value?: unknown } | null)?.value;
      if (typeof value !== 'string' || value.length === 0 || value.length > 64)
        throw bad(`${field}[${i}].value`, 'must be a user id');
      return value;
    });
  }

  /**
   * Creates the role record under an id made from `displayName` (`-2`, `-3`… on a clash) and
   * grants it to the members, in one transaction.
   */
  async createGroup(actor: RequestActor, body: GroupInput) {
    const input = checkAttributes(body, GROUP_ATTRIBUTES, 'Group') as GroupInput;
    checkReadOnly(input, GROUP_ATTRIBUTES, 'Group', undefined);
    const members = this.memberIds(input.members, 'members');
    const base = roleIdFrom(input.displayName);
    // Decided before the transaction; the id is not known yet, so for each candidate.
    for (let attempt = 1; attempt <= 50; attempt++) {
      const id = attempt === 1 ? base : `${base}-${attempt}`;
      const mayGrant = members.length === 0 || (await this.deps.users.mayGrant(actor, id));
      try {
        const role = await this.deps.store.transaction(async () => {
          const role = await this.deps.roles.create(actor, {
            id,
            name: input.displayName.normalize('NFC'),
            ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
          });
          await this.deps.users.changeMembership(actor, id, { add: members, remove: [] }, mayGrant);
          return role;
        });
        const created = await this.deps.roles.get(role.id);
        const showMembers = await this.mayListUsers(actor);
        return { resource: await this.groupResource(created, showMembers), role: created };
      } catch (error) {
        if (!(error instanceof Conflict)) throw error;
        // An externalId clash is the client's; an id clash takes the next suffix.
        const clash = await this.deps.roles.get(id).catch(() => undefined);
        if (!clash) throw error;
      }
    }
    throw new Conflict('Too many groups have this displayName.');
  }

  /** Makes the group's name, externalId and members those of `wanted`, in one transaction. */
  private async changeGroup(
    actor: RequestActor,
    current: RoleRecord,
    currentMembers: string[],
    wanted: ScimResource,
    replacing: boolean,
    precondition: Precondition | undefined,
  ) {
    const id = current.id;
    if (
      typeof wanted.displayName !== 'string' ||
      wanted.displayName.length === 0 ||
      wanted.displayName.length > 200
    )
      throw bad('displayName', 'must be a string of 1 to 200 characters');
    const externalId = wanted.externalId;
    if (
      externalId !== undefined &&
      (typeof externalId !== 'string' || externalId.length === 0 || externalId.length > 255)
    )
      throw bad('externalId', 'must be a string of 1 to 255 characters');
    const members = new Set(this.memberIds(wanted.members, 'members'));
    const before = new Set(currentMembers);
    const add = [...members].filter((m) => !before.has(m));
    const remove = currentMembers.filter((m) => !members.has(m));
    const name = wanted.displayName.normalize('NFC');
    const nextExternal =
      typeof externalId === 'string' ? externalId : replacing ? null : current.externalId;
    const renamed = name !== current.name || nextExternal !== current.externalId;
    if (renamed) await this.require(actor, 'roles:update', `roles/${id}`);
    const mayGrant =
      add.length + remove.length === 0 || (await this.deps.users.mayGrant(actor, id));
    await this.deps.store.transaction(async () => {
      if (renamed)
        await this.deps.roles.update(
          actor,
          id,
          { name, ...(nextExternal !== current.externalId ? { externalId: nextExternal } : {}) },
          precondition,
        );
      await this.deps.users.changeMembership(actor, id, { add, remove }, mayGrant);
    });
    const role = await this.deps.roles.get(id);
    const showMembers = await this.mayListUsers(actor);
    return { resource: await this.groupResource(role, showMembers), role };
  }

  async replaceGroup(
    actor: RequestActor,
    id: string,
    body: GroupInput,
    precondition?: Precondition,
  ) {
    await this.requireSomeRightOn(actor, id);
    const input = checkAttributes(body, GROUP_ATTRIBUTES, 'Group');
    const current = await this.deps.roles.get(id);
    requirePrecondition(precondition, current, 'group');
    checkReadOnly(input, GROUP_ATTRIBUTES, 'Group', scimGroup(current, undefined, this.deps.base));
    const members = (await this.deps.users.membersOf(id)).map((m) => m.id);
    return this.changeGroup(actor, current, members, input, true, precondition);
  }

  async patchGroup(actor: RequestActor, id: string, body: PatchOp, precondition?: Precondition) {
    await this.requireSomeRightOn(actor, id);
    const current = await this.deps.roles.get(id);
    requirePrecondition(precondition, current, 'group');
    const members = (await this.deps.users.membersOf(id)).map((m) => m.id);
    const before = scimGroup(
      current,
      members.map((id) => ({ id })),
      this.deps.base,
    );
    for (const member of before.members ?? []) delete member.$ref;
    const after = applyPatch(before, body.Operations, GROUP_ATTRIBUTES, 'Group');
    for (const readOnly of ['id', 'meta', 'schemas'])
      if (JSON.stringify(after[readOnly]) !== JSON.stringify(before[readOnly]))
        throw bad(readOnly, 'is read-only', 'mutability');
    return this.changeGroup(actor, current, members, after, false, precondition);
  }

  deleteGroup(actor: RequestActor, id: string, precondition?: Precondition) {
    return this.deps.roles.remove(actor, id, precondition);
  }
}
