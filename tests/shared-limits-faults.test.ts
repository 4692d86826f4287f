import { createHash } from 'node:crypto';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createSharedCounter, type ReconcileFn } from '../lib/shared-counter.ts';
import { REDIS_COMMAND_TIMEOUT_MS } from '../plugins/app/redis.ts';
import { SHARED_STORE_RETRY_MS, WIDGET_RATE_LIMITS } from '../plugins/external/rate-limit.ts';
import { poll, sleep } from './cluster.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, TEST_REDIS_URL, type TestApp, verify } from './helper.ts';

/**
 * A TCP proxy to Redis that holds what the client sends for `delayMs` before
 * passing it on (in order): a Redis slow to answer — busy with a slow command,
 * a fork, a congested link — that still runs every command it was sent.
 */
async function latencyProxy(target: string) {
  const u = new URL(target);
  let delayMs = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = netConnect(Number(u.port || 6379), u.hostname);
    sockets.add(client);
    sockets.add(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let last = 0;
    client.on('data', (chunk: Buffer) => {
      // in order: never before the chunk ahead of it
      const at = Math.max(Date.now() + delayMs, last);
      last = at;
      setTimeout(() => upstream.write(chunk), at - Date.now());
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    delay(ms: number) {
      delayMs = ms;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const digest = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 20);

describe.runIf(TEST_REDIS_URL)('shared limits when Redis is slow or loses counts (real Redis)', () => {
  let app: TestApp | undefined;
  let proxy: Awaited<ReturnType<typeof latencyProxy>> | undefined;
  const redis = new Redis(TEST_REDIS_URL ?? 'redis://127.0.0.1:1', { lazyConnect: true });
  afterAll(async () => {
    await closeTestApp(app);
    await proxy?.close();
    redis.disconnect();
  });

  it('a reconciliation Redis runs but answers after the command timeout is not counted again: a shopper is never refused below the limit', async () => {
    proxy = await latencyProxy(TEST_REDIS_URL as string);
    app = await buildTestApp({ REDIS_URL: proxy.url });
    const { key } = await createMerchantWithKey(app);
    // Redis slow for a few seconds: every command runs, every answer comes after the client gave up
    proxy.delay(REDIS_COMMAND_TIMEOUT_MS + 300);
    const sent = 20;
    for (let i = 0; i < sent; i++) {
      expect((await verify(app, { api_key: key })).statusCode).toBe(200);
      await sleep(300);
    }
    proxy.delay(0);
    // the counter in Redis (the only one of this key)
    if (redis.status !== 'ready') await redis.connect();
    const [name] = (await redis.keys(`sillage-rl-*${digest(key)}*`)) as [string];
    await poll('every hit reconciled', async () => Number(await redis.get(name)) >= sent, { timeoutMs: 15_000 });
    // and a retry's time more, in which a call sent again would be counted again
    await sleep(SHARED_STORE_RETRY_MS + 500);
    const counted = Number(await redis.get(name));
    // the shopper sent 20; Redis holds each hit once
    expect(counted).toBe(sent);
    // and the rest of the minute's allowance is still there
    const codes: number[] = [];
    for (let i = sent; i < WIDGET_RATE_LIMITS.verify; i++) codes.push((await verify(app, { api_key: key })).statusCode);
    expect(codes.filter((c) => c !== 200)).toEqual([]);
  }, 60_000);

  it('a counter Redis loses mid-window (evicted, or a restart without persistence) is counted again from what the instance sent: the shopper gets the rest of its minute, not a new one', async () => {
    const local = await buildTestApp({ REDIS_URL: TEST_REDIS_URL });
    try {
      const { key } = await createMerchantWithKey(local);
      for (let i = 0; i < 40; i++) expect((await verify(local, { api_key: key })).statusCode).toBe(200);
      if (redis.status !== 'ready') await redis.connect();
      const [name] = (await redis.keys(`sillage-rl-*${digest(key)}*`)) as [string];
      await poll('the 40 reconciled', async () => Number(await redis.get(name)) === 40);
      await redis.del(name);
      const codes: number[] = [];
      for (let i = 0; i < 25; i++) {
        codes.push((await verify(local, { api_key: key })).statusCode);
        // one request at a time, as a shopper's widget sends them
        await sleep(5);
      }
      expect(codes.filter((c) => c === 200).length).toBe(WIDGET_RATE_LIMITS.verify - 40);
    } finally {
      await closeTestApp(local);
    }
  }, 60_000);
});

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
});
