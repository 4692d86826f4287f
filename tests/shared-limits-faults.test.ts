import { createHash } from 'node:crypto';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
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
