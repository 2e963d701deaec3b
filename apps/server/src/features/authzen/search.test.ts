import type { PolicyDefinition } from '@secadmin/policy';
import { describe, expect, it } from 'vitest';
import type { RequestActor } from '../../lib/actor.js';
import { Cursors } from '../../lib/cursor.js';
import { CandidateIndex } from './candidates.js';
import { MAX_EXAMINED_PER_PAGE, SearchService } from './search.js';

/** A page's worth of stored users that a policy names, then one name that is no user. */
const storedIds = Array.from(
  { length: MAX_EXAMINED_PER_PAGE + 20 },
  (_, i) => `user_01m8c${String(i).padStart(21, '0')}`,
);
const policies: PolicyDefinition[] = [
  {
    id: 'pol_1',
    name: 'named',
    effect: 'allow',
    principals: [...storedIds.map((id) => `user:${id}`), 'user:zed'],
    actions: ['open'],
    resources: ['vault/v1'],
  },
];
const stored = new Set(storedIds);

function searchService(readable = (_policyId: string) => true) {
  return new SearchService({
    simulator: {
      checkProblems: () => [],
      simulate: async () => {
        throw new Error('not used');
      },
      simulateBatch: async ({ checks }) =>
        checks.map(() => ({ allowed: true }) as Awaited<ReturnType<never>>),
    },
    storedPolicies: async () => policies,
    candidates: new CandidateIndex(),
    usersAfter: async () => [],
    cursors: new Cursors('a test secret'),
    mayListUsers: async () => false,
    storedUsersAmong: async (ids) => new Set(ids.filter((id) => stored.has(id))),
    readableBy: () => async (policyId) => readable(policyId),
  });
}

const caller: RequestActor = {
  keyId: 'key_1',
  principal: 'service:pep',
  isRoot: false,
  ip: undefined,
  userAgent: undefined,
};

describe('AuthZEN subject search without users:list', () => {
  it('pages past a page of withheld stored users without naming one in its token', async () => {
    const search = searchService();
    const request = {
      subject: { type: 'user' },
      action: { name: 'open' },
      resource: { type: 'vault', id: 'v1' },
    };
    const first = await search.subjects(request, caller);
    expect(first.results).toEqual([]);
    expect(first.page.next_token).not.toBe('');
    const [payload] = first.page.next_token.split('.');
    const readable = Buffer.from(payload ?? '', 'base64url').toString();
    for (const id of storedIds) expect(readable).not.toContain(id);
    const second = await search.subjects(
      { ...request, page: { token: first.page.next_token } },
      caller,
    );
    expect(second.results).toEqual([{ type: 'user', id: 'zed' }]);
    expect(second.page.next_token).toBe('');
  });
});

describe('AuthZEN search for a key that may not read the policy', () => {
  it("offers none of the policy's identifiers: subjects, resources or actions", async () => {
    const hidden = searchService(() => false);
    const question = { action: { name: 'open' }, resource: { type: 'vault', id: 'v1' } };
    const subjects = await hidden.subjects(
      { subject: { type: 'user' }, ...question, page: { limit: 1000 } },
      caller,
    );
    // Past the withheld stored users, and still nothing: `zed` is named by a hidden policy.
    const rest = subjects.page.next_token
      ? await hidden.subjects(
          { subject: { type: 'user' }, ...question, page: { token: subjects.page.next_token } },
          caller,
        )
      : { results: [] };
    expect([...subjects.results, ...rest.results]).toEqual([]);
    const subject = { type: 'user', id: 'zed' };
    const resources = await hidden.resources(
      { subject, action: { name: 'open' }, resource: { type: 'vault' } },
      caller,
    );
    expect(resources.results).toEqual([]);
    const actions = await hidden.actions(
      { subject, resource: { type: 'vault', id: 'v1' } },
      caller,
    );
    expect(actions.results).toEqual([]);
    const readable = searchService();
    expect(
      (
        await readable.resources(
          { subject, action: { name: 'open' }, resource: { type: 'vault' } },
          caller,
        )
      ).results,
    ).toEqual([{ type: 'vault', id: 'v1' }]);
    expect(
      (await readable.actions({ subject, resource: { type: 'vault', id: 'v1' } }, caller)).results,
    ).toEqual([{ name: 'open' }]);
  });
});
