import { createHash } from 'node:crypto';
import type { components } from '@secadmin/api-types';
import type { PolicyDefinition } from '@secadmin/policy';
import type { RequestActor } from '../../lib/actor.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import type { Cursors, KeysetPosition } from '../../lib/cursor.js';
import { Invalid } from '../../lib/errors.js';
import type { Simulation } from '../policies/api.js';
import {
  type CandidateIndex,
  type CandidateKind,
  type LiteralCandidates,
  namerKey,
} from './candidates.js';
import { isPrincipalType, type Question, toSimulation } from './entities.js';
import { renamed } from './evaluation.js';

type SubjectSearch = components['schemas']['AuthzenSubjectSearchRequest'];
type ResourceSearch = components['schemas']['AuthzenResourceSearchRequest'];
type ActionSearch = components['schemas']['AuthzenActionSearchRequest'];
type Page = components['schemas']['AuthzenPageResponse'];

/**
 * Candidates decided per page at most, whatever `page.limit` asks: the work of one request is
 * bounded (stored users cost a roles lookup each the first time).
 */
export const MAX_EXAMINED_PER_PAGE = 500;
/** Candidates decided by one simulator batch. */
const CHECKS_PER_BATCH = 100;
const DEFAULT_LIMIT = 50;

/**
 * A token's position: the last literal examined (`l:<literal>`, at most the longest identifier
 * a request may carry), or the last stored user (`u:<id>`). By value, not by place: a policy
 * created or deleted between two pages moves the places of the literals after it. A literal
 * withheld from the caller is not written in its token (which is signed, not secret): its place
 * and digest stand for it (`w:<place>:<digest>`).
 */
const POSITION = /^(l:[\s\S]{1,448}|w:\d{1,9}:[A-Za-z0-9_-]{22}|u:user_[0-9a-z]{26})$/;

export interface SearchDeps {
  simulator: Simulation;
  /** The stored policies the request's decisions are made against (policies). */
  storedPolicies: () => Promise<readonly PolicyDefinition[]>;
  candidates: CandidateIndex;
  /** Stored users after a keyset position, oldest first. */
  usersAfter: (
    after: KeysetPosition | undefined,
    take: number,
  ) => Promise<{ id: string; createdAt: Date }[]>;
  cursors: Cursors;
  /**
   * Whether the caller may list users (`users:list` on `users`): stored users are candidates
   * only then, so a key that may only simulate cannot enumerate the accounts.
   */
  mayListUsers: (caller: RequestActor) => Promise<boolean>;
  /** Which of these `user` ids are stored users' (a policy may name one). */
  storedUsersAmong: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
  /** For one request: whether its caller may read a stored policy (`policies:read` on it). */
  readableBy: (caller: RequestActor) => (policyId: string) => Promise<boolean>;
}

type Offered = (ids: readonly string[]) => Promise<boolean[]>;

/** Where a page starts: in the sorted literals, or among the stored users after one. */
type Start = { literal: number; afterWithheld?: true } | { user: KeysetPosition | undefined };

interface CandidateOptions {
  /** Stored users are candidates after the literals, but for these ids (literals already). */
  storedUsers?: ReadonlySet<string> | undefined;
  /** Whether each literal is offered to this caller; without it, every one is. */
  offered?: Offered | undefined;
}

/** One candidate: what it answers as, and the question it is decided with. */
interface Candidate<R> {
  result: R;
  question: Question;
  /** Where the next page starts if this candidate is the last one examined. */
  next: Start;
}

/** AuthZEN's Subject, Resource and Action Search over the policy simulator. */
export class SearchService {
  constructor(private readonly deps: SearchDeps) {}

  async subjects(request: SubjectSearch, caller: RequestActor) {
    const { type, properties } = request.subject;
    const candidates = this.deps.candidates.of(await this.deps.storedPolicies());
    const literals = candidates.subjects.get(type) ?? [];
    const known = new Set(literals);
    const named = this.namedToCaller(candidates, 'subject', type, caller);
    const ask = (id: string): Question => ({
      subject: { type, id, ...(properties ? { properties } : {}) },
      action: request.action,
      resource: request.resource,
      context: request.context,
    });
    const mayList = type === 'user' && (await this.deps.mayListUsers(caller));
    // A stored user is offered as the account it is: to a key that may list users, whatever
    // policy names it, and never to one that may not.
    const offered: Offered | undefined =
      type !== 'user'
        ? named
        : async (ids) => {
            const stored = await this.deps.storedUsersAmong(ids);
            const others = ids.filter((id) => !stored.has(id));
            const answers = named ? await named(others) : others.map(() => true);
            const offeredOthers = new Map(others.map((id, i) => [id, answers[i] === true]));
            return ids.map((id) => (stored.has(id) ? mayList : offeredOthers.get(id) === true));
          };
    return this.search('subject', request, caller, literals, ask, (id) => ({ type, id }), {
      storedUsers: mayList ? known : undefined,
      offered,
    });
  }

