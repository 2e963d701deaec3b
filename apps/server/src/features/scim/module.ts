import { ScimGroups, type ScimGroupsDeps } from './groups-service.js';
import { scimHandlers } from './handlers.js';
import { ScimUsers, type ScimUsersDeps } from './users-service.js';

/** SCIM 2.0 (`/scim/v2`) over the users and roles services. */
export function createScim(
  deps: Omit<ScimUsersDeps & ScimGroupsDeps, 'base' | 'users' | 'roles'> & {
    users: ScimUsersDeps['users'] & ScimGroupsDeps['users'];
    roles: ScimUsersDeps['roles'] & ScimGroupsDeps['roles'];
    publicUrl: string;
  },
) {
  const base = `${deps.publicUrl}/scim/v2`;
  const users = new ScimUsers({ users: deps.users, roles: deps.roles, access: deps.access, base });
  const groups = new ScimGroups({ ...deps, base });
  return { handlers: scimHandlers(users, groups, base), jobs: [] };
}
