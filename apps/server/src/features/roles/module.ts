import type { Store } from '../../storage/store.js';
import { roleHandlers } from './handlers.js';
import { RolesRepository } from './repository.js';
import { type RolesDeps, RolesService } from './service.js';

export function createRoles(
  deps: Omit<RolesDeps, 'roles' | 'store'> & { store: Pick<Store, 'connection' | 'transaction'> },
) {
  const service = new RolesService({ ...deps, roles: new RolesRepository(deps.store.connection) });
  return { service, handlers: roleHandlers(service), jobs: [] };
}
