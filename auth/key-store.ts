import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client.ts';
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

interface Entry {
  value: ResolvedKey | null;
  expires: number;
}

export function createKeyStore(opts: { db: Db; redis: Redis | null; log: FastifyBaseLogger; now?: () => number }) {
  const { db, redis, log } = opts;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, Entry>();
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
    const hit = cache.get(hash);
    return hit && hit.expires > now() ? hit.value : undefined;
  }

  async function resolve(hash: string): Promise<ResolvedKey | null> {
    const hit = cached(hash);
    if (hit !== undefined) return hit;
    let pending = inflight.get(hash);
    if (!pending) {
      pending = findKeyByHash(db, hash)
        .then((value) => {
          if (cache.size >= KEY_CACHE_MAX) {
            const oldest = cache.keys().next().value;
            if (oldest !== undefined) cache.delete(oldest);
          }
          cache.delete(hash);
          cache.set(hash, { value, expires: now() + KEY_CACHE_TTL_MS });
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
