import { describe, expect, it } from 'vitest';
import { timeOrderedId } from '../lib/ids.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const timeOf = (id: string) => Number.parseInt(id.replace('-', '').slice(0, 12), 16);

describe('time-ordered ids', () => {
  it('are UUID version 7 carrying the time they were made, all distinct past the random pool', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2000 }, timeOrderedId); // several refills of the pool
    const after = Date.now();
    for (const id of ids) {
      expect(id).toMatch(V7);
      expect(timeOf(id)).toBeGreaterThanOrEqual(before);
      expect(timeOf(id)).toBeLessThanOrEqual(after);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('made in a later millisecond, sort after', async () => {
    const first = timeOrderedId();
    await new Promise((r) => setTimeout(r, 3));
    expect(timeOrderedId() > first).toBe(true);
  });
});
