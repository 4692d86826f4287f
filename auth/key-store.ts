import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client.ts';
import { Cache } from '../lib/cache.ts';
import { findKeyByHash, type ResolvedKey, touchKeys } from '../services/keys.ts';

/**
 * Resolves key hashes to keys with a short-lived cache, so a busy storefront
 * does not cost a database round-trip per request.
 *
 * Revocation and origin changes take effect at once on the instance that made
 * them (the entry is dropped) and, when Redis is configured, on every other
 * instance through a pub/sub message. The cache lifetime bounds the delay if a
 * message is missed (Redis reconnecting).
 */
export const KEY_CACHE_TTL_MS = 1000;
const KEY_CACHE_MAX = 10_000;
const LAST_USED_FLUSH_MS = 60_000;
export const KEY_INVALIDATION_CHANNEL = 'sillage:key-invalidated';

export function createKeyStore(opts: { db: Db; redis: Redis | null; log: FastifyBaseLogger; now?: () => number }) {
  const { db, redis, log, now } = opts;
  const cache = new Cache<string, ResolvedKey | null>(
    {
      name: 'widget-keys',
      max: KEY_CACHE_MAX,
      // counted from the lookup, not renewed by use: a key in constant use still sees a revocation
      ttlMs: KEY_CACHE_TTL_MS,
      invalidatedBy:
        'age (1 s) and a key revocation/origin change, here at once and on other instances via Redis pub/sub',
    },
    now ? { now } : {},
  );
  const inflight = new Map<string, Promise<ResolvedKey | null>>();
  const used = new Set<string>();
  let subscriber: Redis | null = null;

  if (redis) {
    // The shared client is lazyConnect with no offline queue (see plugins/app/redis.ts); a
    // plain duplicate() would inherit both, so it would never connect and subscribe() would
    // fail at once: every other instance would then see a revocation only when its cache
    // entry expires. The subscriber connects itself and subscribes each time it is ready,
    // so a Redis that was down at start-up or restarted since is subscribed to again.
    let lastWarn = 0;
    subscriber = redis.duplicate({ lazyConnect: false });
    subscriber.on('error', (err) => {
      // a reconnecting client errors many times a second; one line every 10 s is enough
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        log.warn({ err: { message: err.message } }, 'key invalidation subscriber: redis error');
      }
    });
    subscriber.on('message', (_channel, hash) => cache.delete(hash));
    subscriber.on('ready', () => {
      subscriber?.subscribe(KEY_INVALIDATION_CHANNEL).catch((err) => {
        log.warn({ err }, 'key invalidation: subscribe failed; other instances rely on the cache lifetime');
      });
    });
  }

  // last_used_at is written in one statement a minute, not once per request
  const flushTimer = setInterval(() => void flushUsed(), LAST_USED_FLUSH_MS);
  flushTimer.unref();

  async function flushUsed() {
    if (used.size === 0) return;
    const ids = [...used];
    used.clear();
    try {
      await touchKeys(db, ids);
    } catch (err) {
      log.warn({ err }, 'could not record key last-used times');
    }
  }

  /** the key behind a hash when this instance knows it now (null: no such key), else undefined */
  function cached(hash: string): ResolvedKey | null | undefined {
    return cache.get(hash);
  }

  async function resolve(hash: string): Promise<ResolvedKey | null> {
    const hit = cached(hash);
    if (hit !== undefined) return hit;
    let pending = inflight.get(hash);
    if (!pending) {
      pending = findKeyByHash(db, hash)
        .then((value) => {
          cache.set(hash, value);
          return value;
        })
        .finally(() => inflight.delete(hash));
      inflight.set(hash, pending);
    }
    return pending;
  }

  /** Drops the key here and tells the other instances to drop it too. */
  async function invalidate(hash: string): Promise<void> {
    cache.delete(hash);
    if (!redis) return;
    try {
      await redis.publish(KEY_INVALIDATION_CHANNEL, hash);
    } catch (err) {
      log.warn({ err }, 'key invalidation: publish failed; other instances rely on the cache lifetime');
    }
  }

  return {
    resolve,
    cached,
    invalidate,
    markUsed: (keyId: string) => used.add(keyId),
    async close() {
      clearInterval(flushTimer);
      await flushUsed();
      if (subscriber) subscriber.disconnect();
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
