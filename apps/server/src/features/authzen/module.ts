import type { Cursors } from '../../lib/cursor.js';
import type { Simulation } from '../policies/api.js';
import { CandidateIndex } from './candidates.js';
import { EvaluationService } from './evaluation.js';
import { authzenHandlers } from './handlers.js';
import { type SearchDeps, SearchService } from './search.js';

/** secadmin as an AuthZEN 1.0 Policy Decision Point, deciding through the policy simulator. */
export function createAuthzen(deps: {
  simulator: Simulation;
  storedPolicies: SearchDeps['storedPolicies'];
  usersAfter: SearchDeps['usersAfter'];
  mayListUsers: SearchDeps['mayListUsers'];
  storedUsersAmong: SearchDeps['storedUsersAmong'];
  readableBy: SearchDeps['readableBy'];
  cursors: Cursors;
  publicUrl: string;
}) {
  const evaluations = new EvaluationService(deps.simulator);
  const search = new SearchService({ ...deps, candidates: new CandidateIndex() });
  return {
    handlers: authzenHandlers({ evaluations, search, publicUrl: deps.publicUrl }),
    jobs: [],
  };
}
