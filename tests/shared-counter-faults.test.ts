import { describe, expect, it } from 'vitest';
import { createSharedCounter, type ReconcileFn } from '../lib/shared-counter.ts';

/**
 * Shared counters when the store fails, answers late, loses counts, or a window ends meanwhile
 * (lib/shared-counter.ts). The same on real Redis: tests/shared-limits-faults.test.ts.
 */

/** A store as Redis keeps it (tests/shared-counter.test.ts's), that applies a call's number once, and can time out after applying. */
function numberedStore(clock: { t: number }) {
  const keys = new Map<string, { total: number; expiresAt: number }>();
  const last = new Map<string, number>();
  const seen: { seq: number; keys: string[] }[] = [];
  let mode: 'ok' | 'down' | 'late' = 'ok';
  const reconcile: ReconcileFn = async (deltas, call) => {
    // (a counter that numbers no call has every call applied)
    const seq = call?.seq ?? seen.length + 1;
    seen.push({ seq, keys: deltas.map((d) => d.key) });
    if (mode === 'down') throw new Error('connection refused');
    const fresh = !call || call.seq > (last.get(call.instance) ?? 0);
    if (fresh && call) last.set(call.instance, call.seq);
    const out = deltas.map((d) => {
      let k = keys.get(d.key);
      if (!k || k.expiresAt <= clock.t) {
        k = { total: 0, expiresAt: clock.t + d.windowMs };
        keys.set(d.key, k);
      }
      if (fresh) k.total += d.hits;
      return { total: k.total, ttlMs: k.expiresAt - clock.t };
    });
    // applied, but the answer comes after the client's timeout
    if (mode === 'late') throw new Error('Command timed out');
    return out;
  };
  return {
    reconcile,
    total: (key: string) =>
      keys.get(key) && (keys.get(key)?.expiresAt as number) > clock.t ? keys.get(key)?.total : 0,
    seen,
    /** Redis restarted without persistence (or evicted every key): every count is gone */
    lose: () => {
      keys.clear();
      last.clear();
    },
    set: (m: typeof mode) => {
      mode = m;
    },
  };
}

const WINDOW = 60_000;

