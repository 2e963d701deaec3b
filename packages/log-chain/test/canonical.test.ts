import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ChainEntry,
  canonicalForm,
  canonicalFormV1,
  checkpointMessage,
  fieldDigest,
  GENESIS_HASH,
  jcs,
  metadataKeys,
  presentFields,
  REDACTED,
  verifyChain,
} from '../src/index.js';
import { checkpoint, entry, publicKeyPem, seal } from './fixture.js';

describe('canonical form v1', () => {
  it('has every key, absent values as null, redactable values only as digests', () => {
    const [sealed] = seal(
      [
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
      ],
      1,
      GENESIS_HASH,
      1,
    );
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

  it('is the JCS of the v1 object, whatever is present or absent', () => {
    const variants: Partial<ChainEntry>[] = [
      {},
      { context: {} },
      { context: { location: {} } },
      { context: { ip: '::1', userAgent: 'ua "quoted" ☃', location: { region: 'BE' } } },
      { actor: { type: 'anonymous' }, target: {}, traceId: 't', ingestedBy: null },
      { target: { type: 'doc' }, context: { location: { coordinates: { lat: -0.5, lng: 1e-7 } } } },
    ];
    for (const variant of variants) {
      const [sealed] = seal([entry(7, variant)], 7, GENESIS_HASH, 1);
      const e = sealed as ChainEntry;
      const location = e.context?.location;
      expect(canonicalForm(e)).toBe(
        jcs({
          v: 1,
          seq: e.seq,
          id: e.id,
          timestamp: e.timestamp,
          event: e.event,
          origin: e.origin,
          ingestedBy: e.ingestedBy ?? null,
          receivedAt: e.receivedAt ?? null,
          actor: { type: e.actor.type, id: e.actor.id ?? null },
          target: { type: e.target?.type ?? null },
          context: {
            ip: e.context?.ip ?? null,
            userAgent: e.context?.userAgent ?? null,
            location: {
              city: location?.city ?? null,
              country: location?.country ?? null,
              region: location?.region ?? null,
              lat: location?.coordinates?.lat ?? null,
              lng: location?.coordinates?.lng ?? null,
            },
          },
          result: e.result,
          traceId: e.traceId ?? null,
          digests: e.digests,
        }),
      );
    }
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

describe('canonical form v2', () => {
  const v2Object = (e: ChainEntry, fields: string[], metadataKeys: string[]) => ({
    ...JSON.parse(canonicalFormV1(e)),
    v: 2,
    fields,
    metadataKeys,
  });

  it('is the JCS of the v1 object with v 2, the fields present and the metadata keys', () => {
    const [sealed] = seal([
      entry(3, {
        actor: { type: 'user', id: 'user_1', email: 'ada@example.com' },
        target: { type: 'document', id: 'doc_7' },
        context: { ip: '203.0.113.9', location: { coordinates: { lat: 47.37, lng: 8.54 } } },
        metadata: { z: 1, a: { nested: true }, é: null },
      }),
    ]);
    const e = sealed as ChainEntry;
    expect(e.canonicalVersion).toBe(2);
    expect(canonicalForm(e)).toBe(
      jcs(
        v2Object(
          e,
          [
            'actor.id',
            'actor.type',
            'context.ip',
            'context.location.coordinates.lat',
            'context.location.coordinates.lng',
            'event',
            'id',
            'ingestedBy',
            'origin',
            'receivedAt',
            'result',
            'target.type',
            'timestamp',
          ],
          ['a', 'z', 'é'],
        ),
      ),
    );
  });

  it('lists the same fields by its fast path as by walking the entry, whatever it holds', () => {
    const variants: Record<string, unknown>[] = [
      {},
      { context: {} },
      { context: { location: { region: 'BE' } }, traceId: 't' },
      { actor: { type: 'anonymous' }, target: undefined, ingestedBy: undefined },
      { approvedBy: 'ceo' },
      { actor: { type: 'user', id: { nested: 1 } } },
      { context: 'flat' },
      { context: { location: { coordinates: { lat: 1, lng: 2, alt: 3 } } } },
    ];
    for (const variant of variants) {
      const [sealed] = seal([entry(9)]);
      const e = { ...(sealed as ChainEntry), ...variant } as ChainEntry;
      expect(canonicalForm(e), JSON.stringify(variant)).toBe(
        jcs(v2Object(e, presentFields(e), metadataKeys(e))),
      );
    }
  });

  it('changes with a field added, null or not, known or not, and with a metadata key', () => {
    const [sealed] = seal([entry(4)]);
    const e = sealed as ChainEntry;
    const form = canonicalForm(e);
    for (const change of [
      (x: ChainEntry) => Object.assign(x, { traceId: null }),
      (x: ChainEntry) => Object.assign(x, { approvedBy: 'ceo' }),
      (x: ChainEntry) => Object.assign(x.actor, { role: 'admin' }),
      (x: ChainEntry) => Object.assign(x.metadata as object, { ghost: REDACTED }),
      (x: ChainEntry) => delete (x.metadata as Record<string, unknown>).n,
    ]) {
      const changed = structuredClone(e);
      change(changed);
      expect(canonicalForm(changed)).not.toBe(form);
      expect(canonicalFormV1(changed)).toBe(canonicalFormV1(e));
    }
    // Redaction removes actor.email's and target.id's values: the form stays.
    const redacted = structuredClone(e);
    redacted.actor.email = null;
    delete redacted.target?.id;
    (redacted.metadata as Record<string, unknown>).n = REDACTED;
    expect(canonicalForm(redacted)).toBe(form);
    // An export without metadata: the keys come from the digests.
    const { metadata: _, ...withoutMetadata } = e;
    expect(canonicalForm(withoutMetadata as ChainEntry)).toBe(form);
  });
});

describe('the worked example of the OpenAPI document (tag "Audit logs")', () => {
  const salts = {
    'actor.email': '6f1c2a9d4e8b7035a1c4e2f9b8d3a7c1',
    'target.id': '0b9e4d2c7a1f8e3560d2c9b4a7e1f3d8',
    'metadata.mfa': 'c3a8e1f4b7d2096e5a1c8f3b6e9d4a27',
  };
  const example: ChainEntry = {
    id: 'log_01jf3k8m6q2w9x4v7t5r1n0b3e',
    timestamp: '2026-11-25T21:00:00.123Z',
    event: 'user.login',
    actor: { id: 'user_01jf3k8m6q2w9x4v7t5r1n0b3c', email: 'ada@example.com', type: 'user' },
    target: { id: 'sess_8f2a', type: 'session' },
    context: {
      ip: '203.0.113.7',
      userAgent: 'Mozilla/5.0',
      location: {
        city: 'Berlin',
        country: 'DE',
        region: 'Berlin',
        coordinates: { lat: 52.52, lng: 13.405 },
      },
    },
    result: 'success',
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    origin: 'api',
    ingestedBy: 'key_01jf3k8m6q2w9x4v7t5r1n0b3g',
    receivedAt: '2026-11-25T21:00:00.456Z',
    metadata: { mfa: 'totp' },
    seq: 1,
    prevHash: GENESIS_HASH,
    hash: '40d0584de5ebf32bc1bed4cfd165e3d0173f5dd4e0ffd9344b75f80a971303ce',
    digests: {
      'actor.email': 'b220010dbba9a4bf55f17438a3731ab87d4d1c1d22552dbec124af253497a821',
      'target.id': 'b6ae827b7481b95bc5bf8ec6c171d6fa3e79796d8b6f93b7ee5e875161355181',
      'metadata.mfa': '1fccc158117c46d6686da977729ba345365b5b6e9ec8d3c48fcc775e605c2324',
    },
    salts,
  };
  const canonical =
    '{"actor":{"id":"user_01jf3k8m6q2w9x4v7t5r1n0b3c","type":"user"},"context":{"ip":"203.0.113.7",' +
    '"location":{"city":"Berlin","country":"DE","lat":52.52,"lng":13.405,"region":"Berlin"},' +
    '"userAgent":"Mozilla/5.0"},"digests":{' +
    '"actor.email":"b220010dbba9a4bf55f17438a3731ab87d4d1c1d22552dbec124af253497a821",' +
    '"metadata.mfa":"1fccc158117c46d6686da977729ba345365b5b6e9ec8d3c48fcc775e605c2324",' +
    '"target.id":"b6ae827b7481b95bc5bf8ec6c171d6fa3e79796d8b6f93b7ee5e875161355181"},' +
    '"event":"user.login","id":"log_01jf3k8m6q2w9x4v7t5r1n0b3e",' +
    '"ingestedBy":"key_01jf3k8m6q2w9x4v7t5r1n0b3g","origin":"api",' +
    '"receivedAt":"2026-11-25T21:00:00.456Z","result":"success","seq":1,' +
    '"target":{"type":"session"},"timestamp":"2026-11-25T21:00:00.123Z",' +
    '"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","v":1}';
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('has these digests, canonical form, hash and signature', async () => {
    expect(sha256('6f1c2a9d4e8b7035a1c4e2f9b8d3a7c1:"ada@example.com"')).toBe(
      example.digests['actor.email'],
    );
    expect(fieldDigest(salts['metadata.mfa'], 'totp')).toBe(example.digests['metadata.mfa']);
    expect(fieldDigest(salts['target.id'], 'sess_8f2a')).toBe(example.digests['target.id']);
    expect(canonicalForm(example)).toBe(canonical);
    expect(sha256(`${GENESIS_HASH}\n${canonical}`)).toBe(example.hash);
    const signed = checkpoint(1, example.hash as string);
    expect(signed.signature).toBe(
      '7QWFmyzKtPJ5xDn0613j/wyMS+jZ7UVCSzc+US0Bl/K4+vRk7oDGz3f1+rfWwASv9gQV/sxKIV1bCnhvubniCQ==',
    );
    expect(publicKeyPem).toBe(
      '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAebVWLo/mVPlAeLES6KmLp5AfhTrmlb7X4OORC60ElmQ=\n-----END PUBLIC KEY-----\n',
    );
    expect(await verifyChain({ entries: [example], checkpoints: [signed], publicKeyPem })).toEqual({
      valid: true,
      checkedEntries: 1,
      lastCheckpointSeq: 1,
      pinnedKey: null,
      unsealedEntries: 0,
      uncoveredEntries: 0,
      truncatedEntries: 0,
    });
  });

  it('v2: the same entry sealed now has these fields, metadata keys, canonical form, hash and signature', async () => {
    const v2: ChainEntry = {
      ...example,
      canonicalVersion: 2,
      hash: '7a285f9b996a8a19a22b0f94d20d27cacd59c276d24013a4ddc230730ca797fd',
    };
    const canonicalV2 =
      '{"actor":{"id":"user_01jf3k8m6q2w9x4v7t5r1n0b3c","type":"user"},"context":{"ip":"203.0.113.7",' +
      '"location":{"city":"Berlin","country":"DE","lat":52.52,"lng":13.405,"region":"Berlin"},' +
      '"userAgent":"Mozilla/5.0"},"digests":{' +
      '"actor.email":"b220010dbba9a4bf55f17438a3731ab87d4d1c1d22552dbec124af253497a821",' +
      '"metadata.mfa":"1fccc158117c46d6686da977729ba345365b5b6e9ec8d3c48fcc775e605c2324",' +
      '"target.id":"b6ae827b7481b95bc5bf8ec6c171d6fa3e79796d8b6f93b7ee5e875161355181"},' +
      '"event":"user.login","fields":["actor.id","actor.type","context.ip",' +
      '"context.location.city","context.location.coordinates.lat",' +
      '"context.location.coordinates.lng","context.location.country","context.location.region",' +
      '"context.userAgent","event","id","ingestedBy","origin","receivedAt","result",' +
      '"target.type","timestamp","traceId"],"id":"log_01jf3k8m6q2w9x4v7t5r1n0b3e",' +
      '"ingestedBy":"key_01jf3k8m6q2w9x4v7t5r1n0b3g","metadataKeys":["mfa"],"origin":"api",' +
      '"receivedAt":"2026-11-25T21:00:00.456Z","result":"success","seq":1,' +
      '"target":{"type":"session"},"timestamp":"2026-11-25T21:00:00.123Z",' +
      '"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","v":2}';
    expect(canonicalForm(v2)).toBe(canonicalV2);
    expect(sha256(`${GENESIS_HASH}\n${canonicalV2}`)).toBe(v2.hash);
    const signed = checkpoint(1, v2.hash as string);
    expect(signed.signature).toBe(
      'JqjfCrLQoMkVH67dYhFzOXu/2JqxwqXXrBQn5jeBBTP/zlLS8c1AE6n9GigxUqUc6HIJauFopmsUrva+HiVzCQ==',
    );
    expect(await verifyChain({ entries: [v2], checkpoints: [signed], publicKeyPem })).toEqual({
      valid: true,
      checkedEntries: 1,
      lastCheckpointSeq: 1,
      pinnedKey: null,
      unsealedEntries: 0,
      uncoveredEntries: 0,
      truncatedEntries: 0,
    });
    // Marked v1, the v2 entry no longer matches its hash (and the other way round).
    expect(
      await verifyChain({
        entries: [{ ...v2, canonicalVersion: 1 }],
        checkpoints: [signed],
        publicKeyPem,
      }),
    ).toMatchObject({ valid: false, reason: 'hash of seq 1 does not match its content' });
  });
});
