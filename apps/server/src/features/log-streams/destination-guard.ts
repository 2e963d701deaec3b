import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery (OWASP API7): a stream may reach only public addresses unless
 * the operator allows private networks. `ipaddr.js` (the parser Express's proxy-addr uses)
 * names the range of every address, IPv4-mapped IPv6 included, so the rule is a list of
 * allowed ranges rather than hand-written masks (`isPublicAddress` says which IPv6 forms
 * embedding an IPv4 address are judged how).
 */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** RFC 4291's deprecated IPv4-compatible form `::a.b.c.d` (`::` and `::1` are in it too). */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * `::a.b.c.d` as Node reads it (IPv4-compatible): ipaddr.js reads a dotted tail after a bare
 * `::` as IPv4-mapped, so the tail is written in hex before ipaddr.js parses it. Node has
 * already checked the text (`isIP`), so the tail is four decimal octets.
 */
function hexTail(address: string): string {
  return address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)]
      .map((group) => group.toString(16))
      .join(':'),
  );
}

/**
 * The IPv4 address of an ISATAP interface identifier (RFC 5214: `0000:5efe` or `0200:5efe`,
 * then the address), which an ISATAP router forwards to inside its site.
 */
function isatapIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const [, , , , high, low] = address.parts;
  if ((high !== 0 && high !== 0x200) || low !== 0x5efe) return undefined;
  return ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4;
}

/**
 * Only globally routable unicast; every other range (loopback, private, CGNAT, …) is refused.
 * An IPv6 address that embeds an IPv4 one is refused when that IPv4 address is: IPv4-mapped
 * addresses are judged as their IPv4 address; IPv4-compatible ones (deprecated, routed
 * nowhere) are refused whatever they hold; NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4
 * (`2002::/16`) and Teredo (`2001::/32`) are ranges of their own to ipaddr.js, not `unicast`,
 * so they are refused whatever they embed (a tunnel reaches a network behind the embedded
 * address, not only that address); an ISATAP interface identifier is judged by its IPv4 address.
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  // A zone index (`fe80::1%eth0`) scopes an address to a link: never public.
  if (family === 0 || address.includes('%')) return false;
  const parsed = ipaddr.parse(family === 6 ? hexTail(address) : address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  if (v6.range() !== 'unicast' || v6.match(IPV4_COMPATIBLE)) return false;
  const embedded = isatapIPv4(v6);
  return embedded === undefined || embedded.range() === 'unicast';
}

export class DestinationRefused extends Error {}

export interface GuardOptions {
  allowPrivateNetworks: boolean;
  resolve: Resolve;
}

/** The URL's form: https (http too with private networks allowed), no user info. */
export function urlProblem(text: string, allowPrivateNetworks: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return 'must be an https: URL';
  if (url.username || url.password) return 'must not hold a user name or password';
  if (!url.hostname) return 'must name a host';
  return undefined;
}

/** `[::1]` → `::1`: the host as an address or a name to resolve. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * The addresses a connection to `hostname` may use: every address it resolves to, each checked.
 * Throws `DestinationRefused` when one is not public (unless private networks are allowed).
 */
export async function checkedAddresses(hostname: string, options: GuardOptions): Promise<string[]> {
  const addresses = isIP(hostname) ? [hostname] : await options.resolve(hostname);
  if (addresses.length === 0) throw new DestinationRefused('the host has no address');
  if (!options.allowPrivateNetworks) {
    for (const address of addresses)
      if (!isPublicAddress(address))
        throw new DestinationRefused('the host resolves to an address that is not public');
  }
  return addresses;
}
