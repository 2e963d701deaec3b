import type { Store } from '../../storage/store.js';
import { userHandlers } from './handlers.js';
import { UsersRepository } from './repository.js';
import { type UsersDeps, UsersService } from './service.js';

export function createUsers(
  deps: Omit<UsersDeps, 'users' | 'store'> & { store: Pick<Store, 'connection' | 'transaction'> },
) {
  const service = new UsersService({ ...deps, users: new UsersRepository(deps.store.connection) });
  return { service, handlers: userHandlers(service), jobs: [] };
}
