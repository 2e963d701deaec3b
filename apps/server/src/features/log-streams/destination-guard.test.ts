import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialBox, newWebhookSecret, webhookSignature } from './crypto.js';
import { backoffMs } from './deliverer.js';
import {
  checkedAddresses,
  isPublicAddress,
  type Resolve,
  urlProblem,
} from './destination-guard.js';
import { send } from './sender.js';

describe('the SSRF rules of log-stream destinations', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    'fe80::1%eth0',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  /** IPv6 forms that embed an IPv4 address, with the refused address each stands for. */
  it.each([
    ['IPv4-compatible', '::127.0.0.1', '127.0.0.1'],
    ['IPv4-compatible', '::7f00:1', '127.0.0.1'],
    ['IPv4-compatible', '::10.0.0.1', '10.0.0.1'],
    ['IPv4-compatible', '::a9fe:a9fe', '169.254.169.254'],
    ['NAT64, well-known prefix', '64:ff9b::7f00:1', '127.0.0.1'],
    ['NAT64, well-known prefix', '64:ff9b::10.0.0.1', '10.0.0.1'],
    ['NAT64, local-use prefix', '64:ff9b:1:a00:1::', '10.0.0.1'],
    ['6to4', '2002:7f00:1::1', '127.0.0.1'],
    ['6to4', '2002:a9fe:a9fe::1', '169.254.169.254'],
    // Teredo: server 65.54.227.120, client 10.0.0.1 (its last 32 bits XOR 0xffffffff).
    ['Teredo', '2001:0:4136:e378:8000:63bf:f5ff:fffe', '10.0.0.1'],
    ['ISATAP', '2a00:1450:4001:81d::5efe:7f00:1', '127.0.0.1'],
    ['ISATAP', '2a00:1450:4001:81d:200:5efe:a00:1', '10.0.0.1'],
  ])('refuses the %s form %s of %s', (_form, address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:81d::200e',
    '2a00:1450:4001:81d::5efe:808:808',
    '::ffff:8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses a host when any one of its addresses is not public', async () => {
    const resolve: Resolve = async () => ['93.184.216.34', '10.0.0.7'];
    await expect(
      checkedAddresses('mixed.example', { allowPrivateNetworks: false, resolve }),
    ).rejects.toThrow(/not public/);
    await expect(checkedAddresses('::1', { allowPrivateNetworks: false, resolve })).rejects.toThrow(
      /not public/,
    );
  });

  it('wants https without user info, and http only with private networks allowed', () => {
    expect(urlProblem('http://siem.example/hook', false)).toMatch(/https/);
    expect(urlProblem('http://siem.example/hook', true)).toBeUndefined();
    expect(urlProblem('https://user:pw@siem.example/hook', false)).toMatch(/user name/);
    expect(urlProblem('file:///etc/passwd', true)).toMatch(/https/);
    expect(urlProblem('not a url', false)).toMatch(/absolute/);
    expect(urlProblem('https://siem.example/hook', false)).toBeUndefined();
  });
});

describe('a delivery connection', () => {
  let receiver: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      hits++;
      req.resume();
      req.on('end', () =>
        req.url === '/moved'
          ? res.writeHead(302, { location: `http://127.0.0.1:${port}/hook` }).end()
          : res.writeHead(204).end(),
      );
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('is refused when the DNS answer turns private between the write-time check and the connection', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const resolve: Resolve = async () => answers.shift() ?? [];
    const guard = { allowPrivateNetworks: false, resolve };
    await expect(checkedAddresses('rebind.example', guard)).resolves.toEqual(['93.184.216.34']);
    const before = hits;
    const outcome = await send(`http://rebind.example:${port}/hook`, {}, '{}', {
      ...guard,
      timeoutMs: 5_000,
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(/refused/);
    expect(hits).toBe(before);
  });

  it('connects to the address it checked, without asking DNS again', async () => {
    let asked = 0;
    const resolve: Resolve = async () => {
      asked++;
      return asked === 1 ? ['127.0.0.1'] : ['10.255.255.1'];
    };
    const outcome = await send(`http://receiver.test:${port}/hook`, {}, '{}', {
      allowPrivateNetworks: true,
      resolve,
      timeoutMs: 5_000,
    });
    expect(outcome).toMatchObject({ ok: true, httpStatus: 204 });
    expect(asked).toBe(1);
  });

  it('does not follow a redirect: a 3xx is a failed delivery', async () => {
    const before = hits;
    const outcome = await send(`http://127.0.0.1:${port}/moved`, {}, '{}', {
      allowPrivateNetworks: true,
      resolve: async () => [],
      timeoutMs: 5_000,
    });
    expect(outcome).toMatchObject({ ok: false, httpStatus: 302 });
    expect(hits).toBe(before + 1);
  });

  it('refuses loopback literals, IPv4-mapped ones included, without private networks', async () => {
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]']) {
      const before = hits;
      const outcome = await send(`http://${host}:${port}/hook`, {}, '{}', {
        allowPrivateNetworks: false,
        resolve: async () => [],
        timeoutMs: 5_000,
      });
      expect(outcome.ok, host).toBe(false);
      expect(hits, host).toBe(before);
    }
  });

  it('refuses at the connection IPv6 forms that embed a refused IPv4 address, as literals and as DNS answers', async () => {
    for (const address of [
      '::127.0.0.1',
      '::10.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:80ff:fffe',
      '2a00:1450:4001:81d::5efe:7f00:1',
    ]) {
      for (const target of [`https://[${address}]/hook`, 'https://embedded.example/hook']) {
        const outcome = await send(target, {}, '{}', {
          allowPrivateNetworks: false,
          resolve: async () => [address],
          timeoutMs: 5_000,
        });
        expect(outcome, `${address} via ${target}`).toMatchObject({
          ok: false,
          error: 'refused: the host resolves to an address that is not public',
        });
      }
    }
  });
});

describe('webhook signatures and stored credentials', () => {
  it('signs as the Standard Webhooks test vector says', () => {
    // libraries/javascript/src/webhook.test.ts, "sign function works", of standard-webhooks.
    expect(
      webhookSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('stores a credential that opens only for its own stream and server secret', () => {
    const box = new CredentialBox('server secret');
    const sealed = box.seal('lst_a', 'whsec_value');
    expect(sealed).not.toContain('whsec_value');
    expect(box.open('lst_a', sealed)).toBe('whsec_value');
    expect(() => box.open('lst_b', sealed)).toThrow();
    expect(() => new CredentialBox('another secret').open('lst_a', sealed)).toThrow();
  });

  it('backs off from the base, doubling, up to the bound, within ±20 %', () => {
    expect(backoffMs(1, 1000, 300_000, () => 0.5)).toBe(1000);
    expect(backoffMs(4, 1000, 300_000, () => 0.5)).toBe(8000);
    expect(backoffMs(30, 1000, 300_000, () => 0.5)).toBe(300_000);
    expect(backoffMs(1, 1000, 300_000, () => 0)).toBe(800);
    expect(backoffMs(1, 1000, 300_000, () => 1)).toBe(1200);
  });
});
