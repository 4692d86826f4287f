import { describe, expect, it } from 'vitest';
import { normalizeOriginPattern, originAllowed } from '../../auth/origins.ts';

/** A wildcard origin names one merchant's sites, never every site under a public suffix. */
describe('wildcard origins and the Public Suffix List', () => {
  it.each(['https://*.github.io', 'https://*.myshopify.com', 'https://*.com.sa', 'https://*.co.uk'])(
    '%s is refused: anyone can have a site there',
    (pattern) => {
      const r = normalizeOriginPattern(pattern);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/public suffix/);
    },
  );

  it.each([
    ['https://*.my-shop.myshopify.com', 'https://www.my-shop.myshopify.com'],
    ['https://*.store.com.sa', 'https://ar.store.com.sa'],
    ['https://*.shop.example', 'https://www.shop.example'],
  ])('%s, one shop under a suffix, is accepted and matches its own sites', (pattern, origin) => {
    const r = normalizeOriginPattern(pattern);
    expect(r).toEqual({ ok: true, pattern });
    expect(originAllowed(origin, [pattern])).toBe(true);
    expect(originAllowed('https://attacker.github.io', [pattern])).toBe(false);
  });
});

describe('a key stored with such a pattern before it was refused', () => {
  it('never lets an origin through it', () => {
    expect(originAllowed('https://attacker.github.io', ['https://*.github.io'])).toBe(false);
    expect(originAllowed('https://evil.myshopify.com', ['https://*.myshopify.com', 'https://shop.example'])).toBe(
      false,
    );
    expect(originAllowed('https://shop.example', ['https://*.myshopify.com', 'https://shop.example'])).toBe(true);
  });
});