  async resources(request: ResourceSearch, caller: RequestActor) {
    const { type, properties } = request.resource;
    const candidates = this.deps.candidates.of(await this.deps.storedPolicies());
    const literals = candidates.resources.get(type) ?? [];
    const offered = this.namedToCaller(candidates, 'resource', type, caller);
    const ask = (id: string): Question => ({
      subject: request.subject,
      action: request.action,
      resource: { type, id, ...(properties ? { properties } : {}) },
      context: request.context,
    });
    return this.search('resource', request, caller, literals, ask, (id) => ({ type, id }), {
      offered,
    });
  }

  async actions(request: ActionSearch, caller: RequestActor) {
    const candidates = this.deps.candidates.of(await this.deps.storedPolicies());
    const literals = candidates.actions;
    const offered = this.namedToCaller(candidates, 'action', '', caller);
    const ask = (name: string): Question => ({
      subject: request.subject,
      action: { name },
      resource: request.resource,
      context: request.context,
    });
    return this.search('action', request, caller, literals, ask, (name) => ({ name }), {
      offered,
    });
  }

  /**
   * Whether a literal is named by a policy the caller may read: a key that sees a policy as
   * `hidden` in simulation answers learns none of its identifiers from a search either. The
   * root key reads every policy (undefined: every literal is offered).
   */
  private namedToCaller(
    candidates: LiteralCandidates,
    kind: CandidateKind,
    type: string,
    caller: RequestActor,
  ): Offered | undefined {
    if (caller.isRoot) return undefined;
    const mayRead = this.deps.readableBy(caller);
    const named = async (id: string) => {
      for (const policyId of candidates.namers.get(namerKey(kind, type, id)) ?? [])
        if (await mayRead(policyId)) return true;
      return false;
    };
    return async (ids) => {
      const answers: boolean[] = [];
      for (const id of ids) answers.push(await named(id));
      return answers;
    };
  }

  /**
   * Walks the candidates from where the token says, deciding them in batches, until the page
   * holds `limit` results, `MAX_EXAMINED_PER_PAGE` were examined, or none are left.
   */
  private async search<R>(
    kind: string,
    request: SubjectSearch | ResourceSearch | ActionSearch,
    caller: RequestActor,
    literals: readonly string[],
    ask: (id: string) => Question,
    result: (id: string) => R,
    options: CandidateOptions = {},
  ): Promise<{ results: R[]; page: Page }> {
    // Checked once here, not only as candidates are decided: a search with none to decide
    // refuses the same request as one with many.
    const { explain: _, ...check } = toSimulation(ask(''));
    const problems = this.deps.simulator.checkProblems(check);
    if (problems.length > 0) throw renamed(new Invalid(problems));
    // A subject of a type that is no principal is unknown here: nothing is found for it.
    if (!isPrincipalType(ask('').subject.type))
      return { results: [], page: { next_token: '', count: 0 } };
    const limit = request.page?.limit ?? DEFAULT_LIMIT;
    const scope = await scopeOf(kind, request);
    let start = this.startOf(scope, request.page?.token, literals);
    const results: R[] = [];
    let examined = 0;
    let last: Start | undefined;
    let exhausted = false;
    while (results.length < limit && examined < MAX_EXAMINED_PER_PAGE) {
      const room = Math.min(CHECKS_PER_BATCH, MAX_EXAMINED_PER_PAGE - examined);
      const batch = await this.batchFrom(start, room, literals, ask, result, options);
      examined += batch.withheld ?? 0;
      if (batch.candidates.length === 0) {
        if (batch.more) {
          // Only candidates not offered were read: they count (above), and are passed.
          last = batch.more;
          start = batch.more;
          continue;
        }
        exhausted = true;
        break;
      }
      const decisions = await this.decide(batch.candidates, caller);
      for (const [i, candidate] of batch.candidates.entries()) {
        examined++;
        last = candidate.next;
        if (decisions[i]) results.push(candidate.result);
        if (results.length === limit) break;
      }
      start = last as Start;
    }
    const nextToken = exhausted || !last ? '' : this.tokenOf(scope, last, literals);
    return { results, page: { next_token: nextToken, count: results.length } };
  }

