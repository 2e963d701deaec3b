import { describe, expect, it } from 'vitest';
import { parseCidr, parseIp } from '../src/index.js';

describe('parseIp / parseCidr', () => {
  it('parses IPv4 and IPv6 and normalizes IPv4-mapped IPv6', () => {
    expect(parseIp('10.0.0.1')).toEqual({ version: 4, value: 0x0a000001n });
    expect(parseIp('::1')).toEqual({ version: 6, value: 1n });
    expect(parseIp('::ffff:10.0.0.1')).toEqual({ version: 4, value: 0x0a000001n });
    expect(parseIp('::ffff:a00:1')).toEqual({ version: 4, value: 0x0a000001n });
    expect(parseIp('2001:db8::8:800:200c:417a')?.version).toBe(6);
  });

  it('rejects what is not an address', () => {
    for (const bad of [
      '',
      '10.0.0',
      '256.0.0.1',
      '01.2.3.4',
      '1::2::3',
      '12345::',
      'x',
      '10.0.0.1/8',
      ':::',
      '1:2:3:4:5:6:7:8:9',
    ]) {
      expect(parseIp(bad), bad).toBeUndefined();
    }
  });

  it('parses CIDR blocks, bare addresses, and rejects bad prefixes', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ version: 4, network: 0x0a000000n, prefix: 8 });
    expect(parseCidr('10.1.2.3/8')).toEqual({ version: 4, network: 0x0a000000n, prefix: 8 });
    expect(parseCidr('10.1.2.3')).toEqual({ version: 4, network: 0x0a010203n, prefix: 32 });
    expect(parseCidr('::ffff:10.0.0.0/104')).toEqual({
      version: 4,
      network: 0x0a000000n,
      prefix: 8,
    });
    expect(parseCidr('2001:db8::/32')?.prefix).toBe(32);
    for (const bad of [
      '10.0.0.0/33',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '::/129',
      'bad/8',
      '10.0.0.0/8/8',
    ]) {
      expect(parseCidr(bad), bad).toBeUndefined();
    }
  });
});
