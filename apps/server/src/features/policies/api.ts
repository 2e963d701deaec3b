import type { AccessService } from './access-service.js';
import type { PoliciesService } from './service.js';
import type { SimulationService } from './simulation.js';

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