  /** Up to `room` candidates from `start`: literals first, then (for `user` subjects) stored users. */
  private async batchFrom<R>(
    start: Start,
    room: number,
    literals: readonly string[],
    ask: (id: string) => Question,
    result: (id: string) => R,
    { storedUsers, offered }: CandidateOptions,
  ): Promise<{ candidates: Candidate<R>[]; more?: Start; withheld?: number }> {
    if ('literal' in start && start.literal < literals.length) {
      const ids = literals.slice(start.literal, start.literal + room);
      const offers = offered ? await offered(ids) : undefined;
      const candidates: Candidate<R>[] = [];
      for (const [i, id] of ids.entries())
        if (!offers || offers[i])
          candidates.push({
            result: result(id),
            question: ask(id),
            next: { literal: start.literal + i + 1 },
          });
      const withheld = ids.length - candidates.length;
      return candidates.length === 0
        ? {
            candidates,
            more: { literal: start.literal + ids.length, afterWithheld: true },
            withheld,
          }
        : { candidates, withheld };
    }
    if (!storedUsers) return { candidates: [] };
    const after = 'user' in start ? start.user : undefined;
    const users = await this.deps.usersAfter(after, room);
    const candidates = users
      .filter((user) => !storedUsers.has(user.id))
      .map((user) => ({
        result: result(user.id),
        question: ask(user.id),
        next: { user: { at: user.createdAt, id: user.id } },
      }));
    const lastUser = users[users.length - 1];
    return candidates.length === 0 && lastUser && users.length === room
      ? { candidates, more: { user: { at: lastUser.createdAt, id: lastUser.id } }, withheld: room }
      : { candidates };
  }

  /** Whether each candidate is allowed, in one simulator batch (their context is shared). */
  private async decide(
    candidates: readonly Candidate<unknown>[],
    caller: RequestActor,
  ): Promise<boolean[]> {
    const checks = candidates.map(({ question }) => {
      const { explain: _, ...check } = toSimulation(question);
      return check;
    });
    try {
      const shown = await this.deps.simulator.simulateBatch({ checks }, caller);
      return shown.map((decision) => decision.allowed);
    } catch (error) {
      throw error instanceof Invalid ? renamed(error) : error;
    }
  }

  private startOf(scope: string, token: string | undefined, literals: readonly string[]): Start {
    let position: KeysetPosition | undefined;
    try {
      position = this.deps.cursors.decode(scope, POSITION, token);
    } catch (error) {
      if (error instanceof Invalid)
        throw new Invalid(
          [{ field: 'page.token', message: 'must be a next_token returned by this search' }],
          'The page token is invalid.',
        );
      throw error;
    }
    if (!position) return { literal: 0 };
    if (position.id.startsWith('w:')) return { literal: placeAfterWithheld(literals, position.id) };
    if (position.id.startsWith('l:'))
      return { literal: placeAfter(literals, position.id.slice(2)) };
    return { user: { at: position.at, id: position.id.slice(2) } };
  }

  private tokenOf(scope: string, start: Start, literals: readonly string[]): string {
    // A literal start is never the first: at least the one before it was examined.
    if ('literal' in start && start.afterWithheld) {
      const examined = literals[start.literal - 1] as string;
      const position = `w:${start.literal}:${digestOf(examined)}`;
      return this.deps.cursors.encode(scope, { at: new Date(0), id: position });
    }
    return 'literal' in start
      ? this.deps.cursors.encode(scope, { at: new Date(0), id: `l:${literals[start.literal - 1]}` })
      : this.deps.cursors.encode(scope, {
          at: start.user?.at ?? new Date(0),
          id: `u:${start.user?.id ?? ''}`,
        });
  }
}

/** The place of the first literal that sorts after `examined` (the literals are sorted). */
function placeAfter(literals: readonly string[], examined: string): number {
  let low = 0;
  let high = literals.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((literals[middle] as string) <= examined) low = middle + 1;
    else high = middle;
  }
  return low;
}

const digestOf = (literal: string) =>
  createHash('sha256').update(literal).digest('base64url').slice(0, 22);

/**
 * Where a page goes on after a withheld literal: after it if it is still there (found by its
 * digest), else at its former place.
 */
function placeAfterWithheld(literals: readonly string[], position: string): number {
  const [, place, digest] = position.split(':') as [string, string, string];
  const formerly = Math.min(Number(place), literals.length);
  const at = literals[formerly - 1];
  if (at !== undefined && digestOf(at) === digest) return formerly;
  const found = literals.findIndex((literal) => digestOf(literal) === digest);
  return found === -1 ? formerly : found + 1;
}

/**
 * A token is good for the search that issued it only: its scope is the endpoint and a digest
 * of the request's canonical JSON without its page (so key order does not matter).
 */
async function scopeOf(kind: string, request: { page?: unknown }): Promise<string> {
  const { page: _, ...question } = request;
  const hash = createHash('sha256');
  for await (const piece of canonicalJson(question)) hash.update(piece);
  return `authzen-search ${kind} ${hash.digest('base64url')}`;
}
