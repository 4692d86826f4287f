/**
 * A long loop over a merchant's products (a pull's comparison of 20,000 rows with what is stored, a
 * rematch's) awaits `nextTurn` every TURN_ROWS rows: the requests that came meanwhile are answered
 * between two stretches of a few milliseconds, never after the whole loop.
 */
export const TURN_ROWS = 250;

/** resolves at the next turn of the event loop, after the I/O that waits */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** awaits the next turn every TURN_ROWS-th index (not the first) */
export const turnAt = (i: number): Promise<void> | undefined => (i > 0 && i % TURN_ROWS === 0 ? nextTurn() : undefined);

/** The longest stretch of work between two turns for a loop whose rows cost unevenly (`slicer`). */
export const TURN_MS = 8;

/**
 * For a loop whose rows cost unevenly (a description read is up to a millisecond): `await
 * slice()` before each row awaits the next turn once TURN_MS of work has passed since the last.
 */
export function slicer(budgetMs = TURN_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < budgetMs) return undefined;
    return nextTurn().then(() => {
      since = performance.now();
    });
  };
}
