import { describe, expect, it } from 'vitest';
import { Invalid } from '../../../lib/errors.js';
import { compileHighlighter } from './highlight.js';
import { MAX_QUERY_TERMS, parseSearchQuery, type SearchQuery } from './query.js';

describe('parseSearchQuery', () => {
  it('ANDs words, joins OR neighbours, negates and qualifies', () => {
    expect(
      parseSearchQuery('login -event:user.logout failed OR "reset link" actor:ada@example.com'),
    ).toEqual([
      [{ kind: 'text', text: 'login', negated: false }],
      [{ kind: 'field', field: 'event', value: 'user.logout', negated: true }],
      [
        { kind: 'text', text: 'failed', negated: false },
        { kind: 'text', text: 'reset link', negated: false },
      ],
      [{ kind: 'field', field: 'actor', value: 'ada@example.com', negated: false }],
    ]);
  });

  it('reads target:, country: and origin:, qualifier names in any case, quoted values', () => {
    expect(
      parseSearchQuery('TARGET:user_1 Country:"United States" -origin:api target:policy'),
    ).toEqual([
      [{ kind: 'field', field: 'target', value: 'user_1', negated: false }],
      [{ kind: 'field', field: 'country', value: 'United States', negated: false }],
      [{ kind: 'field', field: 'origin', value: 'api', negated: true }],
      [{ kind: 'field', field: 'target', value: 'policy', negated: false }],
    ]);
    expect(parseSearchQuery('origin:service OR ip:::1 event:user.*')).toEqual([
      [
        { kind: 'field', field: 'origin', value: 'service', negated: false },
        { kind: 'field', field: 'ip', value: '::1', negated: false },
      ],
      [{ kind: 'field', field: 'event', value: 'user.*', negated: false }],
    ]);
  });

  it('reads a quoted qualifier, a quoted OR and an unknown qualifier as text', () => {
    expect(parseSearchQuery('"event:user.login" "OR" -OR color:red')).toEqual([
      [{ kind: 'text', text: 'event:user.login', negated: false }],
      [{ kind: 'text', text: 'OR', negated: false }],
      [{ kind: 'text', text: 'OR', negated: true }],
      [{ kind: 'text', text: 'color:red', negated: false }],
    ]);
  });

  it('leaves out terms without letters or digits', () => {
    expect(parseSearchQuery('... a OR !! b --')).toEqual([
      [
        { kind: 'text', text: 'a', negated: false },
        { kind: 'text', text: 'b', negated: false },
      ],
    ]);
  });

  /** The one detail of the 400 that `query` gives, or undefined when it parses. */
  function problem(query: string) {
    try {
      parseSearchQuery(query);
    } catch (error) {
      expect(error).toBeInstanceOf(Invalid);
      expect((error as Invalid).problems).toHaveLength(1);
      return (error as Invalid).problems[0];
    }
    return undefined;
  }

  it.each([
    ['unclosed quote', 'login "reset link', 7],
    ['unclosed quote', 'actor:"ada', 7],
    ['unclosed quote', '"a" "b" "', 9],
    ['OR with no term before it', 'OR a', 1],
    ['OR with no term before it', '   OR a', 4],
    ['OR with no term after it', 'a OR', 3],
    ['OR with no term after it', 'a OR   ', 3],
    ['OR right after another OR', 'a OR OR b', 6],
    ['- with no term after it', '- a', 1],
    ['- with no term after it', 'a -', 3],
    ['- with no term after it', 'a -\tb', 3],
    ['event: with no value', 'event:', 1],
    ['event: with no value', 'a -event: b', 4],
    ['actor: with no value', 'a ACTOR:""', 3],
    ['target: with no value', 'target:', 1],
    ['country: with no value', 'country:', 1],
    ['origin: with no value', 'origin:', 1],
    ['ip: with no value', 'ip:', 1],
    ['result: value must be success or failure', 'result:maybe', 8],
    ['result: value must be success or failure', 'result:Success', 8],
    ['result: value must be success or failure', 'a -result:"x y"', 11],
    ['origin: value must be service or api', 'origin:user', 8],
    ['origin: value must be service or api', 'login -Origin:API', 15],
  ])('refuses %s: %j at character %i', (words, query, position) => {
    expect(problem(query)).toEqual({
      field: 'query',
      message: `${words} at character ${position}`,
      position,
    });
  });

  it('reports the first problem from the start of the query', () => {
    expect(problem('OR "open')?.position).toBe(1);
    expect(problem('a "open OR')?.position).toBe(3);
    expect(problem('result:no event:')?.position).toBe(8);
    expect(problem('event: result:no')?.position).toBe(1);
  });

  it('counts positions in code points, not UTF-16 units', () => {
    // 😀 is one code point and two UTF-16 units; é written as e + U+0301 is two code points.
    expect(problem('😀 "x')).toMatchObject({ position: 3 });
    expect(problem('😀😀 a OR')).toMatchObject({ position: 6 });
    expect(problem('e\u0301 -')).toMatchObject({ position: 4 });
    expect(problem('𝔘𝔫𝔦 result:𝔵')).toMatchObject({ position: 12 });
    expect(problem('日本 origin:x')).toMatchObject({ position: 11 });
  });

  it('rejects a query with nothing to search for, or too many terms, naming no position', () => {
    for (const q of ['...', '""', '-- ...']) expect(problem(q)?.position, q).toBeUndefined();
    expect(problem('... !!')).toEqual({
      field: 'query',
      message: 'must contain at least one word or qualifier',
    });
    expect(problem('a '.repeat(MAX_QUERY_TERMS + 1))).toEqual({
      field: 'query',
      message: `must have at most ${MAX_QUERY_TERMS} terms, has ${MAX_QUERY_TERMS + 1}`,
    });
    expect(parseSearchQuery('a '.repeat(MAX_QUERY_TERMS)).flat()).toHaveLength(MAX_QUERY_TERMS);
  });
});

