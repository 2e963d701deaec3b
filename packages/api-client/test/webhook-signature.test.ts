import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature, WebhookVerificationError } from '../src/index.js';
import { SECRET, signedHeaders } from './stream-fixture.js';

// The test vectors of the Standard Webhooks libraries (libraries/javascript/src/webhook.test.ts,
// libraries/python/tests/test_webhooks.py in github.com/standard-webhooks/standard-webhooks).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const AT_VECTOR = { now: VECTOR.timestamp * 1000 };
const vectorHeaders = (signature = VECTOR.signature, timestamp = String(VECTOR.timestamp)) => ({
  'webhook-id': VECTOR.id,
  'webhook-timestamp': timestamp,
  'webhook-signature': signature,
});

async function reason(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe('the Standard Webhooks test vectors', () => {
  it('signs the published vector', async () => {
    expect(await signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload)).toBe(
      VECTOR.signature,
    );
  });

  it('verifies the published vector, with and without the whsec_ prefix', async () => {
    for (const secret of [VECTOR.secret, VECTOR.secret.slice('whsec_'.length)])
      expect(
        await verifyWebhookSignature(secret, vectorHeaders(), VECTOR.payload, AT_VECTOR),
      ).toEqual({ id: VECTOR.id, timestamp: VECTOR.timestamp });
  });

  it('verifies raw bytes and a Fetch Headers object alike', async () => {
    const headers = new Headers(vectorHeaders());
    const bytes = new TextEncoder().encode(VECTOR.payload);
    await expect(verifyWebhookSignature(VECTOR.secret, headers, bytes, AT_VECTOR)).resolves.toEqual(
      {
        id: VECTOR.id,
        timestamp: VECTOR.timestamp,
      },
    );
  });

  it('refuses the vector with one bit of the signature changed (the Python suite’s forgery)', async () => {
    const forged = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=';
    expect(
      await reason(
        verifyWebhookSignature(VECTOR.secret, vectorHeaders(forged), VECTOR.payload, AT_VECTOR),
      ),
    ).toBe('no v1 signature in webhook-signature matches');
  });

  it('refuses a changed body, id or secret', async () => {
    await reason(
      verifyWebhookSignature(VECTOR.secret, vectorHeaders(), '{"test": 2432232315}', AT_VECTOR),
    );
    await reason(
      verifyWebhookSignature(
        VECTOR.secret,
        { ...vectorHeaders(), 'webhook-id': 'msg_other' },
        VECTOR.payload,
        AT_VECTOR,
      ),
    );
    await reason(verifyWebhookSignature(SECRET, vectorHeaders(), VECTOR.payload, AT_VECTOR));
  });

  it('refuses a partial signature, an empty one and one of another version', async () => {
    for (const signature of [
      VECTOR.signature.slice(0, 8),
      'v1,',
      'v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      'v1,dawfeoifkpqwoekfpqoekf',
    ])
      expect(
        await reason(
          verifyWebhookSignature(
            VECTOR.secret,
            vectorHeaders(signature),
            VECTOR.payload,
            AT_VECTOR,
          ),
        ),
      ).toBe('no v1 signature in webhook-signature matches');
  });

  it('accepts any matching signature among several (the multi-signature vector)', async () => {
    const signatures = [
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
      VECTOR.signature,
      'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
    ].join(' ');
    await expect(
      verifyWebhookSignature(VECTOR.secret, vectorHeaders(signatures), VECTOR.payload, AT_VECTOR),
    ).resolves.toMatchObject({ id: VECTOR.id });
  });

  it('refuses a timestamp more than 5 minutes old or ahead, and accepts one within', async () => {
    const at = (seconds: number) => ({ now: (VECTOR.timestamp + seconds) * 1000 });
    expect(
      await reason(verifyWebhookSignature(VECTOR.secret, vectorHeaders(), VECTOR.payload, at(301))),
    ).toBe('webhook-timestamp is too old');
    expect(
      await reason(
        verifyWebhookSignature(VECTOR.secret, vectorHeaders(), VECTOR.payload, at(-301)),
      ),
    ).toBe('webhook-timestamp is in the future');
    await expect(
      verifyWebhookSignature(VECTOR.secret, vectorHeaders(), VECTOR.payload, at(300)),
    ).resolves.toBeDefined();
    await expect(
      verifyWebhookSignature(VECTOR.secret, vectorHeaders(), VECTOR.payload, at(-300)),
    ).resolves.toBeDefined();
  });

  it('refuses a missing header and a timestamp that is not Unix seconds', async () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const headers: Record<string, string> = vectorHeaders();
      delete headers[name];
      expect(
        await reason(verifyWebhookSignature(VECTOR.secret, headers, VECTOR.payload, AT_VECTOR)),
      ).toBe(`${name} is missing`);
    }
    for (const timestamp of ['hello', '1614265330.5', '-1614265330', ' 1614265330'])
      expect(
        await reason(
          verifyWebhookSignature(
            VECTOR.secret,
            vectorHeaders(VECTOR.signature, timestamp),
            VECTOR.payload,
            AT_VECTOR,
          ),
        ),
      ).toBe('webhook-timestamp is not Unix seconds');
  });

  it('refuses a header given twice (Node lists them as an array)', async () => {
    const headers = { ...vectorHeaders(), 'webhook-id': [VECTOR.id, 'msg_other'] };
    expect(
      await reason(verifyWebhookSignature(VECTOR.secret, headers, VECTOR.payload, AT_VECTOR)),
    ).toBe('webhook-id is given more than once');
  });

  it('throws a TypeError for a secret that is not one, before reading the request', async () => {
    for (const secret of ['', 'whsec_', 'whsec_not base64!'])
      await expect(
        verifyWebhookSignature(secret, vectorHeaders(), VECTOR.payload, AT_VECTOR),
      ).rejects.toThrow(TypeError);
  });

  it('never puts the secret in an error', async () => {
    const error = await verifyWebhookSignature(
      SECRET,
      vectorHeaders(),
      VECTOR.payload,
      AT_VECTOR,
    ).catch((e: Error) => e);
    expect(String((error as Error).message)).not.toContain(SECRET.slice('whsec_'.length, 20));
  });
});

describe('a rotation', () => {
  it('verifies with the old secret or the new one when the header carries both signatures', async () => {
    const next = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    const headers = signedHeaders('msg_x', '{}', [SECRET, next]);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    await expect(verifyWebhookSignature(SECRET, headers, '{}')).resolves.toMatchObject({
      id: 'msg_x',
    });
    await expect(verifyWebhookSignature(next, headers, '{}')).resolves.toMatchObject({
      id: 'msg_x',
    });
    const third = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    await reason(verifyWebhookSignature(third, headers, '{}'));
  });
});
