import { SecadminApiError, type SecadminClient } from '@secadmin/api-client';
import { CliError } from '../errors.js';
import type { Output } from '../output.js';
import type { PlanStep, ReadPolicy, StoredPolicies } from './plan.js';

/**
 * Every stored policy's id and name, and each policy that `names` holds read by id, for its full
 * fields and its `ETag` (when the server sends one).
 */
export async function readStoredPolicies(
  client: SecadminClient,
  names: ReadonlySet<string>,
): Promise<StoredPolicies> {
  const listed: { id: string; name: string }[] = [];
  const byName = new Map<string, ReadPolicy>();
  for await (const { id, name } of client.paginate('/v1/policies', { limit: 100 })) {
    listed.push({ id, name });
    if (!names.has(name)) continue;
    const { data, response } = await client.GET('/v1/policies/{id}', { params: { path: { id } } });
    if (data)
      byName.set(name, { policy: data.data, etag: response.headers.get('etag') ?? undefined });
  }
  return { listed, byName };
}

/** Applies the plan in order; an update carries `If-Match`, so a policy changed since the plan aborts. */
export async function applyPlan(
  client: SecadminClient,
  steps: readonly PlanStep[],
  out: Output,
): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case 'create':
        await client.policies.create(step.body);
        out.note(`created ${step.body.name}`);
        break;
      case 'update':
        try {
          await client.policies.update(
            step.id,
            step.body,
            step.etag ? { headers: { 'If-Match': step.etag } } : undefined,
          );
        } catch (error) {
          if (error instanceof SecadminApiError && error.status === 412)
            throw new CliError(
              `policy "${step.name}" was changed on the server after the plan was made; nothing more was applied. Run the command again to see the new plan.`,
            );
          throw error;
        }
        out.note(`updated ${step.name}`);
        break;
      case 'delete':
        await client.policies.delete(step.id);
        out.note(`deleted ${step.name}`);
        break;
    }
  }
}

/** The plan for people: one line per step, and the changed fields of an update. */
export function printPlan(steps: readonly PlanStep[], out: Output): void {
  if (steps.length === 0) {
    out.line('No changes: the stored policies match the folder.');
    return;
  }
  for (const step of steps) {
    if (step.kind === 'create') out.line(`+ create ${step.body.name} (${step.file})`);
    else if (step.kind === 'delete') out.line(`- delete ${step.name}`);
    else {
      out.line(`~ update ${step.name} (${step.file})`);
      for (const change of step.changes)
        out.line(`    ${change.field}: ${show(change.from)} -> ${show(change.to)}`);
    }
  }
  const count = (kind: PlanStep['kind']) => steps.filter((step) => step.kind === kind).length;
  out.line(
    `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`,
  );
}

function show(value: unknown): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}
