import { describe, expect, it } from 'vitest';
import { normalizeOrigin, normalizeOriginPattern, originAllowed } from '../auth/origins.ts';

/**
 * Each rule of auth/origins.ts held by what an operator or a storefront sees:
 * the exact pattern stored, the exact reason a pattern is refused, and which
 * Origin headers a key answers.
 */
describe('normalizeOriginPattern', () => {
  it.each([
    ['  https://Shop.Example  ', 'https://shop.example'],
    ['https://shop.example/', 'https://shop.example'],
    ['https://shop.example:443', 'https://shop.example'],
    ['http://localhost:5173', 'http://localhost:5173'],
    ['https://*.Shop.Example', 'https://*.shop.example'],
    ['https://*.shop.example:8443', 'https://*.shop.example:8443'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    [' * ', '*'],
  ])('%j is stored as %j', (input, pattern) => {
    expect(normalizeOriginPattern(input)).toEqual({ ok: true, pattern });
  });

  it.each([
    ['shop.example', 'is not an origin: use scheme://host[:port], e.g. https://shop.example or https://*.shop.example'],
    [
      'x https://shop.example',
      'is not an origin: use scheme://host[:port], e.g. https://shop.example or https://*.shop.example',
    ],
    [
      'https://shop.example/path',
      'is not an origin: use scheme://host[:port], e.g. https://shop.example or https://*.shop.example',
    ],
    [
      'ftp://shop.example',
      'is not an origin: use scheme://host[:port], e.g. https://shop.example or https://*.shop.example',
    ],
    ['https://user@shop.example', 'must not carry credentials'],
    ['https://:secret@shop.example', 'must not carry credentials'],
    ['https://shop_example.com', 'has an invalid host'],
    ['https://[]', 'has an invalid host'],
    ['https://*.localhost', 'a wildcard needs a domain with at least two labels after it'],
    ['https://*.10.0.0.1', 'a wildcard needs a domain with at least two labels after it'],
    ['https://*.[::1]', 'a wildcard needs a domain with at least two labels after it'],
  ])('%j is refused: %s', (input, reason) => {
    const r = normalizeOriginPattern(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toBe(`"${input.trim()}"${reason.startsWith('a wildcard') ? ': ' : ' '}${reason}`);
  });

  it('refuses a wildcard directly under a public suffix, naming it, and allows one a label further down', () => {
    expect(normalizeOriginPattern('https://*.github.io')).toEqual({
      ok: false,
      reason:
        '"https://*.github.io": github.io is a public suffix (anyone can have a site under it); name the shop\'s own domain, e.g. https://my-shop.github.io',
    });
    expect(normalizeOriginPattern('https://*.shop.github.io')).toEqual({
      ok: true,
      pattern: 'https://*.shop.github.io',
    });
  });
});

describe('normalizeOrigin: what a request’s Origin header is read as', () => {
  it.each([
    ['https://Shop.Example', 'https://shop.example'],
    ['https://shop.example:443', 'https://shop.example'],
    ['http://shop.example:8080', 'http://shop.example:8080'],
  ])('%s is %s', (origin, normalized) => {
    expect(normalizeOrigin(origin)).toBe(normalized);
  });

  it.each([
    'null',
    'file:///x',
    'chrome-extension://abc',
    'https://shop.example/a',
    'https://shop.example/?q',
    'https://shop.example/#h',
    'https://u@shop.example',
    'not a url',
  ])('%s is not a usable origin', (origin) => {
    expect(normalizeOrigin(origin)).toBeNull();
  });
});

describe('originAllowed', () => {
  it('a wildcard matches subdomains with the port it names, never the apex, another port or another scheme', () => {
    const patterns = ['https://*.shop.example:8443'];
    expect(originAllowed('https://www.shop.example:8443', patterns)).toBe(true);
    expect(originAllowed('https://a.b.shop.example:8443', patterns)).toBe(true);
    expect(originAllowed('https://shop.example:8443', patterns)).toBe(false);
    expect(originAllowed('https://www.shop.example', patterns)).toBe(false);
    expect(originAllowed('http://www.shop.example:8443', patterns)).toBe(false);
  });

  it('a wildcard stored under a public suffix before such patterns were refused never matches, port or not', () => {
    expect(originAllowed('https://anyone.github.io', ['https://*.github.io'])).toBe(false);
    expect(originAllowed('https://anyone.github.io:8443', ['https://*.github.io:8443'])).toBe(false);
    // asked again (remembered): the same answer
    expect(originAllowed('https://anyone.github.io', ['https://*.github.io'])).toBe(false);
    expect(originAllowed('https://shop.example.github.io', ['https://*.example.github.io'])).toBe(true);
  });

  it('an opaque or unusable Origin passes only "*"', () => {
    expect(originAllowed('null', ['https://shop.example'])).toBe(false);
    expect(originAllowed('null', ['https://shop.example', '*'])).toBe(true);
    expect(originAllowed('https://shop.example/path', ['https://shop.example'])).toBe(false);
  });

  it('exact patterns are compared after normalising both sides; later patterns are tried too', () => {
    expect(originAllowed('https://SHOP.example:443', ['https://other.example', 'https://shop.example'])).toBe(true);
    expect(originAllowed('https://shop.example', ['https://other.example', 'https://*.other.example'])).toBe(false);
  });
});
