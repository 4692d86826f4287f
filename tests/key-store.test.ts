import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createKeyStore,
  KEY_CACHE_TTL_MS,
  KEY_LOOKUP_RETRY_MS,
  KEY_REFRESH_AFTER_MS,
  MAX_SIGHTINGS_PER_FLUSH,
} from '../auth/key-store.ts';
import { parseKey } from '../auth/keys.ts';
import { createDatabase, type Database, type Db, isEmbedded } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { cacheInventory } from '../lib/cache.ts';
import { apiKeys, keySightings } from '../schema/index.ts';
import { createKey, type ResolvedKey, revokeKey } from '../services/keys.ts';
import { createMerchant } from '../services/merchants.ts';

// The key store needs only a database (and Redis): no app is built, so its mutation run
// (stryker.key-store.config.mjs) runs this file in seconds. As tests/helper.ts: PGlite in memory,
// or with TEST_DATABASE_URL a PostgreSQL database of its own; TEST_REDIS_URL adds Redis.
const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
const TEST_REDIS_URL = process.env.TEST_REDIS_URL || undefined;

/** what the service hands the key store: its database, its logger, its Redis client when it has one */
let app: { db: Db; log: FastifyBaseLogger; redis: Redis | null };
let database: Database;
let dropDatabase = async () => {};
beforeAll(async () => {
  if (TEST_DATABASE_URL) {
    const scratch = await createScratchDatabase(TEST_DATABASE_URL, 'sillage_test');
    database = scratch.database;
    dropDatabase = scratch.drop;
  } else database = await createDatabase({ database: { kind: 'pglite', dataDir: null } });
  await database.migrate();
  let redis: Redis | null = null;
  if (TEST_REDIS_URL) {
    // made as plugins/app/redis.ts makes it: connected by hand, no offline queue
    redis = new Redis(TEST_REDIS_URL, { enableOfflineQueue: false, lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
  }
  app = { db: database.db, log: recordingLog().log, redis };
});
afterAll(async () => {
  app.redis?.disconnect();
  await database.close();
  await dropDatabase();
});

let shops = 0;
async function createMerchantWithKey(on: { db: Db }) {
  const slug = `key-store-${process.pid}-${++shops}-${randomBytes(3).toString('hex')}`;
  const merchant = await createMerchant(on.db, { name: `Shop ${slug}`, slug });
  const key = await createKey(on.db, merchant.id, { mode: 'live', allowedOrigins: ['https://shop.example'] });
  return { merchant, key: key.key, keyId: key.id };
}

const hashOf = (key: string) => {
  const p = parseKey(key);
  if (!p.ok) throw new Error('bad key');
  return p.hash;
};

afterEach(() => {
  vi.useRealTimers();
});

/** a logger that keeps the warnings an operator reads, each with the message of its error */
function recordingLog() {
  const warnings: string[] = [];
  const log = {
    level: 'warn',
    warn: (obj: { err?: { message?: string } }, msg?: string) =>
      void warnings.push(obj.err?.message ? `${msg}: ${obj.err.message}` : (msg ?? '')),
    error: () => {},
    info: () => {},
    debug: () => {},
    trace: () => {},
    fatal: () => {},
    silent: () => {},
    child: () => log,
  };
  return { log: log as unknown as FastifyBaseLogger, warnings };
}

/**
 * A stand-in for the service's Redis client: what the store publishes, and its subscriber (made by
 * duplicate()) whose connection events a test sends itself — an error, a reconnection, a message.
 */
class FakeRedis extends EventEmitter {
  published: [string, string][] = [];
  subscribed: string[] = [];
  failing = false;
  disconnected = false;
  subscriber: FakeRedis | undefined;
  duplicate() {
    this.subscriber = new FakeRedis();
    return this.subscriber;
  }
  async publish(channel: string, message: string) {
    if (this.failing) throw new Error('Connection is closed.');
    this.published.push([channel, message]);
    return 1;
  }
  async subscribe(channel: string) {
    if (this.failing) throw new Error('Connection is closed.');
    this.subscribed.push(channel);
    return 1;
  }
  disconnect() {
    this.disconnected = true;
  }
}
const asRedis = (r: FakeRedis) => r as unknown as Redis;

/** settles what the event loop has ready (a read answered) */
const settled = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** a key as the database would give it, for stores whose reads a test answers itself */
async function realKey() {
  const { key, keyId } = await createMerchantWithKey(app);
  const real = await createKeyStore({ db: app.db, redis: null, log: app.log }).resolve(hashOf(key));
  if (!real) throw new Error('no key');
  return { key, keyId, hash: hashOf(key), real };
}

const lastUsed = async (id: string) =>
  (await app.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, id)))[0]?.at ?? null;

