/**
 * At most `perWindow` calls per key in any `windowMs` (a sliding window): `wait(key)` resolves when
 * the key has room, at once when it has. Used to keep within a platform's documented limit on calls
 * per store (Zid: 60 product requests a minute per app and store), in this process; with several
 * instances each keeps its own count, and a 429 from the platform is the backstop. Keys beyond
 * `maxKeys` evict the least recently used.
 */
export interface Pacer {
  /** resolves when a call for `key` may be made; answers how long it waited, in ms */
  wait(key: string): Promise<number>;
}

export function createPacer(o: {
  perWindow: number;
  windowMs: number;
  maxKeys?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}): Pacer {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const maxKeys = o.maxKeys ?? 10_000;
  const stamps = new Map<string, number[]>();
  return {
    async wait(key) {
      let waited = 0;
      for (;;) {
        const t = now();
        const list = (stamps.get(key) ?? []).filter((s) => t - s < o.windowMs);
        stamps.delete(key);
        stamps.set(key, list);
        if (stamps.size > maxKeys) stamps.delete(stamps.keys().next().value as string);
        if (list.length < o.perWindow) {
          list.push(t);
          return waited;
        }
        const ms = Math.max(1, (list[0] as number) + o.windowMs - t);
        waited += ms;
        await sleep(ms);
      }
    },
  };
}
