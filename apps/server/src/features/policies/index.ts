import type { RequestActor } from '../../lib/actor.js';
import type { StateVersions } from '../../lib/state-versions.js';
import type { Store } from '../../storage/store.js';
import { AccessService } from './access-service.js';
import { policyHandlers } from './handlers.js';
import { PoliciesRepository } from './repository.js';
import { type PoliciesDeps, PoliciesService } from './service.js';
import { SimulationService } from './simulation.js';
import { PolicyVisibility } from './visibility.js';

export type { AccessService } from './access-service.js';
export type { GrantedField, UserAttributesRead } from './attributes-read.js';
export { policyBodyChecks } from './body-checks.js';
export type { PoliciesService } from './service.js';
export type { SimulationService } from './simulation.js';
export type { ShownDecision } from './visibility.js';

/** What deleting a user does to the policies naming it, in the caller's transaction. */
export type PoliciesApi = Pick<PoliciesService, 'removePrincipal'>;

/** Decides requests against the stored policies (authorization, grants of roles). */
export type Access = Pick<AccessService, 'decide' | 'permits'>;

/**
 * Which keys of a stored user's `metadata` (`principal.metadata.<key>`) and which of its fields
 * (`principal.email`, …) stored policies read: changing one of them is a grant of
 * `attributes/<key>` or `fields/<field>` (users, SCIM).
 */
export type AttributesRead = Pick<AccessService, 'userAttributesRead'>;

/** Simulate and batch checks, as `/v1/policies/simulate` answers them (AuthZEN builds on it). */
export type Simulation = Pick<SimulationService, 'simulate' | 'simulateBatch' | 'checkProblems'>;

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
  const readableBy = (caller: RequestActor, versions: StateVersions) => {
    const visibility = new PolicyVisibility(access, caller, versions);
    return (policyId: string) => visibility.mayRead(policyId);
  };
  return {
    policies,
    access,
    simulation,
    readableBy,
    handlers: policyHandlers(policies, simulation),
  };
}
