import type { RequestActor } from '../../lib/actor.js';
import type { Store } from '../../storage/store.js';
import { AccessService } from './access-service.js';
import { policyHandlers } from './handlers.js';
import { PoliciesRepository } from './repository.js';
import { type PoliciesDeps, PoliciesService } from './service.js';
import { SimulationService } from './simulation.js';
import { PolicyVisibility } from './visibility.js';

export function createPolicies(
  deps: Omit<PoliciesDeps, 'policies' | 'store'> &
    Omit<ConstructorParameters<typeof AccessService>[0], 'policies'> & {
      store: Pick<Store, 'connection' | 'transaction'>;
    },
) {
  const repository = new PoliciesRepository(deps.store.connection);
  const policies = new PoliciesService({ ...deps, policies: repository });
  const access = new AccessService({ ...deps, policies: repository });
  const simulation = new SimulationService(access);
  /** For one request: whether its caller may read a stored policy (`policies:read` on it). */
  const readableBy = (caller: RequestActor) => {
    const visibility = new PolicyVisibility(access, caller);
    return (policyId: string) => visibility.mayRead(policyId);
  };
  return {
    policies,
    access,
    simulation,
    readableBy,
    handlers: policyHandlers(policies, simulation),
    jobs: [],
  };
}
