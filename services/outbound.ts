import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The guard on the service's own outbound requests (merchants' webhooks,
 * services/webhooks.ts; shops' product feeds, services/feed-fetch.ts): which
 * addresses are not on the internet, and a DNS lookup that refuses them and
 * pins the connection to the address it checked.
 */

// addresses no merchant's URL may reach unless the operator allows it; the clouds' metadata services
// among them: 169.254.169.254 (AWS, GCP, Azure, Oracle, DigitalOcean…) and 169.254.170.2 (AWS ECS) in
// 169.254/16, 100.100.100.200 (Alibaba) in 100.64/10, 192.0.0.192 (Oracle) in 192.0.0/24,
// fd00:ec2::254 (AWS) and fd20:ce::254 (GCP) in fc00::/7, and Azure's host address 168.63.129.16
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['168.63.129.16', 32],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  // unspecified, loopback and the IPv4-compatible ::a.b.c.d
  ['::', 96],
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  // NAT64, Teredo and 6to4 carry an IPv4 address inside
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2001::', 32],
  ['2002::', 16],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** Loopback, private, link-local, shared, multicast or unspecified: not an address on the internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/** A URL's host as a lookup or an address check takes it: an IPv6 literal without its brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '');

/** A host that names a loopback or private place by itself: `localhost`, `*.localhost` or such an address. */
export function namesPrivateHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isPrivateAddress(host));
}

/**
 * A DNS lookup for outbound requests: it fails when any address the name
 * resolves to is private (unless allowed), and the request connects to the
 * address checked, so a name cannot be re-pointed between check and use.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as { address: string; family: number }[];
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (!allowPrivate && (bad || list.length === 0)) {
        const e = Object.assign(new Error(`refused: ${hostname} resolves to a private address`), {
          code: 'EPRIVATE',
        });
        return callback(e, '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as (e: null, a: typeof list) => void)(null, list);
      const first = list[0] as { address: string; family: number };
      callback(null, first.address, first.family);
    });
  };
}
