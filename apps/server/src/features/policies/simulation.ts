import type { components } from '@secadmin/api-types';
import { type PolicyDefinition, PolicyIndex, parseIp } from '@secadmin/policy';
import { type FieldProblem, Invalid } from '../../lib/errors.js';
import { INVALID_INSTANT, parseInstant } from '../../lib/time.js';
import type { AccessService, StateVersions, TimedDecision } from './access-service.js';
import { conditionProblems } from './service.js';

type SimulationRequest = components['schemas']['SimulationRequest'];
type BatchSimulationRequest = components['schemas']['BatchSimulationRequest'];
type SimulationCheck = components['schemas']['SimulationCheck'];

/** A check's context as the evaluator takes it; problems named under `prefix`. */
function parseContext(check: SimulationCheck, prefix: string, problems: FieldProblem[]) {
  const ip = check.context?.ip;
  if (ip !== undefined && !parseIp(ip))
    problems.push({ field: `${prefix}context.ip`, message: 'must be an IPv4 or IPv6 address' });
  const timeText = check.context?.time;
  const time = timeText === undefined ? undefined : parseInstant(timeText);
  if (timeText !== undefined && !time)
    problems.push({ field: `${prefix}context.time`, message: INVALID_INSTANT });
  return { ip, time };
}

/** "May this principal do this?", for one check or many, against stored and draft policies. Writes nothing. */
export class SimulationService {
  constructor(private readonly access: AccessService) {}

  async simulate(request: SimulationRequest, versions: StateVersions): Promise<TimedDecision> {
    const problems: FieldProblem[] = [];
    const context = parseContext(request, '', problems);
    if (problems.length > 0) throw new Invalid(problems);
    const { principal, action, resource } = request;
    return this.access.decide(
      { principal, action, resource, context, explain: request.explain === true },
      versions,
    );
  }

  async simulateBatch(
    request: BatchSimulationRequest,
    versions: StateVersions,
  ): Promise<TimedDecision[]> {
    const problems: FieldProblem[] = [];
    const drafts = (request.draftPolicies ?? []).map((draft, i): PolicyDefinition => {
      if (draft.conditions)
        problems.push(...conditionProblems(draft.conditions, `draftPolicies[${i}].conditions`));
      return {
        id: `draft_${i}`,
        name: draft.name,
        effect: draft.effect,
        principals: draft.principals,
        actions: draft.actions,
        resources: draft.resources,
        conditions: draft.conditions ?? null,
      };
    });
    const contexts = request.checks.map((check, i) =>
      parseContext(check, `checks[${i}].`, problems),
    );
    if (problems.length > 0) throw new Invalid(problems);
    const overlay = { drafts: new PolicyIndex(drafts), useStored: request.useStored !== false };
    const explain = request.explain === true;
    const results: TimedDecision[] = [];
    for (const [i, { principal, action, resource }] of request.checks.entries()) {
      const context = contexts[i];
      results.push(
        await this.access.decide(
          { principal, action, resource, context, explain },
          versions,
          overlay,
        ),
      );
    }
    return results;
  }
}
