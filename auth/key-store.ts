import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { type Db, isEmbedded } from '../db/client.ts';
import { Cache } from '../lib/cache.ts';
import { databaseTimeout, withDeadline } from '../lib/deadline.ts';
import { findKeyByHash, type KeySighting, type ResolvedKey, recordSightings, touchKeys } from '../services/keys.ts';

/**
 * Resolves key hashes to keys with a short-lived cache, so a busy storefront
 * does not cost a database round-trip per request.
 *
 * Revocation and origin changes take effect at once on the instance that made
 * them (the entry is dropped) and, when Redis is configured, on every other
 * instance through a pub/sub message. The cache lifetime bounds the delay if a
 * message is missed (Redis reconnecting).
 *
 * No request waits for a key it already knows to be read again: a key in use
 * is read again in the background once its entry is KEY_REFRESH_AFTER_MS old,
 * and the answer renews the entry before it ends, so on PostgreSQL a busy key
 * is re-read every half second and never waited for. On the embedded database
 * every change is this process's own (its entry dropped at once), so a known
 * key is answered as last read while it is read again: PGlite runs one
 * transaction at a time, and a feed pull's store step holds it for seconds.
 */
export const KEY_CACHE_TTL_MS = 1000;
/** A key used once its entry is this old is read again in the background (the entry still answers). */
export const KEY_REFRESH_AFTER_MS = KEY_CACHE_TTL_MS / 2;
const KEY_CACHE_MAX = 10_000;
const LAST_USED_FLUSH_MS = 60_000;
/**
 * Different (key, origin, widget version, outcome) sightings kept between two flushes; past it, new
 * ones wait for the next minute. Origins are the client's to choose, so this bounds memory and rows.
 */
export const MAX_SIGHTINGS_PER_FLUSH = 1000;
/** Longest origin stored for the install check; longer ones are cut. */
const MAX_SIGHTED_ORIGIN = 200;
export const KEY_INVALIDATION_CHANNEL = 'sillage:key-invalidated';
/**
 * When the database does not answer a key lookup within this long (frozen,
 * not down: its connections open but silent), the key as last read, at most
 * KEY_STALE_MAX_MS old, answers instead: a storefront keeps its widget while
 * the lookup goes on. A revocation made meanwhile is seen once the database
 * answers (here at once through invalidate).
 */
export const KEY_STALE_AFTER_MS = 500;
export const KEY_STALE_MAX_MS = 10 * 60_000;
/** a lookup that has not settled after this long (a frozen connection) is not waited on: the next starts anew */
export const KEY_LOOKUP_RETRY_MS = 5000;

