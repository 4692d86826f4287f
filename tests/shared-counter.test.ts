import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CounterDelta,
  type CounterTotal,
  createSharedCounter,
  overAdmissionBound,
  type ReconcileFn,
} from '../lib/shared-counter.ts';

const WINDOW = 60_000;

/** A store as Redis keeps it: totals with an expiry, and a count of calls (the round trips). */
function fakeStore(clock: { t: number }) {
  const keys = new Map<string, { total: number; expiresAt: number }>();
  let calls = 0;
  let widest = 0;
  let failing = false;
  const reconcile: ReconcileFn = async (deltas: readonly CounterDelta[]): Promise<CounterTotal[]> => {
    calls++;
    widest = Math.max(widest, deltas.length);
    if (failing) throw new Error('store down');
    return deltas.map((d) => {
      let k = keys.get(d.key);
      if (!k || k.expiresAt <= clock.t) {
        k = { total: 0, expiresAt: clock.t + d.windowMs };
        keys.set(d.key, k);
      }
      k.total += d.hits;
      return { total: k.total, ttlMs: k.expiresAt - clock.t };
    });
  };
  return {
    reconcile,
    total: (key: string) => keys.get(key)?.total ?? 0,
    calls: () => calls,
    /** the most counters one call carried */
    widest: () => widest,
    fail: (on: boolean) => {
      failing = on;
    },
  };
}

function instance(store: ReturnType<typeof fakeStore>, clock: { t: number }, maxPerCall?: number) {
  return createSharedCounter({
    name: `test-shared-${Math.random()}`,
    reconcile: store.reconcile,
    // reconciliations are driven by the test (flush), never by the timer
    flushMs: 3_600_000,
    retryMs: 3_600_000,
    maxCounters: 1000,
    maxPerCall,
    now: () => clock.t,
  });
}

