import { canonicalForm } from '@secadmin/log-chain';
import { describe, expect, it } from 'vitest';
import type { LogRow } from '../entries/sql.js';
import { logDetail } from '../representation.js';
import { chainEntry } from './canonical-columns.js';

const base: LogRow = {
  id: 'log_1',
  timestamp: new Date('2026-11-25T21:00:00.123Z'),
  event: 'user.login',
  actorId: 'user_1',
  actorEmail: 'a@example.com',
  actorEmailRedacted: false,
  actorType: 'user',
  targetId: 'doc_1',
  targetType: 'document',
  ip: '10.0.0.1',
  userAgent: 'curl/8.5.0 ,"seq":null,"target":',
  city: 'Berlin',
  country: 'DE',
  region: 'BE',
  lat: 52.52,
  lng: 13.405,
  result: 'success',
  traceId: 'trace_1',
  metadata: { note: 'x' },
  origin: 'api',
  ingestedBy: 'key_1',
  receivedAt: new Date('2026-11-25T21:00:01.000Z'),
  digests: { 'actor.email': 'ab'.repeat(32), 'metadata.note': 'cd'.repeat(32) },
  salts: { 'actor.email': '01'.repeat(16), 'metadata.note': '02'.repeat(16) },
  seq: null,
  hash: null,
  prevHash: null,
  canonicalVersion: null,
};

describe('chainEntry', () => {
  it.each<[string, Partial<LogRow>]>([
    ['every column set', {}],
    [
      'every optional column null',
      {
        actorId: null,
        actorEmail: null,
        targetId: null,
        targetType: null,
        ip: null,
        userAgent: null,
        city: null,
        country: null,
        region: null,
        lat: null,
        lng: null,
        traceId: null,
        ingestedBy: null,
        receivedAt: null,
        metadata: {},
        digests: {},
      },
    ],
    ['a latitude without a longitude', { lng: null }],
    ['coordinates of zero', { lat: 0, lng: 0 }],
    [
      'a redacted email and no target type',
      { actorEmail: null, actorEmailRedacted: true, targetType: null },
    ],
    ['a service entry', { origin: 'service', actorType: 'service', ingestedBy: null }],
    ['a redacted target id', { targetId: null }],
    ['no metadata', { metadata: {}, digests: { 'actor.email': 'ab'.repeat(32) } }],
  ])('gives the canonical form of the entry the API shows, v1 and v2 (%s)', (_, change) => {
    const row = { ...base, ...change };
    for (const version of [1, 2])
      expect(canonicalForm(chainEntry(row, 42, version))).toBe(
        canonicalForm({ ...logDetail(row), seq: 42, canonicalVersion: version }),
      );
  });
});
