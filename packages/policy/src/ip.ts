/**
 * IPv4/IPv6 addresses and CIDR blocks as bigints. IPv4-mapped IPv6 (`::ffff:a.b.c.d`)
 * is normalized to IPv4, so one rule covers both spellings.
 */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

export interface CidrBlock {
  version: 4 | 6;
  /** The network address, host bits cleared. */
  network: bigint;
  prefix: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function parseIpv4(text: string): bigint | undefined {
  if (!IPV4.test(text)) return undefined;
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseIpv6(text: string): bigint | undefined {
  if (text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  const lastColon = text.lastIndexOf(':');
  if (lastColon === -1) return undefined;
  let hex = text;
  if (text.includes('.')) {
    // An embedded IPv4 tail (`::ffff:10.1.2.3`) becomes its two 16-bit groups.
    const v4 = parseIpv4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    hex = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = hex.split('::');
  if (halves.length > 2) return undefined;
  let groups: string[];
  if (halves.length === 2) {
    const left = halves[0] === '' ? [] : (halves[0] as string).split(':');
    const right = halves[1] === '' ? [] : (halves[1] as string).split(':');
    const fill = 8 - left.length - right.length;
    if (fill < 1) return undefined;
    groups = [...left, ...Array<string>(fill).fill('0'), ...right];
  } else {
    groups = hex.split(':');
    if (groups.length !== 8) return undefined;
  }
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(Number.parseInt(group, 16));
  }
  return value;
}

export function parseIp(text: string): IpAddress | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return { version: 4, value: v4 };
  const v6 = parseIpv6(text);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { version: 4, value: v6 & 0xffffffffn };
  return { version: 6, value: v6 };
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a bare address (a /32 or /128). */
export function parseCidr(text: string): CidrBlock | undefined {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  const v4 = parseIpv4(addressText);
  const v6 = v4 === undefined ? parseIpv6(addressText) : undefined;
  if (v4 === undefined && v6 === undefined) return undefined;
  let version: 4 | 6 = v4 === undefined ? 6 : 4;
  let bits = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  let prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return undefined;
  let value = (v4 ?? v6) as bigint;
  if (version === 6 && value >> 32n === 0xffffn && prefix >= 96) {
    version = 4;
    bits = 32;
    prefix -= 96;
    value &= 0xffffffffn;
  }
  const hostBits = BigInt(bits - prefix);
  return { version, prefix, network: (value >> hostBits) << hostBits };
}

export function cidrContains(block: CidrBlock, ip: IpAddress): boolean {
  if (block.version !== ip.version) return false;
  const hostBits = BigInt((block.version === 4 ? 32 : 128) - block.prefix);
  return (ip.value >> hostBits) << hostBits === block.network;
}