describe('key store', () => {
  // A database other processes change (PostgreSQL: other instances, the command line), whatever
  // this suite runs on; the embedded database has this process as its only client (below).
  it('serves a key from cache, and sees a revocation made elsewhere once the cache lifetime has passed', async () => {
    let now = 1_000_000;
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, now: () => now, sharedDatabase: true });
    const { key, keyId } = await createMerchantWithKey(app);
    expect((await store.resolve(hashOf(key)))?.revoked).toBe(false);
    await revokeKey(app.db, keyId); // as another instance or the CLI would: no message to this store
    now += KEY_CACHE_TTL_MS - 1;
    expect((await store.resolve(hashOf(key)))?.revoked).toBe(false);
    now += 2;
    expect((await store.resolve(hashOf(key)))?.revoked).toBe(true);
    await store.close();
  });

  it('a key created after an unknown-key lookup works once the negative entry expires', async () => {
    let now = 0;
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, now: () => now });
    const { key } = await createMerchantWithKey(app);
    expect(await store.resolve(`${'0'.repeat(63)}1`)).toBeNull();
    now += KEY_CACHE_TTL_MS + 1;
    expect(await store.resolve(hashOf(key))).not.toBeNull();
    await store.close();
  });

  for (const sharedDatabase of [true, false])
    it(`a key unknown at its first lookup (created meanwhile) is let in 1 s later, and an unknown key is not read again in the background (${sharedDatabase ? 'PostgreSQL' : 'embedded database'})`, async () => {
      const { hash, real } = await realKey();
      let now = 10_000;
      let reads = 0;
      const store = createKeyStore({
        db: app.db,
        redis: null,
        log: app.log,
        now: () => now,
        sharedDatabase,
        find: async () => (++reads === 1 ? null : real),
      });
      expect(await store.resolve(hash)).toBeNull();
      now += 600; // a client sending a key that does not exist, again and again
      expect(store.cached(hash)).toBeNull();
      expect(await store.resolve(hash)).toBeNull();
      await settled();
      expect(reads).toBe(1);
      now += 401; // the negative entry has ended: never answered from memory again
      expect(store.cached(hash)).toBeUndefined();
      expect(await store.resolve(hash)).toEqual(real);
      expect(reads).toBe(2);
      await store.close();
    });

  it('by default, a store on PostgreSQL never answers an ended entry from memory; on the embedded database it does while it reads again', async () => {
    const { hash, real } = await realKey();
    let now = 20_000;
    let reads = 0;
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      find: () => (++reads === 1 ? Promise.resolve(real) : new Promise(() => {})),
    });
    expect(await store.resolve(hash)).toEqual(real);
    now += 1001;
    expect(store.cached(hash)).toEqual(isEmbedded(app.db) ? real : undefined);
    await store.close();
  });

  it('lists its two caches in the cache inventory (the sillage_cache_entries metric), each bounded', async () => {
    const { hash, real } = await realKey();
    const entries = (name: string) => cacheInventory().find((c) => c.name === name)?.entries ?? 0;
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, find: async () => real });
    const before = ['widget-keys', 'widget-keys-last-known'].map(entries);
    await store.resolve(hash);
    expect(['widget-keys', 'widget-keys-last-known'].map(entries)).toEqual(before.map((n) => n + 1));
    expect(cacheInventory().find((c) => c.name === 'widget-keys')).toMatchObject({
      max: 10_000,
      ttlMs: 1000,
      invalidatedBy:
        'age (1 s; a key in use is read again in the background from 0.5 s) and a key revocation/origin change, here at once and on other instances via Redis pub/sub',
    });
    expect(cacheInventory().find((c) => c.name === 'widget-keys-last-known')).toMatchObject({
      max: 10_000,
      ttlMs: 600_000,
      invalidatedBy:
        'age (10 min) and a key revocation/origin change; read when the database does not answer, and on the embedded database while a known key is read again',
    });
    await store.close();
  });

  it('answers synchronously only what resolve has cached and is still fresh', async () => {
    let now = 0;
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, now: () => now, sharedDatabase: true });
    const { key } = await createMerchantWithKey(app);
    const unknown = `${'0'.repeat(63)}2`;
    expect(store.cached(hashOf(key))).toBeUndefined(); // not looked up yet: the caller must wait
    const resolved = await store.resolve(hashOf(key));
    expect(store.cached(hashOf(key))).toBe(resolved);
    await store.resolve(unknown);
    expect(store.cached(unknown)).toBeNull(); // known not to exist
    now += KEY_CACHE_TTL_MS + 1;
    expect(store.cached(hashOf(key))).toBeUndefined(); // stale: looked up again
    await store.invalidate(hashOf(key));
    expect(store.cached(hashOf(key))).toBeUndefined();
    await store.close();
  });

  it('a key in constant use still sees a revocation made elsewhere once the lifetime of its lookup has passed', async () => {
    let now = 5_000;
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, now: () => now, sharedDatabase: true });
    const { key, keyId } = await createMerchantWithKey(app);
    expect((await store.resolve(hashOf(key)))?.revoked).toBe(false);
    await revokeKey(app.db, keyId); // no message to this store
    for (let i = 0; i < 10; i++) {
      now += 100; // used every 100 ms: each use is a hit, and none renews the entry
      expect(store.cached(hashOf(key))?.revoked).toBe(false);
    }
    now += 1; // 1001 ms after the lookup
    expect(store.cached(hashOf(key))).toBeUndefined();
    expect((await store.resolve(hashOf(key)))?.revoked).toBe(true);
    await store.close();
  });

  it('records when a key was last used: written on close (and every minute), never for a key not used', async () => {
    const store = createKeyStore({ db: app.db, redis: null, log: app.log });
    const used = await createMerchantWithKey(app);
    const idle = await createMerchantWithKey(app);
    await store.resolve(hashOf(used.key));
    await store.resolve(hashOf(idle.key));
    store.markUsed(used.keyId);
    expect(await lastUsed(used.keyId)).toBeNull();
    await store.flush();
    const first = await lastUsed(used.keyId);
    expect(first).toBeInstanceOf(Date);
    expect(await lastUsed(idle.keyId)).toBeNull();
    // not used since: the next write leaves it as it was
    await sleep(20);
    await store.close();
    expect(await lastUsed(used.keyId)).toEqual(first);
  });

  it('writes the last-used times every minute by itself, and leaves no timer behind once closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = createKeyStore({ db: app.db, redis: null, log: app.log });
    const { keyId } = await createMerchantWithKey(app);
    store.markUsed(keyId);
    vi.advanceTimersByTime(59_999);
    await sleep(50);
    expect(await lastUsed(keyId)).toBeNull();
    vi.advanceTimersByTime(1);
    for (let i = 0; i < 100 && (await lastUsed(keyId)) === null; i++) await sleep(20);
    expect(await lastUsed(keyId)).toBeInstanceOf(Date);
    expect(vi.getTimerCount()).toBe(1);
    await store.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a shutdown just as the minute write found nothing to write still writes what was used since', async () => {
    const store = createKeyStore({ db: app.db, redis: null, log: app.log });
    const { keyId } = await createMerchantWithKey(app);
    const minute = store.flush(); // nothing used yet
    store.markUsed(keyId);
    await store.close();
    await minute;
    expect(await lastUsed(keyId)).toBeInstanceOf(Date);
  });

  it('keeps no process alive by itself: a command that made a store exits once its work is done', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const store = createKeyStore({ db: app.db, redis: null, log: app.log });
    expect(timers()).toBe(before);
    await store.close();
  });

  it('a write of the last-used times that fails is logged, not thrown, and the next one is made', async () => {
    const { log, warnings } = recordingLog();
    const store = createKeyStore({ db: app.db, redis: null, log });
    const { keyId } = await createMerchantWithKey(app);
    store.markUsed('not-a-key-id'); // refused by the database
    await store.flush();
    expect(warnings).toEqual([expect.stringMatching(/^could not record key last-used times: .*not-a-key-id/s)]);
    store.markUsed(keyId);
    await store.flush();
    expect(await lastUsed(keyId)).toBeInstanceOf(Date);
    await store.close();
  });

  it.runIf(TEST_DATABASE_URL)(
    'one write of the last-used times at a time: a database that does not answer gets no pile of them',
    async () => {
      const store = createKeyStore({ db: app.db, redis: null, log: app.log });
      const held = await createMerchantWithKey(app);
      const other = await createMerchantWithKey(app);
      let release: () => void = () => {};
      const locked = new Promise<void>((r) => (release = r));
      let holding: () => void = () => {};
      const isHolding = new Promise<void>((r) => (holding = r));
      // another transaction holds the first key's row: the write of its last-used time waits on it
      const lock = app.db.transaction(async (tx) => {
        await tx.execute(sql`select 1 from ${apiKeys} where ${apiKeys.id} = ${held.keyId} for update`);
        holding();
        await locked;
      });
      await isHolding;
      store.markUsed(held.keyId);
      const first = store.flush();
      await sleep(100);
      store.markUsed(other.keyId);
      await store.flush(); // returns at once: the first write is still under way
      expect(await lastUsed(other.keyId)).toBeNull();
      release();
      await lock;
      await first;
      expect(await lastUsed(held.keyId)).toBeInstanceOf(Date);
      await store.flush(); // what waited is written now
      expect(await lastUsed(other.keyId)).toBeInstanceOf(Date);
      await store.close();
    },
  );

  it(`notes where a key is used from, adding up repeats, and keeps at most ${MAX_SIGHTINGS_PER_FLUSH} different sightings a minute`, async () => {
    const store = createKeyStore({ db: app.db, redis: null, log: app.log });
    const k = await createMerchantWithKey(app);
    store.sighted(k.keyId, 'https://shop.example', '2', 'ok');
    store.sighted(k.keyId, 'https://shop.example', '2', 'ok');
    store.sighted(k.keyId, 'https://other.example', undefined, 'origin_not_allowed');
    // a client choosing a new origin on every request: the rows it can make are bounded
    for (let i = 0; i < MAX_SIGHTINGS_PER_FLUSH + 500; i++)
      store.sighted(k.keyId, `https://x${i}.example`, '2', 'origin_not_allowed');
    await store.flush();
    const rows = await app.db.select().from(keySightings).where(eq(keySightings.keyId, k.keyId));
    expect(rows).toHaveLength(MAX_SIGHTINGS_PER_FLUSH);
    expect(rows.find((r) => r.origin === 'https://shop.example')).toMatchObject({
      requests: 2,
      widgetVersion: '2',
      outcome: 'ok',
    });
    expect(rows.find((r) => r.origin === 'https://other.example')).toMatchObject({
      widgetVersion: '1',
      outcome: 'origin_not_allowed',
    });
    // an origin or version a client makes as long as it likes is stored cut to 200 and 20 characters
    const store2 = createKeyStore({ db: app.db, redis: null, log: app.log });
    store2.sighted(k.keyId, `https://${'a'.repeat(500)}.example`, 'v'.repeat(100), 'ok');
    await store2.flush();
    const [long] = await app.db
      .select()
      .from(keySightings)
      .where(
        and(eq(keySightings.keyId, k.keyId), eq(keySightings.outcome, 'ok'), sql`length(${keySightings.origin}) > 100`),
      );
    expect(long?.origin).toHaveLength(200);
    expect(long?.widgetVersion).toHaveLength(20);
    await store2.close();
    // the next minute adds to what is stored
    store.sighted(k.keyId, 'https://shop.example', '2', 'ok');
    await store.close();
    const [again] = await app.db
      .select()
      .from(keySightings)
      .where(and(eq(keySightings.keyId, k.keyId), eq(keySightings.origin, 'https://shop.example')));
    expect(again?.requests).toBe(3);
  });

  it('a sighting without an origin is stored with an empty one, and each keeps the time it was last seen', async () => {
    let now = Date.parse('2026-03-01T10:00:00Z');
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, now: () => now });
    const k = await createMerchantWithKey(app);
    store.sighted(k.keyId, undefined, '2', 'ok');
    now += 60_000;
    store.sighted(k.keyId, undefined, '2', 'ok');
    store.sighted(k.keyId, 'https://shop.example', '2', 'ok');
    await store.close();
    const rows = await app.db.select().from(keySightings).where(eq(keySightings.keyId, k.keyId));
    expect(
      rows
        .map((r) => [r.origin, r.requests, r.lastSeenAt.toISOString()])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      ['', 2, '2026-03-01T10:01:00.000Z'],
      ['https://shop.example', 1, '2026-03-01T10:01:00.000Z'],
    ]);
  });

  it(`a lookup that has hung ${KEY_LOOKUP_RETRY_MS} ms is started anew; before that, callers share the one in flight`, async () => {
    let now = 0;
    let calls = 0;
    const { key } = await createMerchantWithKey(app);
    const real = await createKeyStore({ db: app.db, redis: null, log: app.log }).resolve(hashOf(key));
    const answers: ((v: typeof real) => void)[] = [];
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      timeoutMs: 60_000,
      find: () => {
        calls++;
        // the first two lookups hang until told; later ones answer at once
        return calls <= 2 ? new Promise((r) => answers.push(r)) : Promise.resolve(real);
      },
    });
    const first = store.resolve(hashOf(key));
    now += KEY_LOOKUP_RETRY_MS - 1;
    const second = store.resolve(hashOf(key));
    expect(calls).toBe(1);
    now += 1; // hung exactly KEY_LOOKUP_RETRY_MS
    const third = store.resolve(hashOf(key));
    expect(calls).toBe(2);
    answers[0]?.(real); // the first answers late: the second is still the one callers join
    expect(await first).toEqual(real);
    expect(await second).toEqual(real);
    const fourth = store.resolve(hashOf(key));
    expect(calls).toBe(2);
    answers[1]?.(real);
    expect(await third).toEqual(real);
    expect(await fourth).toEqual(real);
    await store.close();
  });

  it('drops the key at once on invalidate', async () => {
    const store = createKeyStore({ db: app.db, redis: null, log: app.log, now: () => 0 });
    const { key, keyId } = await createMerchantWithKey(app);
    await store.resolve(hashOf(key));
    await revokeKey(app.db, keyId);
    await store.invalidate(hashOf(key));
    expect((await store.resolve(hashOf(key)))?.revoked).toBe(true);
    await store.close();
  });

  it.runIf(TEST_REDIS_URL)('an invalidation published on one instance reaches another through Redis', async () => {
    const redisA = new Redis(TEST_REDIS_URL as string);
    const a = createKeyStore({ db: app.db, redis: redisA, log: app.log, now: () => 0 });
    // B is given a client made as the service's (lazy, no offline queue), as the app does
    const b = createKeyStore({ db: app.db, redis: app.redis, log: app.log, now: () => 0 });
    await new Promise((r) => setTimeout(r, 300)); // subscriptions established
    const { key, keyId } = await createMerchantWithKey(app);
    await b.resolve(hashOf(key)); // cached on B, and the clock never moves
    await revokeKey(app.db, keyId);
    await a.invalidate(hashOf(key));
    const t = performance.now();
    let revoked = false;
    for (let i = 0; i < 50 && !revoked; i++) {
      revoked = (await b.resolve(hashOf(key)))?.revoked === true;
      if (!revoked) await new Promise((r) => setTimeout(r, 20));
    }
    expect(revoked).toBe(true);
    expect(performance.now() - t).toBeLessThan(1000); // refused on B within a second
    await a.close();
    await b.close();
    redisA.disconnect();
  });

  it.runIf(TEST_REDIS_URL)(
    'a revocation the command line publishes on sillage:key-invalidated reaches a running instance',
    async () => {
      const cli = new Redis(TEST_REDIS_URL as string);
      const store = createKeyStore({ db: app.db, redis: app.redis, log: app.log, now: () => 0 });
      await new Promise((r) => setTimeout(r, 300));
      const { key, keyId } = await createMerchantWithKey(app);
      await store.resolve(hashOf(key));
      await revokeKey(app.db, keyId);
      await cli.publish('sillage:key-invalidated', hashOf(key));
      for (let i = 0; i < 50 && store.cached(hashOf(key)) !== undefined; i++) await sleep(20);
      expect(store.cached(hashOf(key))).toBeUndefined();
      expect((await store.resolve(hashOf(key)))?.revoked).toBe(true);
      await store.close();
      cli.disconnect();
    },
  );

  it('a revocation heard from another instance drops the key as last read and the re-read under way', async () => {
    const { hash, real } = await realKey();
    const redis = new FakeRedis();
    let now = 30_000;
    const reads: ((v: ResolvedKey | null) => void)[] = [];
    const store = createKeyStore({
      db: app.db,
      redis: asRedis(redis),
      log: app.log,
      now: () => now,
      sharedDatabase: true,
      staleAfterMs: 50,
      timeoutMs: 60_000,
      // the first read answers at once; every later one waits until answered through `reads`
      find: () => {
        if (reads.length > 0) return new Promise((r) => reads.push(r));
        reads.push(() => {});
        return Promise.resolve(real);
      },
    });
    expect(await store.resolve(hash)).toEqual(real);
    now += KEY_REFRESH_AFTER_MS;
    expect(store.cached(hash)).toEqual(real); // read again in the background, held
    expect(reads).toHaveLength(2);
    redis.subscriber?.emit('message', 'sillage:key-invalidated', hash);
    expect(store.cached(hash)).toBeUndefined();
    reads[1]?.(real); // the read from before the revocation answers late: not kept
    await settled();
    expect(store.cached(hash)).toBeUndefined();
    // the database freezes: the revoked key is not answered as last read, the request waits for its read
    const after = store.resolve(hash);
    expect(reads).toHaveLength(3);
    expect(await Promise.race([after, sleep(150).then(() => 'waiting')])).toBe('waiting');
    reads[2]?.({ ...real, revoked: true });
    expect((await after)?.revoked).toBe(true);
    await store.close();
  });

  it('Redis trouble is logged at most once every 10 s and never fails a revocation; a closed store leaves no connection', async () => {
    const { log, warnings } = recordingLog();
    const redis = new FakeRedis();
    const store = createKeyStore({ db: app.db, redis: asRedis(redis), log });
    const sub = redis.subscriber as FakeRedis;
    // connected (at start-up or again after a restart): subscribed
    sub.emit('ready');
    await settled();
    expect(sub.subscribed).toEqual(['sillage:key-invalidated']);
    await store.invalidate('a'.repeat(64));
    expect(redis.published).toEqual([['sillage:key-invalidated', 'a'.repeat(64)]]);
    expect(warnings).toEqual([]);
    // a Redis reconnecting errors many times a second
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-03-01T10:00:00Z'));
    const error = 'key invalidation subscriber: redis error: connect ECONNREFUSED';
    sub.emit('error', new Error('connect ECONNREFUSED'));
    sub.emit('error', new Error('connect ECONNREFUSED'));
    expect(warnings).toEqual([error]);
    vi.setSystemTime(Date.parse('2026-03-01T10:00:10Z'));
    sub.emit('error', new Error('connect ECONNREFUSED'));
    expect(warnings).toEqual([error]);
    vi.setSystemTime(Date.parse('2026-03-01T10:00:10.001Z'));
    sub.emit('error', new Error('connect ECONNREFUSED'));
    expect(warnings).toEqual([error, error]);
    warnings.length = 0;
    redis.failing = true;
    sub.failing = true;
    await expect(store.invalidate('b'.repeat(64))).resolves.toBeUndefined();
    sub.emit('ready');
    await settled();
    expect(warnings).toEqual([
      'key invalidation: publish failed; other instances rely on the cache lifetime: Connection is closed.',
      'key invalidation: subscribe failed; other instances rely on the cache lifetime: Connection is closed.',
    ]);
    await store.close();
    expect(sub.disconnected).toBe(true);
    // with no Redis, an invalidation is this instance's alone, and nothing to warn about
    const alone = recordingLog();
    const local = createKeyStore({ db: app.db, redis: null, log: alone.log });
    await local.invalidate('c'.repeat(64));
    expect(alone.warnings).toEqual([]);
    await local.close();
  });
});

