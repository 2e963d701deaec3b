import { describe, expect, it } from 'vitest';
import { Invalid } from '../../../lib/errors.js';
import { compileHighlighter } from './highlight.js';
import { parseSearchQuery, type SearchQuery } from './query.js';

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

  it('closes an unbalanced quote and ignores stray operators', () => {
    expect(parseSearchQuery('OR "open phrase')).toEqual([
      [{ kind: 'text', text: 'open phrase', negated: false }],
    ]);
    expect(parseSearchQuery('a OR')).toEqual([[{ kind: 'text', text: 'a', negated: false }]]);
    expect(parseSearchQuery('- a')).toEqual([[{ kind: 'text', text: 'a', negated: false }]]);
  });

  it('rejects a query with nothing to search for, and a bad result value', () => {
    for (const q of ['OR', '"', '- -- ...', 'event:']) {
      expect(() => parseSearchQuery(q), q).toThrow(Invalid);
    }
    expect(() => parseSearchQuery('result:maybe')).toThrow(/invalid/);
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

  it('does not highlight excluded terms, and highlights qualifiers on their field', () => {
    expect(highlights(row, parseSearchQuery('-login ip:10.1.2.3'))).toEqual({
      'context.ip': '<em>10.1.2.3</em>',
    });
  });
});
