import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeOriginPattern, originAllowed } from '../auth/origins.ts';

const allow = (origin: string, patterns: string[]) => originAllowed(origin, patterns);

describe('allowed origins', () => {
  it('matches exact origins, ignoring case and default ports', () => {
    expect(allow('https://shop.example', ['https://shop.example'])).toBe(true);
    expect(allow('https://SHOP.example:443', ['https://shop.example'])).toBe(true);
    expect(allow('http://shop.example', ['https://shop.example'])).toBe(false);
    expect(allow('https://shop.example:8443', ['https://shop.example'])).toBe(false);
    expect(allow('http://localhost:5173', ['http://localhost:5173'])).toBe(true);
  });

  it('refuses look-alike origins', () => {
    const patterns = ['https://shop.example'];
    for (const evil of [
      'https://shop.example.evil.com',
      'https://evilshop.example',
      'https://shop.examplex',
      'https://www.shop.example',
      'https://shop.example@evil.com',
      'null',
      '',
      'file://',
    ]) {
      expect(allow(evil, patterns), evil).toBe(false);
    }
  });

  it('matches wildcard subdomains but not the apex or a look-alike', () => {
    const patterns = ['https://*.shop.example'];
    expect(allow('https://www.shop.example', patterns)).toBe(true);
    expect(allow('https://a.b.shop.example', patterns)).toBe(true);
    expect(allow('https://shop.example', patterns)).toBe(false);
    expect(allow('https://evilshop.example', patterns)).toBe(false);
    expect(allow('https://www.shop.example.evil.com', patterns)).toBe(false);
    expect(allow('http://www.shop.example', patterns)).toBe(false);
    expect(allow('https://www.shop.example:8443', patterns)).toBe(false);
    expect(allow('https://www.shop.example:8443', ['https://*.shop.example:8443'])).toBe(true);
  });

  it('"*" allows any origin, including opaque ones', () => {
    expect(allow('https://anything.example', ['*'])).toBe(true);
    expect(allow('null', ['*'])).toBe(true);
  });

  it('an empty list allows no browser origin', () => {
    expect(allow('https://shop.example', [])).toBe(false);
  });

  it('normalises patterns and refuses malformed ones with a reason', () => {
    expect(normalizeOriginPattern('HTTPS://Shop.Example:443/')).toEqual({ ok: true, pattern: 'https://shop.example' });
    expect(normalizeOriginPattern('https://*.Shop.Example')).toEqual({ ok: true, pattern: 'https://*.shop.example' });
    for (const bad of [
      'shop.example',
      'https://shop.example/path',
      'ftp://shop.example',
      'https://*.com',
      'https://a.*.b.com',
      'https://user:pw@shop.example',
      'https://*.1.2.3.4',
    ]) {
      const r = normalizeOriginPattern(bad);
      expect(r.ok, bad).toBe(false);
    }
  });

  it('property: a normalised origin always matches itself and never a suffix look-alike', () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/);
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https'),
        fc.array(label, { minLength: 2, maxLength: 4 }),
        label,
        (scheme, labels, evil) => {
          const origin = `${scheme}://${labels.join('.')}`;
          const r = normalizeOriginPattern(origin);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          expect(allow(origin, [r.pattern])).toBe(true);
          expect(allow(`${scheme}://${labels.join('.')}.${evil}.com`, [r.pattern])).toBe(false);
          expect(allow(`${scheme}://${evil}${labels.join('.')}`, [`${scheme}://*.${labels.join('.')}`])).toBe(false);
        },
      ),
    );
  });
});
