import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateKey, hashKey, parseKey } from '../auth/keys.ts';
import { cacheInventory } from '../lib/cache.ts';

describe('widget key format', () => {
  it('creates pk_test_ and pk_live_ keys that parse back to their mode and hash', () => {
    for (const mode of ['test', 'live'] as const) {
      const k = generateKey(mode);
      expect(k.key).toMatch(new RegExp(`^pk_${mode}_[0-9A-Za-z]{28}$`));
      expect(k.prefix).toBe(k.key.slice(0, 12));
      expect(parseKey(k.key)).toEqual({ ok: true, mode, hash: k.hash });
      expect(k.hash).toBe(hashKey(k.key));
      expect(k.hash).not.toContain(k.key.slice(8));
    }
  });

  it('carries at least 128 random bits (22 base62 digits) and never repeats', () => {
    const keys = Array.from({ length: 2000 }, () => generateKey('live').key);
    expect(new Set(keys).size).toBe(2000);
    // 22 digits each taking all 62 values carry 22 × log2(62) ≈ 131 bits; with 128 bits or fewer behind
    // them the first digit could take at most 8 values (2^128 / 62^21 < 8). In 2,000 keys every value of
    // every digit turns up but for a chance of about 1 in 10^11.
    for (let pos = 0; pos < 22; pos++) {
      const values = new Set(keys.map((k) => k.slice(8)[pos]));
      expect(values.size, `digit ${pos + 1}`).toBe(62);
    }
  });

  it('refuses a key with any one character changed (checksum), without a lookup', () => {
    const { key } = generateKey('live');
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 8, max: key.length - 1 }), fc.constantFrom(...alphabet), (pos, ch) => {
        fc.pre(key[pos] !== ch);
        const typo = key.slice(0, pos) + ch + key.slice(pos + 1);
        expect(parseKey(typo).ok).toBe(false);
      }),
    );
  });

  it('refuses what is not a key', () => {
    for (const s of [
      '',
      'pk_test_',
      'sk_live_abc',
      'pk_prod_0123456789012345678901234567',
      `${generateKey('test').key}x`,
    ]) {
      expect(parseKey(s).ok).toBe(false);
    }
    const live = generateKey('live').key;
    expect(parseKey(live.replace('pk_live_', 'pk_test_')).ok).toBe(false);
  });

  it('keeps the parse of a key in constant use while a stream of made-up keys passes, and holds at most 10,000', () => {
    const busy = generateKey('live').key;
    const remembered = parseKey(busy);
    for (let i = 0; i < 25_000; i++) {
      parseKey(`pk_live_made-up-${i}`);
      if (i % 1000 === 0) parseKey(busy);
    }
    expect(parseKey(busy)).toBe(remembered); // the same object: never parsed again
    expect(cacheInventory().find((c) => c.name === 'widget-key-parse')?.entries).toBe(10_000);
  });
});