describe('shared counters: counted here at once, reconciled in batches', () => {
  it('a hit is answered without a call to the store; a thousand hits on a hundred counters cost one call', async () => {
    const clock = { t: 0 };
    const store = fakeStore(clock);
    const a = instance(store, clock);
    for (let i = 0; i < 1000; i++) expect(a.hit(`k${i % 100}`, WINDOW).current).toBe(Math.floor(i / 100) + 1);
    expect(store.calls()).toBe(0);
    await a.flush();
    expect(store.calls()).toBe(1);
    expect(store.total('k7')).toBe(10);
    await a.close();
  });

  it('after a reconciliation an instance counts the hits other instances sent', async () => {
    const clock = { t: 0 };
    const store = fakeStore(clock);
    const a = instance(store, clock);
    const b = instance(store, clock);
    for (let i = 0; i < 60; i++) a.hit('k', WINDOW);
    await a.flush();
    // b has not heard yet: this is the over-admission the bound describes
    expect(b.hit('k', WINDOW).current).toBe(1);
    await b.flush();
    expect(b.hit('k', WINDOW).current).toBe(62);
    expect(b.read('k').current).toBe(62);
    await a.flush();
    expect(a.read('k').current).toBe(60);
    a.hit('k', WINDOW);
    await a.flush();
    // 60 and 1 of a's, b's first (sent); b's second is not sent yet
    expect(a.read('k').current).toBe(62);
    await b.flush();
    expect(store.total('k')).toBe(63);
    await Promise.all([a.close(), b.close()]);
  });

  it('while the store fails, hits are counted here and sent with the next reconciliation that succeeds', async () => {
    const clock = { t: 0 };
    const store = fakeStore(clock);
    const a = instance(store, clock);
    store.fail(true);
    for (let i = 0; i < 5; i++) a.hit('k', WINDOW);
    await a.flush();
    expect(a.read('k').current).toBe(5);
    expect(a.pending()).toBe(1);
    a.hit('k', WINDOW);
    store.fail(false);
    await a.flush();
    expect(store.total('k')).toBe(6);
    expect(a.pending()).toBe(0);
    await a.close();
  });

  it("the window ends with the store's: the count starts again, and the time left is the store's", async () => {
    const clock = { t: 0 };
    const store = fakeStore(clock);
    const a = instance(store, clock);
    const b = instance(store, clock);
    a.hit('k', WINDOW);
    await a.flush();
    clock.t = 20_000;
    b.hit('k', WINDOW);
    await b.flush();
    // b joined a window opened 20 s earlier: 40 s left, not 60
    expect(b.read('k').ttl).toBe(40_000);
    clock.t = 60_000;
    expect(b.read('k')).toEqual({ current: 0, ttl: 0 });
    expect(b.hit('k', WINDOW).current).toBe(1);
    await Promise.all([a.close(), b.close()]);
  });

  it('while the store is away, the counters waiting are capped: a client inventing keys cannot grow memory', async () => {
    const clock = { t: 0 };
    const store = fakeStore(clock);
    const a = createSharedCounter({
      name: 'test-cap',
      reconcile: store.reconcile,
      flushMs: 3_600_000,
      retryMs: 3_600_000,
      maxCounters: 100,
      now: () => clock.t,
    });
    store.fail(true);
    for (let i = 0; i < 1000; i++) a.hit(`junk-${i}`, WINDOW);
    await a.flush();
    expect(a.pending()).toBe(100);
    expect(a.dropped()).toBe(900);
    // the newest are the ones kept
    store.fail(false);
    await a.flush();
    expect(store.total('junk-999')).toBe(1);
    expect(store.total('junk-0')).toBe(0);
    await a.close();
  });

  it('a reconciliation of more counters than one call takes is sent in several calls, none lost or sent twice', async () => {
    for (const [n, calls] of [
      [35, 4],
      [30, 3],
    ] as const) {
      const clock = { t: 0 };
      const store = fakeStore(clock);
      const a = instance(store, clock, 10);
      for (let i = 0; i < n; i++) a.hit(`k${i}`, WINDOW);
      await a.flush();
      expect(store.calls()).toBe(calls);
      expect(store.widest()).toBe(10);
      for (let i = 0; i < n; i++) expect(store.total(`k${i}`)).toBe(1);
      await a.close();
    }
  });

  it('a counter hit in a burst is reconciled at once, not at the end of the interval; a quiet one waits', async () => {
    const clock = { t: 0 };
    const store = fakeStore(clock);
    const a = createSharedCounter({
      name: 'test-shared-hot',
      reconcile: store.reconcile,
      flushMs: 3_600_000,
      retryMs: 3_600_000,
      maxCounters: 100,
      hotHits: 3,
      now: () => clock.t,
    });
    a.hit('quiet', WINDOW);
    a.hit('burst', WINDOW);
    a.hit('burst', WINDOW);
    await new Promise((r) => setImmediate(r));
    expect(store.calls()).toBe(0);
    a.hit('burst', WINDOW);
    await new Promise((r) => setImmediate(r));
    expect(store.calls()).toBe(1);
    expect(store.total('burst')).toBe(3);
    // while that call is answered, a further burst waits for it, then goes at once
    a.hit('burst', WINDOW);
    a.hit('burst', WINDOW);
    a.hit('burst', WINDOW);
    await new Promise((r) => setImmediate(r));
    expect(store.total('burst')).toBe(6);
    expect(a.read('burst').current).toBe(6);
    await a.close();
  });

  it('on its own timer, hits reach the store within the interval', async () => {
    const store = fakeStore({ t: 0 });
    const a = createSharedCounter({
      name: 'test-shared-timer',
      reconcile: async (d, call) => store.reconcile(d, call),
      flushMs: 5,
      retryMs: 5,
      maxCounters: 100,
      now: () => 0,
    });
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    const until = Date.now() + 2000;
    while (store.total('k') < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    expect(store.total('k')).toBe(2);
    await a.close();
  });

  it('no hit is lost and no instance ever sees more than were sent, whatever the interleaving (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant('hit' as const),
              at: fc.integer({ min: 0, max: 2 }),
              key: fc.integer({ min: 0, max: 3 }),
            }),
            fc.record({ kind: fc.constant('flush' as const), at: fc.integer({ min: 0, max: 2 }) }),
          ),
          { maxLength: 200 },
        ),
        async (steps) => {
          const clock = { t: 0 };
          const store = fakeStore(clock);
          const nodes = [instance(store, clock), instance(store, clock), instance(store, clock)];
          const sent = new Map<string, number>();
          for (const s of steps) {
            const node = nodes[s.at] as (typeof nodes)[number];
            if (s.kind === 'hit') {
              const key = `k${s.key}`;
              sent.set(key, (sent.get(key) ?? 0) + 1);
              const seen = node.hit(key, WINDOW).current;
              expect(seen).toBeLessThanOrEqual(sent.get(key) as number);
              expect(seen).toBeGreaterThanOrEqual(1);
            } else await node.flush();
          }
          for (const n of nodes) await n.flush();
          for (const [key, n] of sent) {
            expect(store.total(key)).toBe(n);
            // after every instance has reconciled in turn, the last one knows the whole count
            expect((nodes[2] as (typeof nodes)[number]).read(key).current).toBeLessThanOrEqual(n);
          }
          for (const n of nodes) await n.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});

