import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery (OWASP API7): a stream may reach only public addresses unless
 * the operator allows private networks. `ipaddr.js` (the parser Express's proxy-addr uses)
 * names the range of every address, IPv4-mapped IPv6 included, so the rule is a list of
 * allowed ranges rather than hand-written masks.
 */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Only globally routable unicast; every other range (loopback, private, CGNAT, …) is refused. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
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