describe('no request waits for a key already known (issue 44)', () => {
  /** a store whose first read answers and whose later reads wait until `answer` (a database held by a write) */
  async function storeWithHeldRereads(sharedDatabase: boolean) {
    const { key } = await createMerchantWithKey(app);
    const real = await createKeyStore({ db: app.db, redis: null, log: app.log }).resolve(hashOf(key));
    if (!real) throw new Error('no key');
    const clock = { now: 1_000 };
    const reads: ((v: typeof real | null) => void)[] = [];
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => clock.now,
      // a lookup that hangs would be answered stale only after a minute: nothing here waits that long
      staleAfterMs: 60_000,
      sharedDatabase,
      // the first read answers at once; every later one waits until answered through `reads`
      find: () => {
        if (reads.length > 0) return new Promise((r) => reads.push(r));
        reads.push(() => {});
        return Promise.resolve(real);
      },
    });
    const hash = hashOf(key);
    expect(await store.resolve(hash)).toEqual(real);
    return { store, hash, real, clock, reads };
  }
  it('a key in use is read again in the background half-way through its entry, and a revocation read then is seen within the lifetime', async () => {
    const { store, hash, real, clock, reads } = await storeWithHeldRereads(true);
    clock.now += KEY_REFRESH_AFTER_MS - 1;
    expect(store.cached(hash)).toEqual(real);
    expect(reads).toHaveLength(1); // not yet
    clock.now += 1;
    expect(store.cached(hash)).toEqual(real); // answered from the entry, without waiting
    expect(reads).toHaveLength(2); // and read again meanwhile
    expect(store.cached(hash)).toEqual(real);
    expect(reads).toHaveLength(2); // one re-read at a time
    reads[1]?.({ ...real, revoked: true }); // revoked elsewhere, seen by the re-read
    await settled();
    expect(store.cached(hash)?.revoked).toBe(true); // KEY_REFRESH_AFTER_MS after the first read: within its lifetime
    await store.close();
  });

  it('on the embedded database, a known key whose entry ended is answered at once while it is read again', async () => {
    const { store, hash, real, clock, reads } = await storeWithHeldRereads(false);
    clock.now += KEY_CACHE_TTL_MS + 1;
    expect(store.cached(hash)).toEqual(real); // the database is held by a write: not waited for
    expect(reads).toHaveLength(2);
    expect(await Promise.race([store.resolve(hash), settled().then(() => 'waiting')])).toEqual(real);
    expect(reads).toHaveLength(2);
    reads[1]?.(real);
    await settled();
    // a key unknown to the database is never answered from memory: it waits for its read
    const unknown = `${'0'.repeat(63)}3`;
    const miss = store.resolve(unknown);
    expect(reads).toHaveLength(3);
    reads[2]?.(null);
    expect(await miss).toBeNull();
    clock.now += KEY_CACHE_TTL_MS + 1;
    expect(store.cached(unknown)).toBeUndefined();
    // every change of a key on the embedded database is this process's own, and drops it at once
    await store.invalidate(hash);
    expect(store.cached(hash)).toBeUndefined();
    await store.close();
  });

  it('a re-read under way when the key is dropped (revoked here) does not bring the old entry back', async () => {
    const { store, hash, real, clock, reads } = await storeWithHeldRereads(true);
    clock.now += KEY_REFRESH_AFTER_MS;
    store.cached(hash); // starts a re-read, held
    expect(reads).toHaveLength(2);
    await store.invalidate(hash); // the key revoked through this instance
    const after = store.resolve(hash);
    expect(reads).toHaveLength(3); // read anew, not the read from before the revocation
    reads[1]?.(real); // the read from before answers late
    reads[2]?.({ ...real, revoked: true });
    expect((await after)?.revoked).toBe(true);
    expect(store.cached(hash)?.revoked).toBe(true);
    await store.close();
  });
});

