import type { components } from '@secadmin/api-types';
import { attributeConditionProblems, parseCidr } from '@secadmin/policy';
import type { RequestActor } from '../../lib/actor.js';
import type { AuditTrail } from '../../lib/audit-trail.js';
import type { Cursors, Page } from '../../lib/cursor.js';
import { Conflict, type FieldProblem, Invalid, NotFound } from '../../lib/errors.js';
import { type Precondition, requirePrecondition } from '../../lib/etag.js';
import { idPattern, newId } from '../../lib/ids.js';
import type { CachedState } from '../../lib/state-versions.js';
import { INVALID_INSTANT, nowSeconds, parseInstant } from '../../lib/time.js';
import { conflictOnDuplicate } from '../../storage/database-errors.js';
import { lockedUpdate } from '../../storage/locked-update.js';
import type { StaleMarker } from '../../storage/state-versions.js';
import type { Store } from '../../storage/store.js';
import type { PolicyRow } from './model.js';
import type { PoliciesRepository, PolicyChanges } from './repository.js';

type PolicyCreate = components['schemas']['PolicyCreate'];
type PolicyUpdate = components['schemas']['PolicyUpdate'];
type PolicyConditions = components['schemas']['PolicyConditions'];

const POLICY_ID = idPattern('pol');

/**
 * What the schema cannot say: every CIDR parses, every time is a real instant, in order, and
 * every attribute condition is well formed (`@secadmin/policy` decides, naming the path).
 */
export function conditionProblems(
  conditions: PolicyConditions,
  field = 'conditions',
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const list of ['allowlist', 'denylist'] as const) {
    conditions.ip?.[list]?.forEach((cidr, i) => {
      if (!parseCidr(cidr)) {
        problems.push({
          field: `${field}.ip.${list}[${i}]`,
          message: 'must be an IPv4 or IPv6 address or CIDR block',
        });
      }
    });
  }
  const times: Partial<Record<'notBefore' | 'notAfter', Date>> = {};
  for (const key of ['notBefore', 'notAfter'] as const) {
    const text = conditions.time?.[key];
    if (text === undefined) continue;
    const parsed = parseInstant(text);
    if (parsed) times[key] = parsed;
    else problems.push({ field: `${field}.time.${key}`, message: INVALID_INSTANT });
  }
  if (times.notBefore && times.notAfter && times.notBefore > times.notAfter) {
    problems.push({ field: `${field}.time`, message: 'notBefore must not be after notAfter' });
  }
  if (conditions.attributes !== undefined)
    problems.push(...attributeConditionProblems(conditions.attributes, `${field}.attributes`));
  return problems;
}

function checkConditions(conditions: PolicyConditions | null | undefined): void {
  if (!conditions) return;
  const problems = conditionProblems(conditions);
  if (problems.length > 0) throw new Invalid(problems, 'The policy conditions are invalid.');
}

const duplicateName = () => new Conflict('A policy with this name already exists.');

export interface PoliciesDeps {
  store: Pick<Store, 'transaction'>;
  policies: Pick<
    PoliciesRepository,
    'insert' | 'find' | 'findForUpdate' | 'list' | 'update' | 'delete' | 'removePrincipalEverywhere'
  >;
  versions: StaleMarker;
  audit: AuditTrail<'policy.created' | 'policy.updated' | 'policy.deleted', 'policy'>;
  cursors: Pick<Cursors, 'decode' | 'page'>;
}

export class PoliciesService {
  private readonly policies: PoliciesDeps['policies'];

  constructor(private readonly deps: PoliciesDeps) {
    this.policies = deps.policies;
  }

  async create(actor: RequestActor, input: PolicyCreate): Promise<PolicyRow> {
    checkConditions(input.conditions);
    const now = nowSeconds();
    return conflictOnDuplicate(duplicateName, () =>
      this.deps.store.transaction(async () => {
        const policy = await this.policies.insert({
          id: newId('pol'),
          name: input.name,
          description: input.description ?? null,
          effect: input.effect,
          principals: input.principals,
          actions: input.actions,
          resources: input.resources,
          ...(input.conditions ? { conditions: input.conditions as object } : {}),
          createdAt: now,
          updatedAt: now,
        });
        await this.deps.versions.bump('policies');
        await this.deps.audit.record(actor, {
          event: 'policy.created',
          target: { id: policy.id, type: 'policy' },
        });
        return policy;
      }),
    );
  }

  async get(id: string): Promise<PolicyRow> {
    const policy = await this.policies.find(id);
    if (!policy) throw new NotFound('policy');
    return policy;
  }

  async list(query: { limit: number; cursor?: string }): Promise<Page<PolicyRow>> {
    const after = this.deps.cursors.decode('policies', POLICY_ID, query.cursor);
    const rows = await this.policies.list(after, query.limit + 1);
    return this.deps.cursors.page(rows, query.limit, 'policies', (row) => row.createdAt);
  }

  async update(
    actor: RequestActor,
    id: string,
    patch: PolicyUpdate,
    precondition?: Precondition,
  ): Promise<PolicyRow> {
    checkConditions(patch.conditions);
    if (Object.keys(patch).length === 0) {
      const policy = await this.get(id);
      requirePrecondition(precondition, policy, 'policy');
      return policy;
    }
    const data: PolicyChanges = { updatedAt: nowSeconds(), version: { increment: 1 } };
    if (patch.name !== undefined) data.name = patch.name;
    if (patch.description !== undefined) data.description = patch.description;
    if (patch.effect !== undefined) data.effect = patch.effect;
    if (patch.principals !== undefined) data.principals = patch.principals;
    if (patch.actions !== undefined) data.actions = patch.actions;
    if (patch.resources !== undefined) data.resources = patch.resources;
    if (patch.conditions !== undefined) {
      data.conditions = patch.conditions as object | null;
    }
    return conflictOnDuplicate(duplicateName, () =>
      lockedUpdate(this.deps, {
        what: 'policy',
        lock: () => this.policies.findForUpdate(id),
        precondition,
        write: async () => ({ result: await this.policies.update(id, data), stale: ['policies'] }),
        record: () =>
          this.deps.audit.record(actor, {
            event: 'policy.updated',
            target: { id, type: 'policy' },
          }),
      }),
    );
  }

  async remove(actor: RequestActor, id: string, precondition?: Precondition): Promise<void> {
    await lockedUpdate(this.deps, {
      what: 'policy',
      lock: () => this.policies.findForUpdate(id),
      precondition,
      write: async () => {
        await this.policies.delete(id);
        return { result: undefined, stale: ['policies'] };
      },
      record: () =>
        this.deps.audit.record(actor, { event: 'policy.deleted', target: { id, type: 'policy' } }),
    });
  }

  /**
   * Removes `principal` from every policy naming it, in the caller's transaction. Returns the
   * cached state this makes stale, for the caller to bump once its rows are written.
   */
  async removePrincipal(principal: string): Promise<CachedState[]> {
    return (await this.policies.removePrincipalEverywhere(principal)) > 0 ? ['policies'] : [];
  }
}
