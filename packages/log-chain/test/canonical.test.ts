import { describe, expect, it } from 'vitest';
import { canonicalForm, checkpointMessage, fieldDigest, jcs } from '../src/index.js';
import { checkpoint, entry, seal } from './fixture.js';

describe('canonical form v1', () => {
  it('has every key, absent values as null, redactable values only as digests', () => {
    const [sealed] = seal([
      entry(1, {
        actor: { type: 'user', id: 'user_1', email: 'ada@example.com' },
        target: { type: 'document', id: 'doc_7' },
        context: {
          ip: '203.0.113.9',
          location: { city: 'Zürich', coordinates: { lat: 47.37, lng: 8.54 } },
        },
        metadata: { reason: 'ok' },
        traceId: undefined,
      }),
    ]);
    const form = canonicalForm(sealed as NonNullable<typeof sealed>);
    expect(form).toBe(
      '{"actor":{"id":"user_1","type":"user"},"context":{"ip":"203.0.113.9","location":' +
        '{"city":"Zürich","country":null,"lat":47.37,"lng":8.54,"region":null},"userAgent":null},' +
        `"digests":${jcs(sealed?.digests)},"event":"user.login",` +
        '"id":"log_01kb0000000000000000000001","ingestedBy":"key_01kb0000000000000000000000",' +
        '"origin":"api","receivedAt":"2026-11-26T08:00:01.000Z","result":"success","seq":1,' +
        '"target":{"type":"document"},"timestamp":"2026-11-26T08:00:00.001Z","traceId":null,"v":1}',
    );
    expect(Object.keys(sealed?.digests ?? {}).sort()).toEqual([
      'actor.email',
      'metadata.reason',
      'target.id',
    ]);
    expect(form).not.toContain('ada@example.com');
    expect(form).not.toContain('doc_7');
  });

  it('digests salt + ":" + the JCS of the value', () => {
    // sha256("00112233445566778899aabbccddeeff:\"ada@example.com\"")
    expect(fieldDigest('00112233445566778899aabbccddeeff', 'ada@example.com')).toBe(
      '9ec8355c48bce60275d58fcf8178a7fe850883eb8daae741de3f5fcbaea6f90e',
    );
    expect(fieldDigest('00', { b: 1, a: [true] })).toBe(fieldDigest('00', { a: [true], b: 1 }));
  });

  it('signs secadmin-checkpoint:v1:<seq>:<hash>', () => {
    expect(checkpointMessage(1000, 'ab'.repeat(32))).toBe(
      `secadmin-checkpoint:v1:1000:${'ab'.repeat(32)}`,
    );
    expect(checkpoint(1, '0'.repeat(64)).signature).toMatch(/^[A-Za-z0-9+/]{86}==$/);
  });
});
