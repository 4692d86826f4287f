import proxyAddr from '@fastify/proxy-addr';
import { Cache } from '../lib/cache.ts';

/**
 * Fastify's trustProxy check for the configured proxies (IPs or CIDRs), with
 * its answer remembered per address. Fastify works out `request.ip` anew on
 * each read, and proxy-addr parses every address it tests against the list;
 * behind a proxy the same few addresses (the proxy's own) are tested on every
 * request. The decision depends only on the address, as in proxy-addr.
 */
export function rememberedTrust(proxies: readonly string[]): (address: string, hop: number) => boolean {
  const trusted = proxyAddr.compile([...proxies]);
  // many client addresses pass through, but the proxies' own are asked about on every request
  const memo = new Cache<string, boolean>({
    name: 'trust-proxy-decision',
    max: 10_000,
    invalidatedBy: 'never: a pure function of the address (the proxy list is fixed per app)',
  });
  return (address, hop) => {
    let t = memo.get(address);
    if (t === undefined) {
      t = trusted(address, hop);
      memo.set(address, t);
    }
    return t;
  };
}
