import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import type { Condition } from '../../lib/condition.js';
import { type Precondition, requirePrecondition } from '../../lib/etag.js';
import type { Access } from '../policies/api.js';
import type { RolesService } from '../roles/api.js';
import type { UserRow, UsersService } from '../users/api.js';
import { checkAttributes, checkReadOnly, USER_ATTRIBUTES } from './attributes.js';
import { type FilterSchema, parseFilter } from './filter.js';
import { bad, type ListQuery, listResponse, paging } from './lists.js';
import { applyPatch } from './patch.js';
import {
  leavesOut,
  type Projection,
  project,
  type ScimResource,
  scimNameParts,
  scimUser,
  USER_SCHEMA,
} from './representation.js';

type UserInput = components['schemas']['ScimUserInput'];
type PatchOp = components['schemas']['ScimPatchOp'];

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

/**
 * 400 `invalidValue` for a value of the wrong type where a User stores a string: the name
 * parts and `displayName` (null clears them), so that nothing is stored as "".
 */
function checkNameTypes(wanted: ScimResource): void {
  const text = (value: unknown) =>
    value === undefined || value === null || typeof value === 'string';
  if (!text(wanted.displayName)) throw bad('displayName', 'must be a string');
  const name = wanted.name;
  if (name === undefined || name === null) return;
  if (typeof name !== 'object' || Array.isArray(name))
    throw bad('name', 'must be an object of strings');
  for (const part of ['formatted', 'givenName', 'familyName'])
    if (!text((name as Record<string, unknown>)[part]))
      throw bad(`name.${part}`, 'must be a string');
}

/**
 * A user stores one email: `emails`, when given, may only show it (as `work` and primary), in
 * any case; another address would be dropped, so it is 400 `invalidValue`.
 */
function checkEmails(emails: unknown, email: string | undefined): void {
  if (emails === undefined || emails === null || typeof email !== 'string') return;
  const same = (e: unknown) => {
    const value = (e as { value?: unknown } | null)?.value;
    return typeof value === 'string' && value.toLowerCase() === email.toLowerCase();
  };
  if (!Array.isArray(emails) || !emails.every(same))
    throw bad('emails', 'a user has one email, the userName: emails may only repeat it');
}

export interface ScimUsersDeps {
  users: Pick<UsersService, 'get' | 'create' | 'update' | 'remove' | 'search'>;
  roles: Pick<RolesService, 'findMany'>;
  access: Access;
  /** `{SECADMIN_PUBLIC_URL}/scim/v2`. */
  base: string;
}

/**
 * SCIM Users over the users service: each change is the `/v1` twin's service call, with the
 * actor marked `via: "scim"` by the handlers (audit `metadata.via`).
 */
export class ScimUsers {
  constructor(private readonly deps: ScimUsersDeps) {}

  /**
   * The user's groups that the actor may `roles:read`, as `GET /scim/v2/Groups` lists them: a
   * group's name is the role's. `readable` remembers each role's answer for one request.
   */
  private async groupsOf(actor: RequestActor, user: UserRow, readable: Map<string, boolean>) {
    const shown = [];
    for (const role of await this.deps.roles.findMany(user.roles)) {
      let may = readable.get(role.id);
      if (may === undefined) {
        may = await this.deps.access.permits(actor, 'roles:read', `roles/${role.id}`);
        readable.set(role.id, may);
      }
      if (may) shown.push(role);
    }
    return shown.sort((a, b) => a.id.localeCompare(b.id));
  }

  private async userResource(
    actor: RequestActor,
    user: UserRow,
    p: Projection = {},
    readable = new Map<string, boolean>(),
  ): Promise<ScimResource> {
    const groups = leavesOut(p, 'groups') ? [] : await this.groupsOf(actor, user, readable);
    return project(scimUser(user, groups, this.deps.base), p);
  }

  async listUsers(actor: RequestActor, query: ListQuery, p: Projection) {
    const { startIndex, count } = paging(query);
    const condition: Condition = query.filter
      ? await parseFilter(query.filter, USER_FILTER)
      : { kind: 'constant', value: true };
    const { total, rows } = await this.deps.users.search(condition, startIndex - 1, count);
    const readable = new Map<string, boolean>();
    const resources = [];
    for (const row of rows) resources.push(await this.userResource(actor, row, p, readable));
    return listResponse(total, startIndex, resources);
  }

  async getUser(actor: RequestActor, id: string, p: Projection) {
    const user = await this.deps.users.get(id);
    return { resource: await this.userResource(actor, user, p), user };
  }

  async createUser(actor: RequestActor, body: UserInput) {
    const input = checkAttributes(body, USER_ATTRIBUTES, 'User') as UserInput;
    checkReadOnly(input, USER_ATTRIBUTES, 'User', undefined);
    const email = emailOf(input) as string;
    checkEmails(input.emails, email);
    checkNameTypes(input as ScimResource);
    const name = displayNameOf(input);
    const parts = scimNameParts({ scim: input.name ?? {} });
    const user = await this.deps.users.create(actor, {
      email,
      ...(input.password !== undefined ? { password: input.password } : {}),
      ...(name !== undefined ? { name: name.normalize('NFC') } : {}),
      ...(input.active !== undefined ? { active: input.active } : {}),
      ...(input.externalId !== undefined ? { externalId: input.externalId } : {}),
      ...(Object.keys(parts).length > 0 ? { metadata: { scim: parts } } : {}),
    });
    return { resource: await this.userResource(actor, user), user };
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
    // A PATCH of userName alone leaves the old address in `emails`: only a changed one counts.
    if (changed((r) => r.emails)) checkEmails(wanted.emails, email);
    checkNameTypes(wanted);
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
          ? // A displayName removed (or null) clears the name, unless the name changed too:
            // name.formatted is the same stored name, and still shows the old one.
            (displayNameOf({
              displayName: wanted.displayName,
              ...(changed((r) => r.name) ? { name: wanted.name } : {}),
            }) ?? '')
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

  async replaceUser(actor: RequestActor, id: string, body: UserInput, precondition?: Precondition) {
    const input = checkAttributes(body, USER_ATTRIBUTES, 'User') as UserInput;
    const current = await this.deps.users.get(id);
    requirePrecondition(precondition, current, 'user');
    checkReadOnly(input, USER_ATTRIBUTES, 'User', await this.userResource(actor, current));
    const { password, ...rest } = input;
    if (password !== undefined)
      throw bad('password', 'can be set only when the user is created', 'mutability');
    const user = await this.deps.users.update(
      actor,
      id,
      this.userChange(current, rest),
      precondition,
    );
    return { resource: await this.userResource(actor, user), user };
  }

  async patchUser(actor: RequestActor, id: string, body: PatchOp, precondition?: Precondition) {
    const current = await this.deps.users.get(id);
    requirePrecondition(precondition, current, 'user');
    const before = scimUser(current, [], this.deps.base);
    const after = applyPatch(before, body.Operations, USER_ATTRIBUTES, 'User');
    for (const readOnly of ['id', 'meta', 'groups', 'roles', 'schemas'])
      if (JSON.stringify(after[readOnly]) !== JSON.stringify(before[readOnly]))
        throw bad(readOnly, 'is read-only', 'mutability');
    const user = await this.deps.users.update(
      actor,
      id,
      this.userChange(current, after, before),
      precondition,
    );
    return { resource: await this.userResource(actor, user), user };
  }

  deleteUser(actor: RequestActor, id: string, precondition?: Precondition) {
    return this.deps.users.remove(actor, id, precondition);
  }
}
