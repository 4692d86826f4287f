/**
 * Allowed browser origins of a widget key.
 *
 * A pattern is an exact origin (`https://shop.example`, `http://localhost:5173`)
 * or a wildcard on the leftmost labels (`https://*.shop.example`, which matches
 * `https://www.shop.example` and `https://a.b.shop.example` but not the apex
 * `https://shop.example`, nor `https://evilshop.example`), never directly under a
 * public suffix of the Public Suffix List (`https://*.myshopify.com`,
 * `https://*.github.io`, `https://*.com.sa`: every site there, not one shop's).
 * `*` alone allows any origin and is accepted on test keys only.
 *
 * An origin check stops another website's pages from using a key copied from
 * a merchant's page; it is not authentication: any non-browser client can send
 * any Origin header.
 */

import { getPublicSuffix } from 'tldts';

export const ANY_ORIGIN = '*';

export type OriginPatternResult = { ok: true; pattern: string } | { ok: false; reason: string };

/** Validates and normalises one pattern (lower case, no default port, no path). */
export function normalizeOriginPattern(input: string): OriginPatternResult {
  const raw = input.trim();
  if (raw === ANY_ORIGIN) return { ok: true, pattern: ANY_ORIGIN };
  const m = /^(https?):\/\/(\*\.)?([^/?#\s]+)\/?$/i.exec(raw);
  if (!m) {
    return {
      ok: false,
      reason: `"${raw}" is not an origin: use scheme://host[:port], e.g. https://shop.example or https://*.shop.example`,
    };
  }
  const [, scheme, wildcard, hostPort] = m;
  let url: URL;
  try {
    url = new URL(`${scheme}://${hostPort}`);
  } catch {
    return { ok: false, reason: `"${raw}" has an invalid host` };
  }
  if (url.username || url.password) return { ok: false, reason: `"${raw}" must not carry credentials` };
  const host = url.hostname;
  if (!/^([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])$/.test(host)) {
    return { ok: false, reason: `"${raw}" has an invalid host` };
  }
  if (wildcard && (host.startsWith('[') || /^[\d.]+$/.test(host) || !host.includes('.'))) {
    return { ok: false, reason: `"${raw}": a wildcard needs a domain with at least two labels after it` };
  }
  // "*.github.io", "*.myshopify.com", "*.com.sa": every site under a public suffix, not one merchant's
  if (wildcard && getPublicSuffix(host, { allowPrivateDomains: true }) === host) {
    return {
      ok: false,
      reason: `"${raw}": ${host} is a public suffix (anyone can have a site under it); name the shop's own domain, e.g. https://my-shop.${host}`,
    };
  }
  return { ok: true, pattern: `${url.protocol}//${wildcard ? '*.' : ''}${url.host}` };
}

/** The request's Origin in the normalised form, or null when it is not a usable origin. */
export function normalizeOrigin(origin: string): string | null {
  if (origin === 'null') return null;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.pathname !== '/' || url.search || url.hash || url.username) return null;
    return `${url.protocol}//${url.host}`;
  } catch {
    return null;
  }
}

/**
 * Wildcard suffixes (".github.io:443") that are a public suffix: a key stored
 * with one before such patterns were refused never matches through it.
 */
const publicSuffixes = new Map<string, boolean>();
function underPublicSuffix(suffix: string): boolean {
  let known = publicSuffixes.get(suffix);
  if (known === undefined) {
    const host = suffix.slice(1).replace(/:\d+$/, '');
    known = getPublicSuffix(host, { allowPrivateDomains: true }) === host;
    // patterns come from the operator, not from requests: a few hundred at most
    if (publicSuffixes.size < 10_000) publicSuffixes.set(suffix, known);
  }
  return known;
}

export function originAllowed(origin: string, patterns: readonly string[]): boolean {
  const normalized = normalizeOrigin(origin);
  if (!normalized) return patterns.includes(ANY_ORIGIN);
  for (const pattern of patterns) {
    if (pattern === ANY_ORIGIN || pattern === normalized) return true;
    const star = pattern.indexOf('://*.');
    if (star === -1) continue;
    const scheme = pattern.slice(0, star + 3);
    // ".shop.example[:port]": the port is part of the suffix, so it must match too
    const suffix = pattern.slice(star + 4);
    if (!normalized.startsWith(scheme) || underPublicSuffix(suffix)) continue;
    const hostPort = normalized.slice(scheme.length);
    if (hostPort.length > suffix.length && hostPort.endsWith(suffix)) return true;
  }
  return false;
}
