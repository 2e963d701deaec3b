import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { Condition } from '../../lib/condition.js';
import { Conflict, Forbidden, Invalid, NotFound } from '../../lib/errors.js';
import type { Precondition } from '../../lib/etag.js';
import { requirePrecondition } from '../../lib/etag.js';
import type { Store } from '../../storage/store.js';
import type { Access } from '../policies/index.js';
import type { RoleRecord, RolesService } from '../roles/index.js';
import type { UserRow, UsersService } from '../users/index.js';
import { type FilterSchema, parseFilter } from './filter.js';
import { applyPatch } from './patch.js';
import {
  GROUP_SCHEMA,
  leavesOut,
  type Projection,
  project,
  type ScimResource,
  scimGroup,
  scimNameParts,
  scimUser,
  USER_SCHEMA,
} from './representation.js';

type UserInput = components['schemas']['ScimUserInput'];
type GroupInput = components['schemas']['ScimGroupInput'];
type PatchOp = components['schemas']['ScimPatchOp'];

/** RFC 7644 §3.4.2.4 lets a server return fewer than asked: at most this many a page. */
export const MAX_COUNT = 200;
const DEFAULT_COUNT = 100;

const USER_FILTER: FilterSchema = {
  urn: USER_SCHEMA,
  attributes: {
    id: { field: 'id', type: 'string', alwaysPresent: true },
    username: { field: 'email', type: 'string', alwaysPresent: true },
    'emails.value': { field: 'email', type: 'string', alwaysPresent: true },
    emails: { field: 'email', type: 'string', alwaysPresent: true },
    externalid: { field: 'externalId', type: 'string' },
    displayname: { field: 'name', type: 'string', alwaysPresent: true },
    'name.formatted': { field: 'name', type: 'string', alwaysPresent: true },
    active: { field: 'active', type: 'boolean', ops: ['eq', 'ne'], alwaysPresent: true },
    'meta.lastmodified': { field: 'updatedAt', type: 'dateTime', alwaysPresent: true },
    'meta.created': { field: 'createdAt', type: 'dateTime', alwaysPresent: true },
  },
};

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

const USER_ATTRIBUTES = [
  'schemas',
  'id',
  'externalId',
  'userName',
  'name',
  'displayName',
  'emails',
  'active',
  'groups',
  'meta',
  'password',
] as const;
const GROUP_ATTRIBUTES = ['schemas', 'id', 'externalId', 'displayName', 'members', 'meta'] as const;

