import type { components } from '@secadmin/api-types';
import { type PolicyDefinition, PolicyIndex, parseIp, SELF, selfOf } from '@secadmin/policy';
import type { RequestActor } from '../../lib/actor.js';
import { type FieldProblem, Invalid, invalid } from '../../lib/errors.js';
import { Pacer } from '../../lib/pacer.js';
import { INVALID_INSTANT, parseInstant } from '../../lib/time.js';
import type { AccessService } from './access-service.js';
import { conditionProblems } from './service.js';
import { PolicyVisibility, type ShownDecision } from './visibility.js';

type SimulationRequest = components['schemas']['SimulationRequest'];
type BatchSimulationRequest = components['schemas']['BatchSimulationRequest'];
type SimulationCheck = components['schemas']['SimulationCheck'];

/** The bounds of a check's `attributes` and `context`, as the spec states them. */
export const ATTRIBUTE_INPUT_LIMITS = { maxBytes: 16_384, maxDepth: 8 };

/** Levels of nested objects and arrays in a JSON value, the value itself being level 1. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

function checkBounds(value: unknown, field: string, problems: FieldProblem[]): void {
  if (value === undefined) return;
  const { maxBytes, maxDepth } = ATTRIBUTE_INPUT_LIMITS;
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes)
    problems.push({ field, message: `must be at most ${maxBytes} bytes when serialized` });
  else if (depthOf(value) > maxDepth)
    problems.push({ field, message: `must be nested at most ${maxDepth} levels deep` });
}

/** A check's context as the evaluator takes it; problems named under `prefix`. */
function parseContext(check: SimulationCheck, prefix: string, problems: FieldProblem[]) {
  checkBounds(check.context, `${prefix}context`, problems);
  checkBounds(check.attributes, `${prefix}attributes`, problems);
  const ip = check.context?.ip;
  if (ip !== undefined && !parseIp(ip))
    problems.push({ field: `${prefix}context.ip`, message: 'must be an IPv4 or IPv6 address' });
  const timeText = check.context?.time;
  const time = timeText === undefined ? undefined : parseInstant(timeText);
  if (timeText !== undefined && !time)
    problems.push({ field: `${prefix}context.time`, message: INVALID_INSTANT });
  return { ...check.context, ip, time };
}

/** A check's problems ({@link SimulationService.checkProblems}), fields after `prefix`. */
export function checkProblems(check: SimulationCheck, prefix = ''): FieldProblem[] {
  const problems: FieldProblem[] = [];
  parseContext(check, prefix, problems);
  return problems;
}

/** The bounds of a batch, as the spec's `BatchSimulationRequest` states them. */
export const BATCH_LIMITS = {
  /** `x-secadmin-max-work`: see `matchingWork`. */
  maxWork: 20_000_000,
  /** `x-secadmin-max-explain-bytes`: the JSON of the results, with `explain`. */
  maxExplainBytes: 1_048_576,
};

/** Patterns per draft index: what one step between two yields to the event loop matches. */
const PATTERNS_PER_STEP = 250;

/**
 * What matching the checks against the drafts may cost, as the spec counts it: per check,
 * every draft action pattern's length plus the check's action length, and every resource
 * pattern's length, once the check's principal id stands for each `${self}` in it, plus the
 * check's resource length. Glob matching is linear in both.
 */
function matchingWork(checks: readonly SimulationCheck[], drafts: readonly PolicyDefinition[]) {
  let actionChars = 0;
  let actionCount = 0;
  let resourceChars = 0;
  let resourceCount = 0;
  let selves = 0;
  for (const draft of drafts) {
    for (const action of draft.actions) actionChars += action.length;
    for (const resource of draft.resources) {
      resourceChars += resource.length;
      selves += resource.split(SELF).length - 1;
    }
    actionCount += draft.actions.length;
    resourceCount += draft.resources.length;
  }
  let work = 0;
  for (const check of checks) {
    const self = selfOf(check.principal);
    work +=
      actionChars +
      actionCount * check.action.length +
      resourceChars +
      selves * Math.max(0, self.length - SELF.length) +
      resourceCount * check.resource.length;
  }
  return work;
}

/** The drafts in indexes of about `PATTERNS_PER_STEP` patterns each (at least one index). */
function draftIndexes(drafts: readonly PolicyDefinition[]): PolicyIndex[] {
  const groups: PolicyDefinition[][] = [[]];
  let patterns = 0;
  for (const draft of drafts) {
    const size = draft.actions.length + draft.resources.length;
    const current = groups[groups.length - 1] as PolicyDefinition[];
    if (current.length > 0 && patterns + size > PATTERNS_PER_STEP) {
      groups.push([draft]);
      patterns = size;
    } else {
      current.push(draft);
      patterns += size;
    }
  }
  return groups.map((group) => new PolicyIndex(group));
}

/** "May this principal do this?", for one check or many, against stored and draft policies. Writes nothing. */
export class SimulationService {
  constructor(private readonly access: Pick<AccessService, 'decide' | 'permits'>) {}

  /**
   * What would make a check a 400 before any policy is looked at (its context and attributes
   * past their bounds, an ip or time that does not parse); none when it can be decided.
   */
  checkProblems(check: SimulationCheck): FieldProblem[] {
    return checkProblems(check);
  }

  async simulate(request: SimulationRequest, caller: RequestActor): Promise<ShownDecision> {
    const problems: FieldProblem[] = [];
    const context = parseContext(request, '', problems);
    if (problems.length > 0) throw new Invalid(problems);
    const { principal, action, resource, attributes } = request;
    const decision = await this.access.decide({
      principal,
      action,
      resource,
      context,
      attributes,
      explain: request.explain === true,
    });
    return new PolicyVisibility(this.access, caller).shown(decision);
  }

  async simulateBatch(
    request: BatchSimulationRequest,
    caller: RequestActor,
  ): Promise<ShownDecision[]> {
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
    const work = matchingWork(request.checks, drafts);
    if (work > BATCH_LIMITS.maxWork)
      throw invalid(
        'draftPolicies',
        `the checks against these drafts cost ${work} units of matching work, more than ${BATCH_LIMITS.maxWork}; send fewer checks, drafts or patterns`,
      );
    const pacer = new Pacer();
    const overlay = {
      drafts: draftIndexes(drafts),
      useStored: request.useStored !== false,
      pace: () => pacer.pace(),
    };
    const explain = request.explain === true;
    const visibility = new PolicyVisibility(this.access, caller);
    const results: ShownDecision[] = [];
    let explainedBytes = 0;
    for (const [i, { principal, action, resource, attributes }] of request.checks.entries()) {
      await pacer.pace();
      const context = contexts[i];
      const decision = await this.access.decide(
        { principal, action, resource, context, attributes, explain },
        overlay,
      );
      const shown = await visibility.shown(decision);
      if (explain) {
        explainedBytes += Buffer.byteLength(JSON.stringify(shown)) + 1;
        if (explainedBytes > BATCH_LIMITS.maxExplainBytes)
          throw invalid(
            'explain',
            `the explanations would make the answer larger than ${BATCH_LIMITS.maxExplainBytes} bytes; send fewer checks or drafts, or leave explain out`,
          );
      }
      results.push(shown);
    }
    return results;
  }
}
