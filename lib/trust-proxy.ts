import proxyAddr from '@fastify/proxy-addr';

/** how many addresses the trust decision is remembered for before the memory starts afresh */
const REMEMBERED = 10_000;

/**
 * Fastify's trustProxy check for the configured proxies (IPs or CIDRs), with
 * its answer remembered per address. Fastify works out `request.ip` anew on
 * each read, and proxy-addr parses every address it tests against the list;
 * behind a proxy the same few addresses (the proxy's own) are tested on every
 * request. The decision depends only on the address, as in proxy-addr.
 */
export function rememberedTrust(proxies: readonly string[]): (address: string, hop: number) => boolean {
  const trusted = proxyAddr.compile([...proxies]);
  const memo = new Map<string, boolean>();
  return (address, hop) => {
    let t = memo.get(address);
    if (t === undefined) {
      t = trusted(address, hop);
      if (memo.size >= REMEMBERED) memo.clear();
      memo.set(address, t);
    }
    return t;
  };
}