describe('a frozen database', () => {
  it('a background re-read that times out while a request waits on it: the request gets the key as last read, not a 503', async () => {
    let now = 7_000_000;
    let mode: 'answer' | 'slow-fail' = 'answer';
    const { key } = await createMerchantWithKey(app);
    const real = await createKeyStore({ db: app.db, redis: null, log: app.log }).resolve(hashOf(key));
    let failLookup: (err: Error) => void = () => {};
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      staleAfterMs: 10_000,
      timeoutMs: 300,
      sharedDatabase: true,
      find: async () => {
        if (mode === 'slow-fail')
          return new Promise((_resolve, reject) => {
            failLookup = reject;
          });
        return real;
      },
    });
    expect(await store.resolve(hashOf(key))).toEqual(real);
    // in use past half its lifetime: read again in the background, and the database has frozen
    now += KEY_REFRESH_AFTER_MS + 1;
    mode = 'slow-fail';
    expect(store.cached(hashOf(key))).toEqual(real);
    // the entry ends; a request joins the re-read under way, which then times out
    now += KEY_CACHE_TTL_MS;
    const pending = store.resolve(hashOf(key));
    failLookup(Object.assign(new Error('The key check timed out'), { statusCode: 503, code: 'database_unavailable' }));
    expect(await pending).toEqual(real);
    await store.close();
  });

  it('a key lookup that hangs is answered with the key as last read, after KEY_STALE_AFTER_MS; one that fails is not', async () => {
    let now = 5_000_000;
    let mode: 'answer' | 'hang' | 'fail' = 'answer';
    const { key } = await createMerchantWithKey(app);
    const real = await createKeyStore({ db: app.db, redis: null, log: app.log }).resolve(hashOf(key));
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      staleAfterMs: 50,
      timeoutMs: 300,
      sharedDatabase: true,
      find: async () => {
        if (mode === 'hang') return new Promise(() => {});
        if (mode === 'fail') throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        return real;
      },
    });
    expect(await store.resolve(hashOf(key))).toEqual(real);
    now += KEY_CACHE_TTL_MS + 1;
    mode = 'hang';
    const t = performance.now();
    expect(await store.resolve(hashOf(key))).toEqual(real);
    expect(performance.now() - t).toBeLessThan(1000);
    // a database that refuses at once is an outage like any other: the caller answers 503
    // (the stuck lookup is not waited on once KEY_LOOKUP_RETRY_MS has passed)
    now += KEY_LOOKUP_RETRY_MS + 1;
    mode = 'fail';
    await expect(store.resolve(hashOf(key))).rejects.toThrow(/ECONNREFUSED/);
    mode = 'hang';
    const t2 = performance.now();
    // a key never read before has nothing to fall back on: it waits for the database, up to the timeout
    const unknown = store.resolve(`${'0'.repeat(63)}2`);
    expect(
      await Promise.race([unknown.then(() => 'answered'), new Promise((r) => setTimeout(() => r('waiting'), 100))]),
    ).toBe('waiting');
    await expect(unknown).rejects.toMatchObject({ statusCode: 503, code: 'database_unavailable' });
    expect(performance.now() - t2).toBeLessThan(1500);
    await store.close();
  });

  it("with the service's settings: a known key is answered as last read after half a second, a key never read waits 3 s for a 503, and no request leaves a timer behind", async () => {
    const { hash, real } = await realKey();
    let now = 40_000;
    let mode: 'answer' | 'hang' = 'answer';
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      sharedDatabase: true,
      find: () => (mode === 'answer' ? Promise.resolve(real) : new Promise(() => {})),
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    expect(await store.resolve(hash)).toEqual(real);
    // a storefront's requests, each read again once its entry has ended: every answer clears its wait
    for (let i = 0; i < 20; i++) {
      now += 1001;
      expect(await store.resolve(hash)).toEqual(real);
    }
    expect(vi.getTimerCount()).toBe(0);
    mode = 'hang';
    now += 1001;
    let answered: unknown = 'waiting';
    const known = store.resolve(hash).then((v) => (answered = v));
    await vi.advanceTimersByTimeAsync(499);
    expect(answered).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(answered).toEqual(real);
    await known;
    let failed: unknown = 'waiting';
    const unknown = store.resolve(`${'0'.repeat(63)}4`).catch((err) => (failed = err));
    await vi.advanceTimersByTimeAsync(2999);
    expect(failed).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    await unknown;
    expect(failed).toMatchObject({
      statusCode: 503,
      code: 'database_unavailable',
      message: 'The key check: the database did not answer in time, retry shortly',
    });
    vi.useRealTimers();
    await store.close();
  });

  it('the key as last read answers a frozen database for at most 10 minutes', async () => {
    const { hash, real } = await realKey();
    let now = 50_000;
    let reads = 0;
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      sharedDatabase: true,
      staleAfterMs: 20,
      timeoutMs: 100,
      find: () => (++reads === 1 ? Promise.resolve(real) : new Promise(() => {})),
    });
    expect(await store.resolve(hash)).toEqual(real);
    now += 10 * 60_000 - 1;
    expect(await store.resolve(hash)).toEqual(real);
    now += 2;
    await expect(store.resolve(hash)).rejects.toMatchObject({ statusCode: 503 });
    await store.close();
  });

  it('a database that is down fails every re-read of a key in use: the key is kept, and one warning every 10 s', async () => {
    const { hash, real } = await realKey();
    const { log, warnings } = recordingLog();
    let now = 60_000;
    let reads = 0;
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log,
      now: () => now,
      sharedDatabase: true,
      find: () => (++reads === 1 ? Promise.resolve(real) : Promise.reject(new Error('connect ECONNREFUSED'))),
    });
    expect(await store.resolve(hash)).toEqual(real);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-03-01T10:00:00Z'));
    const warning = 'key re-read failed; the key as last read is kept meanwhile: connect ECONNREFUSED';
    now += KEY_REFRESH_AFTER_MS;
    for (let i = 0; i < 3; i++) {
      expect(store.cached(hash)).toEqual(real);
      await settled();
    }
    expect(reads).toBe(4);
    expect(warnings).toEqual([warning]);
    vi.setSystemTime(Date.parse('2026-03-01T10:00:10Z'));
    store.cached(hash);
    await settled();
    expect(warnings).toEqual([warning]);
    vi.setSystemTime(Date.parse('2026-03-01T10:00:10.001Z'));
    store.cached(hash);
    await settled();
    expect(warnings).toEqual([warning, warning]);
    await store.close();
  });
});
