import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { Cache, cacheInventory, remembered } from '../lib/cache.ts';

describe('Cache', () => {
  it('holds memory for what it caches, not for its bound: a cache of a million entries starts nearly empty', () => {
    const used = () => getHeapStatistics().used_heap_size;
    const before = used();
    const caches = [1, 2, 3].map(
      (i) =>
        new Cache<string, number>({ name: `test-big-${i}`, max: 1_000_000, ttlMs: 60_000, invalidatedBy: 'nothing' }),
    );
    // lists allocated for the bound would be about 28 MB a cache
    expect(used() - before).toBeLessThan(1024 * 1024);
    for (let i = 0; i < 3000; i++) caches[i % 3]?.set(`k${i}`, i);
    expect(caches.map((c) => c.size)).toEqual([1000, 1000, 1000]);
    expect(caches[2]?.get('k2999')).toBe(2999);
  });

  it('holds at most its bound, at any size', () => {
    const c = new Cache<string, number>({ name: 'test-bound', max: 300, invalidatedBy: 'nothing' });
    for (let i = 0; i < 1000; i++) c.set(`k${i}`, i);
    expect(c.size).toBe(300);
    expect(c.get('k699')).toBeUndefined();
    expect(c.get('k700')).toBe(700);
  });

  it('evicts the least recently used entry, not the oldest insert', () => {
    const c = new Cache<string, number>({ name: 'test-lru', max: 2, invalidatedBy: 'nothing' });
    c.set('a', 1).set('b', 2);
    expect(c.get('a')).toBe(1); // a is now the most recently used
    c.set('c', 3);
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe(1);
    expect(c.get('c')).toBe(3);
    expect(c.size).toBe(2);
  });

  it('keeps null as a value (a known absence) and tells it from a miss', () => {
    const c = new Cache<string, string | null>({ name: 'test-null', max: 4, invalidatedBy: 'nothing' });
    c.set('gone', null);
    expect(c.get('gone')).toBeNull();
    expect(c.get('never')).toBeUndefined();
    expect(c.has('gone')).toBe(true);
  });

  it('misses an entry older than its lifetime', () => {
    let now = 1000;
    const c = new Cache<string, number>(
      { name: 'test-ttl', max: 4, ttlMs: 100, invalidatedBy: 'age' },
      { now: () => now },
    );
    c.set('k', 7);
    now += 99;
    expect(c.get('k')).toBe(7);
    now += 2;
    expect(c.get('k')).toBeUndefined();
  });

  it('gives an entry made at time 0 of an injected clock its lifetime too', () => {
    let now = 0;
    const c = new Cache<string, number>(
      { name: 'test-ttl-zero', max: 4, ttlMs: 100, invalidatedBy: 'age' },
      { now: () => now },
    );
    c.set('k', 1);
    now = 101;
    expect(c.get('k')).toBeUndefined();
  });

  it('drops the entries a predicate picks, and only those', () => {
    const c = new Cache<string, number>({ name: 'test-where', max: 10, invalidatedBy: 'merchant' });
    c.set('m1|a', 1).set('m1|b', 2).set('m2|a', 3);
    expect(c.deleteWhere((k) => k.startsWith('m1|'))).toBe(2);
    expect(c.keys()).toEqual(['m2|a']);
  });

  it('remembers a computed value and computes it once', () => {
    const c = new Cache<string, number>({ name: 'test-remembered', max: 4, invalidatedBy: 'nothing' });
    let calls = 0;
    const make = () => ++calls * 10;
    expect(remembered(c, 'x', make)).toBe(10);
    expect(remembered(c, 'x', make)).toBe(10);
    expect(calls).toBe(1);
  });

  it('lists every cache by name with its bound, lifetime, invalidation and entries', () => {
    const c = new Cache<string, number>({ name: 'test-inventory', max: 3, ttlMs: 50, invalidatedBy: 'a test' });
    c.set('a', 1);
    const report = cacheInventory().find((r) => r.name === 'test-inventory');
    expect(report).toEqual({
      name: 'test-inventory',
      max: 3,
      ttlMs: 50,
      invalidatedBy: 'a test',
      instances: 1,
      entries: 1,
    });
  });

  it('refuses a cache without a whole, positive bound, naming it', () => {
    for (const max of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new Cache({ name: 'test-unbounded', max, invalidatedBy: 'x' })).toThrow(
        'cache test-unbounded: max must be ≥ 1',
      );
    }
    expect(new Cache({ name: 'test-bounded', max: 1, invalidatedBy: 'x' }).spec.max).toBe(1);
  });

  it('counts every live instance of a cache and their entries together', () => {
    const held = [1, 2, 3].map((i) => {
      const c = new Cache<string, number>({ name: 'test-instances', max: 5, invalidatedBy: 'x' });
      for (let k = 0; k < i; k++) c.set(`k${k}`, k);
      return c;
    });
    expect(cacheInventory().find((r) => r.name === 'test-instances')).toMatchObject({ instances: 3, entries: 6 });
    expect(held).toHaveLength(3);
  });
});
