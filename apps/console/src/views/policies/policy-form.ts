import type { components } from '@secadmin/api-client';
import { linesOf, parseJsonField, pretty } from '../form-fields.js';

export type Policy = components['schemas']['Policy'];
export type PolicyCreate = components['schemas']['PolicyCreate'];

/** A policy as its form holds it: text the person edits. */
export interface PolicyForm {
  name: string;
  description: string;
  effect: 'allow' | 'deny';
  principals: string;
  actions: string;
  resources: string;
  conditions: string;
}

export const emptyForm: PolicyForm = {
  name: '',
  description: '',
  effect: 'allow',
  principals: '',
  actions: '',
  resources: '',
  conditions: '',
};

export function formOf(policy: Policy): PolicyForm {
  return {
    name: policy.name,
    description: policy.description ?? '',
    effect: policy.effect,
    principals: policy.principals.join('\n'),
    actions: policy.actions.join('\n'),
    resources: policy.resources.join('\n'),
    conditions: policy.conditions ? pretty(policy.conditions) : '',
  };
}

/**
 * The create body a form stands for, or the problem of its conditions (not JSON, not an
 * object), which is shown at that field and keeps the form from being sent. Everything else
 * is the API's to judge: its 400 names the field.
 */
export function bodyOf(form: PolicyForm): { body?: PolicyCreate; conditionsProblem?: string } {
  const conditions = parseJsonField(form.conditions, 'object');
  if (conditions.problem) return { conditionsProblem: conditions.problem };
  return {
    body: {
      name: form.name,
      ...(form.description.trim() !== '' && { description: form.description }),
      effect: form.effect,
      principals: linesOf(form.principals),
      actions: linesOf(form.actions),
      resources: linesOf(form.resources),
      ...(conditions.value !== undefined && {
        conditions: conditions.value as PolicyCreate['conditions'],
      }),
    },
  };
}
