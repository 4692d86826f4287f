import { describe, expect, it } from 'vitest';
import { slicer, TURN_MS } from '../lib/turns.ts';

describe('slicer: a loop of uneven rows yields once TURN_MS of work has passed', () => {
  it('lets work run on within the budget, then waits for the next turn, and counts afresh after it', async () => {
    const slice = slicer(TURN_MS);
    expect(slice()).toBeUndefined();
    const until = performance.now() + TURN_MS + 2;
    while (performance.now() < until) {
      // work
    }
    let ranBetween = false;
    setImmediate(() => {
      ranBetween = true;
    });
    const turn = slice();
    expect(turn).toBeInstanceOf(Promise);
    await turn;
    // what was waiting ran before the loop went on
    expect(ranBetween).toBe(true);
    expect(slice()).toBeUndefined();
  });
});