/** A store whose answers the test releases: what happens while a reconciliation is under way. */
function heldStore(clock: { t: number }) {
  const inner = fakeStore(clock);
  const held: (() => void)[] = [];
  let answer: 'all' | 'none' | 'fail' = 'all';
  const reconcile: ReconcileFn = (deltas, call) =>
    new Promise((resolve, reject) => {
      held.push(() => {
        if (answer === 'fail') reject(new Error('store down'));
        else inner.reconcile(deltas, call).then((totals) => resolve(answer === 'none' ? [] : totals));
      });
    });
  return {
    ...inner,
    reconcile,
    /** answers the oldest call held */
    release: async () => {
      held.shift()?.();
      await new Promise((r) => setImmediate(r));
    },
    held: () => held.length,
    answer: (a: 'all' | 'none' | 'fail') => {
      answer = a;
    },
  };
}

describe('shared counters while a reconciliation is under way', () => {
  const make = (
    store: ReturnType<typeof heldStore>,
    clock: { t: number },
    extra: { flushMs?: number; hotHits?: number } = {},
  ) =>
    createSharedCounter({
      name: `test-held-${Math.random()}`,
      reconcile: store.reconcile,
      flushMs: extra.flushMs ?? 3_600_000,
      retryMs: 3_600_000,
      maxCounters: 100,
      hotHits: extra.hotHits,
      now: () => clock.t,
    });

  it('hits being sent and hits after them both count in the view', async () => {
    const clock = { t: 0 };
    const store = heldStore(clock);
    const a = make(store, clock);
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    const sending = a.flush();
    expect(a.hit('k', WINDOW).current).toBe(4);
    expect(a.read('k').current).toBe(4);
    await store.release();
    await sending;
    expect(store.total('k')).toBe(3);
    expect(a.read('k').current).toBe(4);
    // a second flush sends the hit that came meanwhile
    const next = a.flush();
    await store.release();
    await next;
    expect(store.total('k')).toBe(4);
    await a.close();
  });

  it('a flush asked for during another waits for it, then sends what came meanwhile, once', async () => {
    const clock = { t: 0 };
    const store = heldStore(clock);
    const a = make(store, clock);
    a.hit('k', WINDOW);
    const first = a.flush();
    a.hit('k', WINDOW);
    const second = a.flush();
    const third = a.flush();
    expect(store.held()).toBe(1);
    await store.release();
    await first;
    expect(store.held()).toBe(1);
    await store.release();
    await Promise.all([second, third]);
    expect(store.calls()).toBe(2);
    expect(store.total('k')).toBe(2);
    await a.close();
  });

  it('a counter the store answers nothing for keeps its hits, and sends them again; the short answer is reported', async () => {
    const clock = { t: 0 };
    const store = heldStore(clock);
    const errors: string[] = [];
    const a = createSharedCounter({
      name: 'test-short-answer',
      reconcile: store.reconcile,
      flushMs: 3_600_000,
      retryMs: 3_600_000,
      maxCounters: 100,
      now: () => clock.t,
      onError: (e) => errors.push(e.message),
    });
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    store.answer('none');
    const f = a.flush();
    await store.release();
    await f;
    expect(a.read('k').current).toBe(2);
    expect(a.pending()).toBe(1);
    expect(errors).toEqual(['the store answered 0 totals for 1 counters']);
    store.answer('all');
    const g = a.flush();
    await store.release();
    await g;
    expect(a.pending()).toBe(0);
    await a.close();
  });

  it('after a failure the next reconciliation waits the retry time; after a success, the interval', async () => {
    const clock = { t: 0 };
    const calls: number[] = [];
    let fail = true;
    const a = createSharedCounter({
      name: 'test-retry',
      reconcile: async (deltas) => {
        calls.push(Date.now());
        if (fail) throw new Error('store down');
        return deltas.map((d) => ({ total: d.hits, ttlMs: d.windowMs }));
      },
      flushMs: 5,
      retryMs: 300,
      maxCounters: 100,
      now: () => clock.t,
    });
    a.hit('k', WINDOW);
    const until = Date.now() + 2000;
    while (calls.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    expect(calls.length).toBe(2);
    // the retry came no sooner than the retry time
    expect((calls[1] as number) - (calls[0] as number)).toBeGreaterThanOrEqual(250);
    fail = false;
    while (a.pending() > 0 && Date.now() < until + 2000) await new Promise((r) => setTimeout(r, 5));
    expect(a.pending()).toBe(0);
    await a.close();
  });

  it('hits that arrive during a reconciliation go with the next interval, not at once, unless in a burst', async () => {
    const clock = { t: 0 };
    const store = heldStore(clock);
    const a = make(store, clock, { hotHits: 3 });
    a.hit('quiet', WINDOW);
    const f = a.flush();
    a.hit('quiet', WINDOW);
    await store.release();
    await f;
    await new Promise((r) => setImmediate(r));
    // the interval is an hour: nothing more was sent
    expect(store.calls()).toBe(1);
    a.hit('burst', WINDOW);
    a.hit('burst', WINDOW);
    expect(store.held()).toBe(0);
    a.hit('burst', WINDOW);
    // the third hit within the interval starts a reconciliation at once
    expect(store.held()).toBe(1);
    // a burst during that call is sent as soon as it is answered
    a.hit('burst', WINDOW);
    a.hit('burst', WINDOW);
    a.hit('burst', WINDOW);
    expect(store.held()).toBe(1);
    await store.release();
    expect(store.held()).toBe(1);
    await store.release();
    expect(store.total('burst')).toBe(6);
    expect(store.total('quiet')).toBe(2);
    // the burst is over: a hit during the next call waits for the interval again
    a.hit('quiet', WINDOW);
    const g = a.flush();
    a.hit('quiet', WINDOW);
    await store.release();
    await g;
    expect(store.held()).toBe(0);
    const closing = a.close();
    await store.release();
    await closing;
  });

  it('a failed reconciliation of a burst is retried after the retry time, not at once', async () => {
    const clock = { t: 0 };
    const store = heldStore(clock);
    const a = make(store, clock, { hotHits: 2 });
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    store.answer('fail');
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    await store.release();
    await new Promise((r) => setImmediate(r));
    expect(store.held()).toBe(0);
    expect(a.read('k').current).toBe(4);
    const closing = a.close();
    await store.release();
    await closing;
  });

  it('after close, hits are still counted but nothing is sent any more', async () => {
    const store = fakeStore({ t: 0 });
    const a = createSharedCounter({
      name: 'test-closed',
      reconcile: store.reconcile,
      flushMs: 5,
      retryMs: 5,
      maxCounters: 100,
      hotHits: 2,
      now: () => 0,
    });
    a.hit('k', WINDOW);
    await a.close();
    expect(store.total('k')).toBe(1);
    a.hit('k', WINDOW);
    a.hit('k', WINDOW);
    await new Promise((r) => setTimeout(r, 50));
    expect(store.calls()).toBe(1);
    expect(a.read('k').current).toBe(3);
  });

  it('close cancels the waiting timer and sends at once', async () => {
    const store = fakeStore({ t: 0 });
    const a = createSharedCounter({
      name: 'test-close-timer',
      reconcile: store.reconcile,
      flushMs: 3_600_000,
      retryMs: 3_600_000,
      maxCounters: 100,
      now: () => 0,
    });
    a.hit('k', WINDOW);
    await a.close();
    expect(store.total('k')).toBe(1);
    expect(store.calls()).toBe(1);
  });
});

describe('over-admission bound', () => {
  it('is, for each instance, the most requests sent to it within one stale span, summed', () => {
    const sends = [
      { instance: 0, at: 0 },
      { instance: 1, at: 1 },
      { instance: 0, at: 2 },
      { instance: 1, at: 3 },
      { instance: 0, at: 30 },
    ];
    expect(overAdmissionBound(sends, 5)).toBe(4);
    expect(overAdmissionBound(sends, 100)).toBe(5);
    expect(overAdmissionBound(sends, 0)).toBe(2);
    expect(overAdmissionBound([], 10)).toBe(0);
    // sent times need not come in order
    const shuffled = [
      { instance: 0, at: 30 },
      { instance: 0, at: 0 },
      { instance: 0, at: 31 },
      { instance: 0, at: 1 },
      { instance: 0, at: 32 },
    ];
    expect(overAdmissionBound(shuffled, 5)).toBe(3);
  });
});