/** A role id made from a display name (decisions §15): lowercased, other characters → `-`. */
export function roleIdFrom(displayName: string): string {
  const id = displayName
    .toLowerCase()
    .replace(/[^a-z0-9_.:-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 56);
  return id.length > 0 ? id : 'group';
}

/** The display name of a SCIM User (decisions §15). */
function displayNameOf(input: {
  displayName?: unknown;
  name?: { formatted?: unknown; givenName?: unknown; familyName?: unknown };
}): string | undefined {
  if (typeof input.displayName === 'string' && input.displayName.length > 0)
    return input.displayName;
  const name = input.name ?? {};
  if (typeof name.formatted === 'string' && name.formatted.length > 0) return name.formatted;
  const parts = [name.givenName, name.familyName].filter(
    (p): p is string => typeof p === 'string' && p.length > 0,
  );
  return parts.length > 0 ? parts.join(' ') : undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The email a SCIM User means: `userName`, else its primary (or only) email. */
function emailOf(input: { userName?: unknown; emails?: unknown }): string | undefined {
  if (typeof input.userName === 'string') return input.userName;
  if (!Array.isArray(input.emails)) return undefined;
  const primary =
    input.emails.find((e) => (e as { primary?: unknown })?.primary === true) ?? input.emails[0];
  const value = (primary as { value?: unknown } | undefined)?.value;
  return typeof value === 'string' ? value : undefined;
}

const bad = (
  field: string,
  message: string,
  scimType: 'invalidValue' | 'mutability' = 'invalidValue',
) => new Invalid([{ field, message }], `${field}: ${message}`, scimType);

export interface ScimDeps {
  store: Pick<Store, 'transaction'>;
  users: Pick<
    UsersService,
    | 'get'
    | 'create'
    | 'update'
    | 'remove'
    | 'search'
    | 'membersOf'
    | 'mayGrant'
    | 'changeMembership'
    | 'passwordHashOf'
  >;
  roles: Pick<RolesService, 'get' | 'create' | 'update' | 'remove' | 'search' | 'findMany'>;
  access: Access;
  /** `{SECADMIN_PUBLIC_URL}/scim/v2`. */
  base: string;
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
}

/**
 * SCIM 2.0 over the users and roles services: each change is the `/v1` twin's service call,
 * with the actor marked `via: "scim"` (audit `metadata.via`).
 */
export class ScimService {
  constructor(private readonly deps: ScimDeps) {}

  private paging(query: ListQuery) {
    const startIndex = Math.max(1, query.startIndex ?? 1);
    const count = Math.min(MAX_COUNT, Math.max(0, query.count ?? DEFAULT_COUNT));
    return { startIndex, count };
  }

  private listResponse(total: number, startIndex: number, resources: ScimResource[]) {
    return {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: total,
      startIndex,
      itemsPerPage: resources.length,
      Resources: resources,
    };
  }

  private async groupsOf(user: UserRow) {
    return (await this.deps.roles.findMany(user.roles)).sort((a, b) => a.id.localeCompare(b.id));
  }

  private async userResource(user: UserRow, p: Projection = {}): Promise<ScimResource> {
    const groups = leavesOut(p, 'groups') ? [] : await this.groupsOf(user);
    return project(scimUser(user, groups, this.deps.base), p);
  }

  async listUsers(query: ListQuery, p: Projection) {
    const { startIndex, count } = this.paging(query);
    const condition: Condition = query.filter
      ? await parseFilter(query.filter, USER_FILTER)
      : { kind: 'constant', value: true };
    const { total, rows } = await this.deps.users.search(condition, startIndex - 1, count);
    const resources = await Promise.all(rows.map((row) => this.userResource(row, p)));
    return this.listResponse(total, startIndex, resources);
  }

  async getUser(id: string, p: Projection) {
    const user = await this.deps.users.get(id);
    return { resource: await this.userResource(user, p), user };
  }

  async createUser(actor: RequestActor, input: UserInput) {
    const email = emailOf(input) as string;
    const name = displayNameOf(input);
    const parts = scimNameParts({ scim: input.name ?? {} });
    const passwordHash = await this.deps.users.passwordHashOf({
      email,
      ...(input.password !== undefined ? { password: input.password } : {}),
    });
    const user = await this.deps.users.create(
      actor,
      {
        email,
        ...(name !== undefined ? { name: name.normalize('NFC') } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
        ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
        ...(Object.keys(parts).length > 0 ? { metadata: { scim: parts } } : {}),
      },
      passwordHash,
    );
    return { resource: await this.userResource(user), user };
  }

  /**
   * The `/v1` change that makes the user's SCIM attributes those of `wanted`. `before` is the
   * resource a PATCH started from (undefined for a PUT, which replaces every attribute): a PATCH
   * changes the name or the email through whichever attribute it changed.
   */
  private userChange(current: UserRow, wanted: ScimResource, before?: ScimResource) {
    const changed = (path: (r: ScimResource) => unknown) =>
      before === undefined || JSON.stringify(path(wanted)) !== JSON.stringify(path(before));
    let email: unknown = wanted.userName;
    if (before !== undefined && !changed((r) => r.userName) && changed((r) => r.emails))
      email = emailOf({ emails: wanted.emails });
    if (typeof email !== 'string' || !EMAIL.test(email) || email.length > 254)
      throw bad('userName', 'must be an email address');
    if (wanted.password !== undefined)
      throw bad('password', 'can be set only when the user is created', 'mutability');
    const active = wanted.active;
    if (active !== undefined && typeof active !== 'boolean')
      throw bad('active', 'must be a boolean');
    const externalId = wanted.externalId;
    if (
      externalId !== undefined &&
      (typeof externalId !== 'string' || externalId.length === 0 || externalId.length > 255)
    )
      throw bad('externalId', 'must be a string of 1 to 255 characters');
    const name =
      before === undefined
        ? (displayNameOf(wanted) ?? '')
        : changed((r) => r.displayName)
          ? (displayNameOf(wanted) ?? '')
          : changed((r) => r.name?.formatted)
            ? (displayNameOf({ name: wanted.name }) ?? '')
            : changed((r) => [r.name?.givenName, r.name?.familyName])
              ? (displayNameOf({
                  name: { givenName: wanted.name?.givenName, familyName: wanted.name?.familyName },
                }) ?? '')
              : current.name;
    if (typeof name !== 'string' || name.length > 200)
      throw bad('displayName', 'must be at most 200 characters');
    const parts = scimNameParts({ scim: wanted.name ?? {} });
    const partsBefore = scimNameParts(current.metadata);
    const change: Parameters<UsersService['update']>[2] = {};
    if (email !== current.email) change.email = email;
    if (name.normalize('NFC') !== current.name) change.name = name.normalize('NFC');
    if (typeof active === 'boolean' && active !== current.active) change.active = active;
    const nextExternal = typeof externalId === 'string' ? externalId : null;
    if (nextExternal !== current.externalId) change.externalId = nextExternal;
    if (parts.givenName !== partsBefore.givenName || parts.familyName !== partsBefore.familyName)
      change.metadata = {
        scim: { givenName: parts.givenName ?? null, familyName: parts.familyName ?? null },
      };
    return change;
  }

  async replaceUser(
    actor: RequestActor,
    id: string,
    input: UserInput,
    precondition?: Precondition,
  ) {
    const current = await this.deps.users.get(id);
    requirePrecondition(precondition, current, 'user');
    const { password, ...rest } = input;
    if (password !== undefined)
      throw bad('password', 'can be set only when the user is created', 'mutability');
    const user = await this.deps.users.update(
      actor,
      id,
      this.userChange(current, rest),
      precondition,
    );
    return { resource: await this.userResource(user), user };
  }

  async patchUser(actor: RequestActor, id: string, body: PatchOp, precondition?: Precondition) {
    const current = await this.deps.users.get(id);
    requirePrecondition(precondition, current, 'user');
    const before = scimUser(current, [], this.deps.base);
    const after = applyPatch(before, body.Operations, USER_ATTRIBUTES);
    for (const readOnly of ['id', 'meta', 'groups', 'schemas'])
      if (JSON.stringify(after[readOnly]) !== JSON.stringify(before[readOnly]))
        throw bad(readOnly, 'is read-only', 'mutability');
    const user = await this.deps.users.update(
      actor,
      id,
      this.userChange(current, after, before),
      precondition,
    );
    return { resource: await this.userResource(user), user };
  }

  deleteUser(actor: RequestActor, id: string, precondition?: Precondition) {
    return this.deps.users.remove(actor, id, precondition);
  }

  // Groups

  private async groupResource(role: RoleRecord, p: Projection = {}): Promise<ScimResource> {
    const members = leavesOut(p, 'members') ? undefined : await this.deps.users.membersOf(role.id);
    return project(scimGroup(role, members, this.deps.base), p);
  }

  async listGroups(query: ListQuery, p: Projection) {
    const { startIndex, count } = this.paging(query);
    const condition: Condition = query.filter
      ? await parseFilter(query.filter, {
          ...GROUP_FILTER,
          rolesOf: async (userId) => {
            try {
              return (await this.deps.users.get(userId)).roles;
            } catch (error) {
              if (error instanceof NotFound) return [];
              throw error;
            }
          },
        })
      : { kind: 'constant', value: true };
    const { total, rows } = await this.deps.roles.search(condition, startIndex - 1, count);
    const resources = await Promise.all(
      rows.map((row) => this.groupResource({ ...row, memberCount: 0 }, p)),
    );
    return this.listResponse(total, startIndex, resources);
  }

  async getGroup(id: string, p: Projection) {
    const role = await this.deps.roles.get(id);
    return { resource: await this.groupResource(role, p), role };
  }

  private async allowed(actor: RequestActor, action: string, resource: string) {
    if (actor.isRoot) return true;
    const decision = await this.deps.access.decide({
      principal: actor.principal,
      action,
      resource,
      context: { ip: actor.ip, time: new Date() },
    });
    return decision.allowed;
  }

  private async require(actor: RequestActor, action: string, resource: string) {
    if (!(await this.allowed(actor, action, resource)))
      throw new Forbidden(`This key may not ${action} on ${resource}.`);
  }

  /**
   * A Group's PUT and PATCH answer with the group, so a key with no right on it at all gets a
   * 403 before anything is read (not a 404 that tells it whether the group exists); which right
   * each change needs is checked once the change is known.
   */
  private async requireSomeRightOn(actor: RequestActor, id: string) {
    for (const action of ['roles:update', 'users:grant', 'roles:read'])
      if (await this.allowed(actor, action, `roles/${id}`)) return;
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
  async createGroup(actor: RequestActor, input: GroupInput) {
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
        return { resource: await this.groupResource(created), role: created };
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
    return { resource: await this.groupResource(role), role };
  }

  async replaceGroup(
    actor: RequestActor,
    id: string,
    input: GroupInput,
    precondition?: Precondition,
  ) {
    await this.requireSomeRightOn(actor, id);
    const current = await this.deps.roles.get(id);
    requirePrecondition(precondition, current, 'group');
    const members = (await this.deps.users.membersOf(id)).map((m) => m.id);
    return this.changeGroup(actor, current, members, input as ScimResource, true, precondition);
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
    const after = applyPatch(before, body.Operations, GROUP_ATTRIBUTES);
    for (const readOnly of ['id', 'meta', 'schemas'])
      if (JSON.stringify(after[readOnly]) !== JSON.stringify(before[readOnly]))
        throw bad(readOnly, 'is read-only', 'mutability');
    return this.changeGroup(actor, current, members, after, false, precondition);
  }

  deleteGroup(actor: RequestActor, id: string, precondition?: Precondition) {
    return this.deps.roles.remove(actor, id, precondition);
  }
}
