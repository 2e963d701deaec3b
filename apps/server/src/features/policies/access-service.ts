import {
  type AccessRequest,
  combineDecisions,
  type Decision,
  type PolicyDefinition,
  PolicyIndex,
} from '@secadmin/policy';
import type { RequestActor } from '../../lib/actor.js';
import type { StateVersionsSource } from '../../storage/state-versions.js';
import { type UserAttributesRead, userAttributesRead } from './attributes-read.js';
import type { PolicyRow } from './model.js';
import type { PoliciesRepository } from './repository.js';

export interface TimedDecision extends Decision {
  evaluationTimeMs: number;
}

/** What every decision about a stored user needs, cached until `userRoles` moves. */
export interface UserStanding {
  roles: string[];
  active: boolean;
}

/** A stored user's attributes, as `principal.*` attribute paths read them (docs/policies-and-evaluation.md). */
export interface StoredUserAttributes {
  email: string;
  roles: string[];
  emailVerified: boolean;
  active: boolean;
  metadata: unknown;
}

const NOT_STORED: UserStanding = { roles: [], active: true };

/**
 * Draft policies evaluated beside the stored ones, in small indexes (never merged into the
 * cached one) so that `pace` can let other requests run between them.
 */
export interface DraftOverlay {
  drafts: readonly PolicyIndex[];
  useStored: boolean;
  pace: () => Promise<void>;
}

function toPolicyDefinition(row: PolicyRow): PolicyDefinition {
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

interface LoadedPolicies {
  version: bigint;
  index: PolicyIndex;
  /** What the index was compiled from: one array per load, never changed. */
  definitions: readonly PolicyDefinition[];
}

/**
 * Decides requests against the stored policies. The compiled index and users' roles and
 * `active` flags are kept in memory and dropped when their counter in `state_versions`
 * (bumped in every transaction that changes them, on any instance) moved: the request's
 * versions are read once per request, so a change applies to the very next decision
 * everywhere. A stored user's other attributes are read once per decision, and only when a
 * policy the request matches has a `principal.` attribute condition.
 */
export class AccessService {
  private current: LoadedPolicies | undefined;
  private loading: { version: bigint; promise: Promise<LoadedPolicies> } | undefined;
  private standings = { version: -1n, byUser: new Map<string, UserStanding>() };

  constructor(
    private readonly deps: {
      policies: Pick<PoliciesRepository, 'all'>;
      /** A user's roles and `active` flag; undefined for no such user (users). */
      userStanding: (userId: string) => Promise<UserStanding | undefined>;
      /** A user's attributes; undefined for no such user (users). */
      userAttributes: (userId: string) => Promise<StoredUserAttributes | undefined>;
      /** `ofRequest()`: the request's versions (a job's: read now); `current()`: read now. */
      versions: Pick<StateVersionsSource, 'current' | 'ofRequest'>;
      /** Counts each decision (metrics). */
      counters?: { decided(decision: Decision['decision']): void } | undefined;
    },
  ) {}

  /**
   * Whether `actor` may do `action` on `resource` now, by the stored policies (the root key
   * may do anything): the check every service makes of its caller beyond the route's own.
   */
  async permits(
    actor: Pick<RequestActor, 'principal' | 'ip' | 'isRoot'>,
    action: string,
    resource: string,
  ): Promise<boolean> {
    if (actor.isRoot) return true;
    const context = { ip: actor.ip, time: new Date() };
    return (await this.decide({ principal: actor.principal, action, resource, context })).allowed;
  }

  /**
   * Decides against the stored policies, and, when given, draft policies evaluated beside
   * them; `useStored: false` decides against the drafts alone. For a stored user principal,
   * its stored attributes replace those the request gives, and an inactive one is denied.
   */
  async decide(
    request: Omit<AccessRequest, 'roles'>,
    overlay?: DraftOverlay,
  ): Promise<TimedDecision> {
    const started = performance.now();
    const versions = await this.deps.versions.ofRequest();
    const userId = request.principal.startsWith('user:') ? request.principal.slice(5) : undefined;
    const [index, standing] = await Promise.all([
      overlay?.useStored === false
        ? undefined
        : this.loadedAt(versions.policies).then((loaded) => loaded.index),
      userId === undefined ? undefined : this.standingOf(userId, versions.userRoles),
    ]);
    let decision: Decision;
    if (standing?.active === false) {
      decision = {
        allowed: false,
        effect: 'deny',
        decision: 'implicit_deny',
        matchedPolicies: [],
        principalInactive: true,
      };
      if (request.explain) Object.assign(decision, { explanation: [], missingContextKeys: [] });
    } else {
      const roles = standing?.roles ?? [];
      const indexes = [...(index ? [index] : []), ...(overlay?.drafts ?? [])];
      const withRoles = { ...request, roles };
      const full =
        userId !== undefined &&
        standing !== undefined &&
        indexes.some((i) => i.readsPrincipalAttributes(withRoles))
          ? {
              ...withRoles,
              attributes: await this.withStoredAttributes(request.attributes, userId),
            }
          : withRoles;
      const decisions: Decision[] = [];
      if (index) decisions.push(index.evaluate(full));
      for (const drafts of overlay?.drafts ?? []) {
        await overlay?.pace();
        decisions.push(drafts.evaluate(full));
      }
      decision = combineDecisions(decisions);
    }
    this.deps.counters?.decided(decision.decision);
    return { ...decision, evaluationTimeMs: Math.round(performance.now() - started) };
  }

  /** The request's principal attributes, with the stored user's over them. */
  private async withStoredAttributes(
    attributes: AccessRequest['attributes'],
    userId: string,
  ): Promise<AccessRequest['attributes']> {
    const stored = await this.deps.userAttributes(userId);
    if (!stored) return attributes;
    return { ...attributes, principal: { ...attributes?.principal, ...stored } };
  }

  private async standingOf(userId: string, version: bigint): Promise<UserStanding | undefined> {
    if (this.standings.version !== version) this.standings = { version, byUser: new Map() };
    const cache = this.standings;
    const cached = cache.byUser.get(userId);
    if (cached) return cached === NOT_STORED ? undefined : cached;
    const standing = await this.deps.userStanding(userId);
    // Bounded: a simulator call may name any user id.
    if (cache.byUser.size < 100_000) cache.byUser.set(userId, standing ?? NOT_STORED);
    return standing;
  }

  /**
   * The stored policies that the request's decisions are made against: the same array until a
   * policy changes, so what is derived from it can be cached by its identity.
   */
  async storedPolicies(): Promise<readonly PolicyDefinition[]> {
    return (await this.loadedAt((await this.deps.versions.ofRequest()).policies)).definitions;
  }

  /**
   * Which of a stored user's metadata keys and fields the stored policies read now: the
   * versions are read afresh, so a policy written a moment ago counts.
   */
  async userAttributesRead(): Promise<UserAttributesRead> {
    const { policies: version } = await this.deps.versions.current();
    return userAttributesRead((await this.loadedAt(version)).definitions);
  }

  private async loadedAt(version: bigint): Promise<LoadedPolicies> {
    if (this.current && this.current.version >= version) return this.current;
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
    return loaded;
  }

  /** Reads the version before the policies: the set loaded is at least that new. */
  private async load(): Promise<LoadedPolicies> {
    const { policies: version } = await this.deps.versions.current();
    const definitions = (await this.deps.policies.all()).map(toPolicyDefinition);
    return { version, index: new PolicyIndex(definitions), definitions };
  }
}
