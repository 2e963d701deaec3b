import type { components } from '@secadmin/api-types';
import type { RequestActor } from '../../lib/actor.js';
import { Invalid } from '../../lib/errors.js';
import type { ShownDecision, Simulation } from '../policies/api.js';
import {
  authzenField,
  isPrincipalType,
  NOT_A_PRINCIPAL_TYPE,
  type Question,
  questionProblems,
  toSimulation,
} from './entities.js';

type Decision = components['schemas']['AuthzenDecision'];
type EvaluationsRequest = components['schemas']['AuthzenEvaluationsRequest'];
type Semantic = NonNullable<NonNullable<EvaluationsRequest['options']>['evaluations_semantic']>;

export function answerOf(shown: ShownDecision): Decision {
  return {
    decision: shown.allowed,
    context: {
      reason: shown.decision,
      matchedPolicies: shown.matchedPolicies.map((policy) => policy.id),
      ...(shown.principalInactive ? { principalInactive: true } : {}),
    },
  };
}

/** The simulator's field names in AuthZEN's words. */
export function renamed(error: Invalid): Invalid {
  return new Invalid(
    error.problems.map(({ field, message }) => ({ field: authzenField(field), message })),
    error.message,
  );
}

/** Whether the answers so far end a batch under its semantic. */
const stopsAfter = (semantic: Semantic, decision: boolean) =>
  (semantic === 'deny_on_first_deny' && !decision) ||
  (semantic === 'permit_on_first_permit' && decision);

/** AuthZEN's Access Evaluation and Access Evaluations APIs over the policy simulator. */
export class EvaluationService {
  constructor(private readonly simulator: Simulation) {}

  async evaluate(question: Question, caller: RequestActor): Promise<Decision> {
    if (!isPrincipalType(question.subject.type))
      throw new Invalid([{ field: 'subject.type', message: NOT_A_PRINCIPAL_TYPE }]);
    try {
      return answerOf(await this.simulator.simulate(toSimulation(question), caller));
    } catch (error) {
      throw error instanceof Invalid ? renamed(error) : error;
    }
  }

  /**
   * Each item with the defaults it does not replace, in order; an item that cannot be
   * evaluated is answered `decision: false` with `context.error`, and the others go on.
   */
  async evaluateAll(request: EvaluationsRequest, caller: RequestActor): Promise<Decision[]> {
    const semantic = request.options?.evaluations_semantic ?? 'execute_all';
    const defaults = {
      subject: request.subject,
      action: request.action,
      resource: request.resource,
      context: request.context,
    };
    const answers: Decision[] = [];
    for (const item of request.evaluations ?? []) {
      const answer = await this.evaluateItem(item, defaults, caller);
      answers.push(answer);
      if (stopsAfter(semantic, answer.decision)) break;
    }
    return answers;
  }

  private async evaluateItem(
    item: unknown,
    defaults: Partial<Question>,
    caller: RequestActor,
  ): Promise<Decision> {
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      return failed('the evaluation must be an object');
    const own = item as Record<string, unknown>;
    const question: Record<string, unknown> = {};
    for (const key of ['subject', 'action', 'resource', 'context'] as const)
      question[key] = own[key] !== undefined ? own[key] : defaults[key];
    const problems = questionProblems(question);
    if (problems.length > 0)
      return failed(problems.map(({ field, message }) => `${field}: ${message}`).join('; '));
    try {
      return await this.evaluate(question as unknown as Question, caller);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      return failed(error.problems.map(({ field, message }) => `${field}: ${message}`).join('; '));
    }
  }
}

/** The spec's bound on an item's error message: a hostile item cannot make it grow. */
const MAX_MESSAGE = 4096;

function failed(message: string): Decision {
  return {
    decision: false,
    context: { error: { status: 400, message: message.slice(0, MAX_MESSAGE) } },
  };
}