describe('highlights', () => {
  const highlights = (
    row: Parameters<ReturnType<typeof compileHighlighter>>[0],
    query: SearchQuery,
  ) => compileHighlighter(query)(row);
  const row = {
    id: 'log_1',
    timestamp: new Date(),
    event: 'user.login',
    actorId: 'u1',
    actorEmail: 'ada@example.com',
    actorEmailRedacted: false,
    actorType: 'user',
    targetId: null,
    targetType: null,
    ip: '10.1.2.3',
    userAgent: '<script>alert("login")</script>',
    city: null,
    country: null,
    region: null,
    lat: null,
    lng: null,
    result: 'success',
    traceId: null,
    metadata: { note: 'Login & <b>more</b>', nested: { email: 'ada@example.com' } },
    origin: 'api',
    ingestedBy: 'key_1',
    receivedAt: new Date(),
    digests: {},
    salts: {},
    seq: null,
    hash: null,
    prevHash: null,
    canonicalVersion: null,
  };

  it('wraps matches in <em> and escapes everything else', () => {
    const h = highlights(row, parseSearchQuery('login ada@example.com'));
    expect(h).toEqual({
      event: 'user.<em>login</em>',
      'actor.email': '<em>ada@example.com</em>',
      'context.userAgent': '&lt;script&gt;alert(&quot;<em>login</em>&quot;)&lt;/script&gt;',
      'metadata.note': '<em>Login</em> &amp; &lt;b&gt;more&lt;/b&gt;',
      'metadata.nested.email': '<em>ada@example.com</em>',
    });
  });

  it('highlights target: on the target id or type, and country: on the country in any case', () => {
    const located = { ...row, targetId: 'pol_1', targetType: 'policy', country: 'DE' };
    expect(highlights(located, parseSearchQuery('target:policy country:de origin:api'))).toEqual({
      'target.type': '<em>policy</em>',
      'context.location.country': '<em>DE</em>',
    });
    expect(highlights(located, parseSearchQuery('target:pol_1 OR target:user'))).toEqual({
      'target.id': '<em>pol_1</em>',
    });
  });

  it('does not highlight excluded terms, and highlights qualifiers on their field', () => {
    expect(highlights(row, parseSearchQuery('-login ip:10.1.2.3'))).toEqual({
      'context.ip': '<em>10.1.2.3</em>',
    });
  });
});
