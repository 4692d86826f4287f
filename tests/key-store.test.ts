import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyStore,
  KEY_CACHE_TTL_MS,
  KEY_LOOKUP_RETRY_MS,
  KEY_REFRESH_AFTER_MS,
  MAX_SIGHTINGS_PER_FLUSH,
} from '../auth/key-store.ts';
import { parseKey } from '../auth/keys.ts';
import { apiKeys, keySightings } from '../schema/index.ts';
import { revokeKey } from '../services/keys.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, TEST_REDIS_URL, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

const hashOf = (key: string) => {
  const p = parseKey(key);
  if (!p.ok) throw new Error('bad key');
  return p.hash;
};

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
    const lastUsed = async (id: string) =>
      (await app.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, id)))[0]?.at ?? null;
    expect(await lastUsed(used.keyId)).toBeNull();
    await store.close();
    expect(await lastUsed(used.keyId)).toBeInstanceOf(Date);
    expect(await lastUsed(idle.keyId)).toBeNull();
  });

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

  it(`a lookup that has hung ${KEY_LOOKUP_RETRY_MS} ms is started anew; before that, callers share the one in flight`, async () => {
    let now = 0;
    let calls = 0;
    const { key } = await createMerchantWithKey(app);
    const real = await createKeyStore({ db: app.db, redis: null, log: app.log }).resolve(hashOf(key));
    let answer: (v: typeof real) => void = () => {};
    const store = createKeyStore({
      db: app.db,
      redis: null,
      log: app.log,
      now: () => now,
      timeoutMs: 60_000,
      find: () => {
        calls++;
        // the first lookup hangs until told; later ones answer at once
        return calls === 1 ? new Promise((r) => (answer = r)) : Promise.resolve(real);
      },
    });
    const first = store.resolve(hashOf(key));
    now += KEY_LOOKUP_RETRY_MS - 1;
    const second = store.resolve(hashOf(key));
    expect(calls).toBe(1);
    now += 2;
    expect(await store.resolve(hashOf(key))).toEqual(real);
    expect(calls).toBe(2);
    answer(real);
    expect(await first).toEqual(real);
    expect(await second).toEqual(real);
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
    const { Redis } = await import('ioredis');
    const redisA = new Redis(TEST_REDIS_URL as string);
    const redisB = new Redis(TEST_REDIS_URL as string);
    const a = createKeyStore({ db: app.db, redis: redisA, log: app.log, now: () => 0 });
    const b = createKeyStore({ db: app.db, redis: redisB, log: app.log, now: () => 0 });
    await new Promise((r) => setTimeout(r, 200)); // subscriptions established
    const { key, keyId } = await createMerchantWithKey(app);
    await b.resolve(hashOf(key)); // cached on B, and the clock never moves
    await revokeKey(app.db, keyId);
    await a.invalidate(hashOf(key));
    let revoked = false;
    for (let i = 0; i < 50 && !revoked; i++) {
      revoked = (await b.resolve(hashOf(key)))?.revoked === true;
      if (!revoked) await new Promise((r) => setTimeout(r, 20));
    }
    expect(revoked).toBe(true);
    await a.close();
    await b.close();
    redisA.disconnect();
    redisB.disconnect();
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
  /** settles what the event loop has ready (a read answered) */
  const settled = () => new Promise((r) => setImmediate(r));

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
});
