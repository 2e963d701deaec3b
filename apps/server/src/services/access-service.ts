import type { PrismaClient, SqlQuery } from '@secadmin/db';
import {
  type AccessRequest,
  type Decision,
  type PolicyDefinition,
  PolicyIndex,
} from '../policy/index.js';
import type { PolicyRow } from '../repositories/policies-repository.js';
import { allPolicies, readVersionAndRoles } from '../repositories/policies-repository.js';

export interface TimedDecision extends Decision {
  evaluationTimeMs: number;
}

export function toPolicyDefinition(row: PolicyRow): PolicyDefinition {
  return {
    id: row.id,
    name: row.name,
    effect: row.effect === 'deny' ? 'deny' : 'allow',
    principals: row.principals,
    actions: row.actions,
    resources: row.resources,
    conditions: (row.conditions as PolicyDefinition['conditions']) ?? null,
  };
}

/**
 * Decides requests against the stored policies. The compiled index is kept in memory and
 * reloaded when the policy set version (bumped in every policy-changing transaction)
 * moves, which each decision reads together with the user's roles in one round trip:
 * a change on any instance applies to the very next decision everywhere.
 */
export class AccessService {
  private current: { version: bigint; index: PolicyIndex } | undefined;
  private loading:
    | { version: bigint; promise: Promise<{ version: bigint; index: PolicyIndex }> }
    | undefined;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly query: SqlQuery,
  ) {}

  async decide(request: Omit<AccessRequest, 'roles'>): Promise<TimedDecision> {
    const started = performance.now();
    const userId = request.principal.startsWith('user:') ? request.principal.slice(5) : undefined;
    const { version, roles } = await readVersionAndRoles(this.query, userId);
    const index = await this.indexAt(version);
    const decision = index.evaluate({ ...request, roles });
    return { ...decision, evaluationTimeMs: Math.round(performance.now() - started) };
  }

  private async indexAt(version: bigint): Promise<PolicyIndex> {
    if (this.current && this.current.version >= version) return this.current.index;
    let loading = this.loading;
    if (!loading || loading.version < version) {
      const promise = this.load();
      loading = { version, promise };
      this.loading = loading;
      promise
        .finally(() => {
          if (this.loading?.promise === promise) this.loading = undefined;
        })
        .catch(() => {});
    }
    const loaded = await loading.promise;
    if (!this.current || loaded.version > this.current.version) this.current = loaded;
    return loaded.index;
  }

  /** Reads the version before the policies: the set loaded is at least that new. */
  private async load(): Promise<{ version: bigint; index: PolicyIndex }> {
    const { version } = await readVersionAndRoles(this.query, undefined);
    const rows = await allPolicies(this.prisma);
    return { version, index: new PolicyIndex(rows.map(toPolicyDefinition)) };
  }
}
