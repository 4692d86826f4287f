import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPacer } from '../lib/pacer.ts';

/** lib/pacer.ts on a clock of its own: how many calls go at once, and how long the rest wait. */
function clocked(perWindow: number, windowMs: number, maxKeys?: number) {
  let t = 1_000_000;
  const sleeps: number[] = [];
  const pacer = createPacer({
    perWindow,
    windowMs,
    maxKeys,
    now: () => t,
    sleep: async (ms) => {
      sleeps.push(ms);
      t += ms;
    },
  });
  return { pacer, sleeps, at: () => t, advance: (ms: number) => (t += ms) };
}

describe('a pacer', () => {
  it('lets the first calls of a window through at once, and makes the next wait for the oldest to leave it', async () => {
    const c = clocked(3, 60_000);
    for (let i = 0; i < 3; i++) expect(await c.pacer.wait('store-1')).toBe(0);
    c.advance(10_000);
    expect(await c.pacer.wait('store-1')).toBe(50_000);
    expect(c.sleeps).toEqual([50_000]);
  });

  it('counts each key on its own', async () => {
    const c = clocked(2, 60_000);
    await c.pacer.wait('a');
    await c.pacer.wait('a');
    expect(await c.pacer.wait('b')).toBe(0);
    expect(await c.pacer.wait('b')).toBe(0);
    expect(c.sleeps).toEqual([]);
  });

  it('for any calls: never more than perWindow of one key in any window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 40 }),
        async (per, gaps) => {
          const c = clocked(per, 60_000);
          const times: number[] = [];
          for (const g of gaps) {
            c.advance(g);
            await c.pacer.wait('k');
            times.push(c.at());
          }
          for (let i = per; i < times.length; i++) {
            expect((times[i] as number) - (times[i - per] as number)).toBeGreaterThanOrEqual(60_000);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps at most maxKeys keys: the least recently used is forgotten', async () => {
    const c = clocked(1, 60_000, 2);
    await c.pacer.wait('a');
    await c.pacer.wait('b');
    await c.pacer.wait('c');
    // 'a' was forgotten: it goes at once
    expect(await c.pacer.wait('a')).toBe(0);
    // 'c' is still counted
    expect(await c.pacer.wait('c')).toBeGreaterThan(0);
  });
});
