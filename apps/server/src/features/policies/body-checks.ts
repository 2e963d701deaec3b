import type { components } from '@secadmin/api-types';
import type { FieldProblem } from '../../lib/errors.js';
import { conditionProblems } from './service.js';
import { checkProblems } from './simulation.js';

type PolicyConditions = components['schemas']['PolicyConditions'];
type SimulationCheck = components['schemas']['SimulationCheck'];
type Faulty = (field: string) => boolean;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problems of the `conditions` of `holder`, at `prefix`, when the schema found none in them. */
function conditionsOf(holder: unknown, prefix: string, faulty: Faulty): FieldProblem[] {
  const field = `${prefix}conditions`;
  const conditions = isRecord(holder) ? holder.conditions : undefined;
  if (!isRecord(conditions) || faulty(field)) return [];
  return conditionProblems(conditions as PolicyConditions, field);
}

/** The problems of a check's context and attributes, at `prefix`, when the schema found none in them. */
function checkOf(check: unknown, prefix: string, faulty: Faulty): FieldProblem[] {
  if (!isRecord(check) || faulty(`${prefix}context`) || faulty(`${prefix}attributes`)) return [];
  return checkProblems(check as SimulationCheck, prefix);
}

const each = (list: unknown, problems: (item: unknown, i: number) => FieldProblem[]) =>
  Array.isArray(list) ? list.flatMap(problems) : [];

/**
 * What the schema cannot check of policies and checks (CIDRs, instants, attribute conditions,
 * a check's ip and time), also checked in a body the schema refused: the answer names every
 * problem, and a bad pattern does not hide a bad IP.
 */
export const policyBodyChecks: Record<string, (body: unknown, faulty: Faulty) => FieldProblem[]> = {
  createPolicy: (body, faulty) => conditionsOf(body, '', faulty),
  updatePolicy: (body, faulty) => conditionsOf(body, '', faulty),
  simulatePolicy: (body, faulty) => checkOf(body, '', faulty),
  simulatePolicyBatch: (body, faulty) => {
    const batch = isRecord(body) ? body : {};
    return [
      ...each(batch.draftPolicies, (draft, i) =>
        conditionsOf(draft, `draftPolicies[${i}].`, faulty),
      ),
      ...each(batch.checks, (check, i) => checkOf(check, `checks[${i}].`, faulty)),
    ];
  },
};