describe('shared counters: failures and window edges', () => {
  const make = (store: ReturnType<typeof numberedStore>, clock: { t: number }, hotHits?: number) =>
    createSharedCounter({
      name: `test-faults-${Math.random()}`,
      reconcile: store.reconcile,
      flushMs: 3_600_000,
      retryMs: 3_600_000,
      maxCounters: 100,
      hotHits,
      now: () => clock.t,
    });

  it("hits counted while the store was away are not sent into the next window once theirs has ended: the shopper's new minute is whole", async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    store.set('down');
    for (let i = 0; i < 60; i++) a.hit('k', WINDOW);
    await a.flush();
    // the store comes back 90 s later; the retry runs before the shopper's next request
    clock.t = 90_000;
    store.set('ok');
    await a.flush();
    // a new minute: the shopper sent nothing in it yet
    expect(a.hit('k', WINDOW).current).toBe(1);
    await a.flush();
    expect(store.total('k')).toBe(1);
    expect(a.read('k').current).toBe(1);
    await a.close();
  });

  it('a call the store ran but answered too late is sent again as it was, before anything newer, and counted once', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    for (let i = 0; i < 5; i++) a.hit('k', WINDOW);
    store.set('late');
    await a.flush();
    expect(a.read('k').current).toBe(5);
    a.hit('k', WINDOW);
    a.hit('other', WINDOW);
    await a.flush();
    store.set('ok');
    await a.flush();
    expect(store.total('k')).toBe(6);
    expect(store.total('other')).toBe(1);
    expect(a.read('k').current).toBe(6);
    expect(a.pending()).toBe(0);
    // the failed call (1) went again as call 1, and call 2 only after it
    expect(store.seen.map((c) => c.seq)).toEqual([1, 1, 1, 2]);
    await a.close();
  });

  it('after a failed reconciliation, a burst does not start another at once: the next waits the retry time', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock, 2);
    store.set('down');
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    await new Promise((r) => setImmediate(r));
    expect(store.seen.length).toBe(1);
    for (let i = 0; i < 50; i++) {
      a.hit('k', WINDOW);
      await new Promise((r) => setImmediate(r));
    }
    // one call, not one for each request
    expect(store.seen.length).toBe(1);
    expect(a.read('k').current).toBe(52);
    store.set('ok');
    await a.close();
    expect(store.total('k')).toBe(52);
  });

  it('counts Redis loses mid-window (a restart without persistence, an eviction) are sent again by each instance that knows its own: no fresh minute for the shopper', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    const b = make(store, clock);
    for (let i = 0; i < 30; i++) a.hit('k', WINDOW);
    for (let i = 0; i < 30; i++) b.hit('k', WINDOW);
    await a.flush();
    await b.flush();
    expect(b.read('k').current).toBe(60);
    // 20 s into the minute Redis restarts empty
    clock.t = 20_000;
    store.lose();
    // the shopper comes back: each instance learns the loss at its next reconciliation and sends its own hits again
    a.hit('k', WINDOW);
    b.hit('k', WINDOW);
    await a.flush();
    await b.flush();
    await a.flush();
    await b.flush();
    await a.flush();
    // 62 sent in this minute, all counted again: the shopper's next request is its 63rd, wherever it goes
    expect(store.total('k')).toBe(62);
    expect(b.read('k').current).toBe(62);
    a.hit('k', WINDOW);
    await a.flush();
    expect(a.read('k').current).toBe(63);
    await Promise.all([a.close(), b.close()]);
  });

  it('a window that ends in Redis as it ends here is a new window, not a loss: nothing is sent again into it', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    for (let i = 0; i < 30; i++) a.hit('k', WINDOW);
    await a.flush();
    clock.t = WINDOW + 1;
    a.hit('k', WINDOW);
    await a.flush();
    await a.flush();
    expect(store.total('k')).toBe(1);
    expect(a.read('k').current).toBe(1);
    await a.close();
  });

  it('while the store keeps failing slowly, calls are tried once per retry time, not after every request', async () => {
    let calls = 0;
    const a = createSharedCounter({
      name: `test-slow-fail-${Math.random()}`,
      // a store that takes 50 ms to fail (a command timeout, shortened)
      reconcile: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('Command timed out');
      },
      flushMs: 5,
      retryMs: 300,
      maxCounters: 100,
      hotHits: 2,
    });
    const started = Date.now();
    // one shopper's request every 10 ms for a second, each on a counter of its own (never hot)
    for (let i = 0; Date.now() - started < 1000; i++) {
      a.hit(`k${i}`, WINDOW);
      await new Promise((r) => setTimeout(r, 10));
    }
    // the first call, then one every 300 ms or so (each waits for the one before): about 4, not 16
    expect(calls).toBeLessThanOrEqual(5);
    await a.close().catch(() => {});
  });

  it('a failed call sent again leaves out only the counters whose window has ended, and keeps the hits of the rest', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    store.set('down');
    a.hit('short', 1000);
    a.hit('long', WINDOW);
    a.hit('long', WINDOW);
    await a.flush();
    clock.t = 2000;
    store.set('ok');
    await a.flush();
    expect(store.seen.at(-1)?.keys).toEqual(['long']);
    expect(store.total('short')).toBe(0);
    expect(store.total('long')).toBe(2);
    expect(a.read('long').current).toBe(2);
    expect(a.pending()).toBe(0);
    await a.close();
  });

  it('while the store is away, counters in calls to be sent again count against the cap with the new ones', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    store.set('down');
    for (let i = 0; i < 60; i++) a.hit(`first-${i}`, WINDOW);
    await a.flush();
    for (let i = 0; i < 60; i++) a.hit(`second-${i}`, WINDOW);
    // 60 in the failed call, room for 40 more
    expect(a.pending()).toBe(100);
    expect(a.dropped()).toBe(20);
    store.set('ok');
    await a.flush();
    await a.flush();
    expect(a.pending()).toBe(0);
    expect(store.total('first-0')).toBe(1);
    expect(store.total('second-59')).toBe(1);
    expect(store.total('second-0')).toBe(0);
    await a.close();
  });

  it('a loss is told from a new window by the time left: within the last second nothing is sent again', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    for (let i = 0; i < 30; i++) a.hit('k', WINDOW);
    await a.flush();
    clock.t = WINDOW - 500;
    store.lose();
    a.hit('k', WINDOW);
    await a.flush();
    await a.flush();
    expect(store.total('k')).toBe(1);
    await a.close();
  });

  it('a loss is noticed even when the call that meets it carries many hits', async () => {
    const clock = { t: 0 };
    const store = numberedStore(clock);
    const a = make(store, clock);
    for (let i = 0; i < 30; i++) a.hit('k', WINDOW);
    await a.flush();
    clock.t = 10_000;
    store.lose();
    for (let i = 0; i < 40; i++) a.hit('k', WINDOW);
    await a.flush();
    await a.flush();
    expect(store.total('k')).toBe(70);
    expect(a.read('k').current).toBe(70);
    await a.close();
  });
});
