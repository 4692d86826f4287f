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