export function createKeyStore(opts: {
  db: Db;
  redis: Redis | null;
  log: FastifyBaseLogger;
  now?: () => number;
  /** how a key is read from the database (a test hands in one that hangs) */
  find?: (db: Db, hash: string) => Promise<ResolvedKey | null>;
  staleAfterMs?: number;
  /** how long a key never read before waits on the database before a 503 (DB_TIMEOUT_MS) */
  timeoutMs?: number;
  /**
   * whether other processes may change keys in the database (PostgreSQL: other instances, the
   * command line); false on the embedded database, whose only client is this process
   */
  sharedDatabase?: boolean;
}) {
  const { db, redis, log, now } = opts;
  const find = opts.find ?? findKeyByHash;
  const staleAfterMs = opts.staleAfterMs ?? KEY_STALE_AFTER_MS;
  const timeoutMs = opts.timeoutMs ?? 3000;
  const sharedDatabase = opts.sharedDatabase ?? !isEmbedded(db);
  const lastKnown = new Cache<string, ResolvedKey | null>(
    {
      name: 'widget-keys-last-known',
      max: KEY_CACHE_MAX,
      ttlMs: KEY_STALE_MAX_MS,
      invalidatedBy:
        'age (10 min) and a key revocation/origin change; read when the database does not answer, and on the embedded database while a known key is read again',
    },
    // Stryker disable next-line ConditionalExpression: { now: undefined } is read as no clock, like {}
    now ? { now } : {},
  );
  const cache = new Cache<string, { key: ResolvedKey | null; at: number }>(
    {
      name: 'widget-keys',
      max: KEY_CACHE_MAX,
      // counted from the lookup, not renewed by use: a key in constant use still sees a revocation
      ttlMs: KEY_CACHE_TTL_MS,
      invalidatedBy:
        'age (1 s; a key in use is read again in the background from 0.5 s) and a key revocation/origin change, here at once and on other instances via Redis pub/sub',
    },
    // Stryker disable next-line ConditionalExpression: { now: undefined } is read as no clock, like {}
    now ? { now } : {},
  );
  const clock = now ?? Date.now;
  /** lookups under way, with when they started: one stuck longer than KEY_LOOKUP_RETRY_MS is started anew */
  const inflight = new Map<string, { promise: Promise<ResolvedKey | null>; at: number }>();
  const used = new Set<string>();
  const sightings = new Map<string, KeySighting>();
  let subscriber: Redis | null = null;

  if (redis) {
    // The shared client is lazyConnect with no offline queue (see plugins/app/redis.ts); a
    // plain duplicate() would inherit both, so it would never connect and subscribe() would
    // fail at once: every other instance would then see a revocation only when its cache
    // entry expires. The subscriber connects itself and subscribes each time it is ready,
    // so a Redis that was down at start-up or restarted since is subscribed to again.
    let lastWarn = 0;
    const sub = redis.duplicate({ lazyConnect: false });
    subscriber = sub;
    sub.on('error', (err) => {
      // a reconnecting client errors many times a second; one line every 10 s is enough
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        log.warn({ err: { message: err.message } }, 'key invalidation subscriber: redis error');
      }
    });
    sub.on('message', (_channel, hash) => {
      cache.delete(hash);
      lastKnown.delete(hash);
      inflight.delete(hash);
    });
    sub.on('ready', () => {
      sub.subscribe(KEY_INVALIDATION_CHANNEL).catch((err) => {
        log.warn({ err }, 'key invalidation: subscribe failed; other instances rely on the cache lifetime');
      });
    });
  }

  // last_used_at is written in one statement a minute, not once per request
  const flushTimer = setInterval(() => void flushUsed(), LAST_USED_FLUSH_MS);
  flushTimer.unref();

  // one write at a time: a database that does not answer gets no pile of them
  let flushing = false;
  async function flushUsed() {
    if ((used.size === 0 && sightings.size === 0) || flushing) return;
    const ids = [...used];
    const seen = [...sightings.values()];
    used.clear();
    sightings.clear();
    flushing = true;
    try {
      await touchKeys(db, ids);
      await recordSightings(db, seen);
    } catch (err) {
      log.warn({ err }, 'could not record key last-used times');
    } finally {
      flushing = false;
    }
  }

  /**
   * The key behind a hash when this instance knows it now (null: no such key), else undefined. A
   * key whose entry is KEY_REFRESH_AFTER_MS old is read again meanwhile; on the embedded database a
   * known key whose entry has ended is answered as last read while it is read again.
   */
  function cached(hash: string): ResolvedKey | null | undefined {
    const entry = cache.get(hash);
    if (entry) {
      if (entry.key && clock() - entry.at >= KEY_REFRESH_AFTER_MS) refresh(hash);
      return entry.key;
    }
    if (!sharedDatabase) {
      const known = lastKnown.get(hash);
      if (known) {
        refresh(hash);
        return known;
      }
    }
    return undefined;
  }

  /** the lookup of a hash under way, or a new one; one hung KEY_LOOKUP_RETRY_MS is not waited on */
  function lookup(hash: string): Promise<ResolvedKey | null> {
    const running = inflight.get(hash);
    if (running && clock() - running.at < KEY_LOOKUP_RETRY_MS) return running.promise;
    const entry = { promise: Promise.resolve(null as ResolvedKey | null), at: clock() };
    entry.promise = find(db, hash)
      .then((value) => {
        // dropped meanwhile (invalidate): this older read must not bring the entry back
        if (inflight.get(hash) === entry) {
          cache.set(hash, { key: value, at: clock() });
          lastKnown.set(hash, value);
        }
        return value;
      })
      .finally(() => {
        if (inflight.get(hash) === entry) inflight.delete(hash);
      });
    inflight.set(hash, entry);
    return entry.promise;
  }

  let lastRefreshWarn = 0;
  /**
   * reads the key again in the background, or joins the read under way (lookup); a failure keeps what
   * is known (the next use tries again)
   */
  function refresh(hash: string): void {
    lookup(hash).catch((err) => {
      // a database that is down fails every re-read: one line every 10 s is enough
      if (Date.now() - lastRefreshWarn > 10_000) {
        lastRefreshWarn = Date.now();
        log.warn({ err }, 'key re-read failed; the key as last read is kept meanwhile');
      }
    });
  }

  async function resolve(hash: string): Promise<ResolvedKey | null> {
    const hit = cached(hash);
    if (hit !== undefined) return hit;
    const running = inflight.get(hash);
    const pending = lookup(hash);
    // a key never read before has nothing to fall back on: its request waits, but not for ever
    if (!lastKnown.has(hash)) return withDeadline(pending, timeoutMs, () => databaseTimeout('The key check'));
    const stale = lastKnown.get(hash) ?? null;
    // a lookup this request joined was started earlier (a background re-read): its failure, which may
    // come at any moment of this request (a frozen database's timeout), is answered with the key as
    // last read, as its hanging would be; a lookup this request started that fails is an outage (503)
    // (a lookup this request started is a new entry, never the one found before it: `running` undefined or not)
    const joined = inflight.get(hash) === running;
    const answer = joined ? pending.catch(() => stale) : pending;
    let timer: NodeJS.Timeout | undefined;
    const fallback = new Promise<ResolvedKey | null>((resolveStale) => {
      timer = setTimeout(() => resolveStale(stale), staleAfterMs);
    });
    // a lookup that fails outright (database down) is answered as before; one that hangs, stale
    return Promise.race([answer, fallback]).finally(() => clearTimeout(timer));
  }

  /** Drops the key here and tells the other instances to drop it too. */
  async function invalidate(hash: string): Promise<void> {
    cache.delete(hash);
    lastKnown.delete(hash);
    inflight.delete(hash);
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
    /**
     * Notes where a key was used from (origin, widget version) and whether it was let in, for the
     * console's install check; written with the last-used times, at most MAX_SIGHTINGS_PER_FLUSH a minute.
     */
    sighted(keyId: string, origin: string | undefined, widgetVersion: string | undefined, outcome: string) {
      const o = (origin ?? '').slice(0, MAX_SIGHTED_ORIGIN);
      const v = (widgetVersion ?? '1').slice(0, 20);
      const id = `${keyId}\n${o}\n${v}\n${outcome}`;
      const known = sightings.get(id);
      if (known) {
        known.requests++;
        known.lastSeenAt = new Date(clock());
      } else if (sightings.size < MAX_SIGHTINGS_PER_FLUSH) {
        sightings.set(id, { keyId, origin: o, widgetVersion: v, outcome, requests: 1, lastSeenAt: new Date(clock()) });
      }
    },
    /** writes what is waiting now (tests, shutdown) */
    flush: () => flushUsed(),
    async close() {
      clearInterval(flushTimer);
      await flushUsed();
      if (subscriber) subscriber.disconnect();
    },
  };
}

export type KeyStore = ReturnType<typeof createKeyStore>;
