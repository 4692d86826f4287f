import { createHash } from 'node:crypto';
import rateLimit, { type FastifyRateLimitStore, normalizeIP, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Cache } from '../../lib/cache.ts';
import { AppError } from '../../lib/errors.ts';
import { createSharedCounter, type ReconcileFn, type SharedCounter } from '../../lib/shared-counter.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';

/** Requests per minute for each widget operation (the interface's Limits table). */
export const WIDGET_RATE_LIMITS = { score: 100, event: 1000, verify: 60, lookup: 300 } as const;
export type WidgetOperation = keyof typeof WIDGET_RATE_LIMITS;
const WINDOW_MS = 60_000;

/** The key a request carries: body `api_key` first, then `Authorization: Bearer`. */
export function requestApiKey(request: FastifyRequest): string | undefined {
  const body = request.body as { api_key?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.api_key === 'string') return body.api_key;
  return bearerKey(request.headers.authorization);
}

/** The key of an `Authorization: Bearer <key>` header, else undefined. */
export function bearerKey(auth: string | undefined): string | undefined {
  if (typeof auth !== 'string') return undefined;
  return /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
}

/**
 * Counts per key and client address: one busy shop is not throttled by its
 * own customers, and one abusive browser cannot use up a shop's allowance.
 * The key is hashed so Redis never holds it in plain text.
 */
function widgetRateKey(request: FastifyRequest): string {
  const key = requestApiKey(request);
  const ip = request.ip;
  // an IPv4 address is its own normal form (normalizeIP tests for IPv6 with a long regular expression)
  return `${key ? keyDigest(key) : 'nokey'}|${ip.includes(':') ? normalizeIP(ip) : ip}`;
}

const digests = new Cache<string, string>({
  name: 'rate-limit-key-digest',
  max: 10_000,
  invalidatedBy: 'never: a pure function of the key',
});
/** The counter name of a key: a hash prefix, remembered (a busy key is sent thousands of times a minute). */
function keyDigest(key: string): string {
  let d = digests.get(key);
  if (!d) {
    d = createHash('sha256').update(key).digest('hex').slice(0, 20);
    digests.set(key, d);
  }
  return d;
}

/** Route config for a widget operation. It runs in preValidation, once the body (and its key) is parsed. */
export function widgetRateLimit(operation: WidgetOperation): RateLimitOptions {
  return {
    max: WIDGET_RATE_LIMITS[operation],
    timeWindow: WINDOW_MS,
    hook: 'preValidation',
    keyGenerator: widgetRateKey,
    // route options reach the per-route LocalStore: room for many shoppers per minute
    ...({ cache: 100_000 } as object),
  };
}

/**
 * A flood guard per client address, over every widget operation and key
 * together, as an onRequest hook: before the body is read or parsed, so a
 * client with junk keys (each a counter of its own above) or none still meets
 * a limit. Set well above one shopper's needs (many share a carrier's or an
 * office's address): ADDRESS_RATE_LIMIT, 3,000 a minute by default. Counted in
 * each instance's memory — no round trip to Redis on every request — so with
 * N instances an address may send up to N times as many.
 */
export function addressFloodGuard(max: number) {
  const counts = createWindowCounter({ name: 'address-flood-guard', max: 100_000, windowMs: WINDOW_MS });
  return (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
    const c = counts.add(request.ip.includes(':') ? normalizeIP(request.ip) : request.ip);
    if (c.count <= max) return done();
    done(
      new AppError(
        429,
        'rate_limited',
        `Too many requests from this address: at most ${max} a minute; retry in ${c.retryAfter} s`,
        undefined,
        { 'retry-after': String(c.retryAfter) },
      ),
    );
  };
}

/**
 * Shared counting (REDIS_URL set): hits are counted in this instance at once and
 * sent to Redis together every this many milliseconds, in one script call that
 * answers each counter's shared total (lib/shared-counter.ts): no request waits
 * for Redis. Across N instances a client may be admitted above its limit by
 * what the other N − 1 instances admit it within one interval (docs/operations.md).
 */
export const RECONCILE_MS = 10;
/** A counter with this many calls not yet sent is reconciled at once, not at the end of the interval. */
export const RECONCILE_HOT_HITS = 2;
/** After a failed reconciliation (Redis down or slow) the next is tried this much later; counting stays per instance meanwhile. */
export const SHARED_STORE_RETRY_MS = 2000;

/**
 * Adds each counter's hits and answers its total and time left; sets the window on a counter it
 * creates. KEYS[1] holds the number of the instance's last call applied, ARGV[1] this call's
 * number: a call Redis has run already (its answer came after the client's timeout, or was lost
 * with the connection, and the instance sends it again) only reads the totals, so a hit is never
 * counted twice. ARGV[2]: how long that number is kept (two windows: a call is not sent again once
 * its counters' window has ended).
 */
const RECONCILE_LUA = `
local seq = tonumber(ARGV[1])
local fresh = seq > tonumber(redis.call('GET', KEYS[1]) or '0')
if fresh then redis.call('SET', KEYS[1], seq, 'PX', ARGV[2]) end
local out = {}
for i = 2, #KEYS do
  local key = KEYS[i]
  local total
  if fresh then
    total = redis.call('INCRBY', key, ARGV[2 * i - 1])
  else
    total = tonumber(redis.call('GET', key) or '0')
  end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then
    ttl = tonumber(ARGV[2 * i])
    if ttl ~= nil and total > 0 then redis.call('PEXPIRE', key, ttl) end
  end
  out[2 * i - 3] = total
  out[2 * i - 2] = ttl
end
return out`;

type RedisWithReconcile = NonNullable<FastifyInstance['redis']> & {
  sillageReconcile(numberOfKeys: number, ...args: (string | number)[]): Promise<number[]>;
};

/** The Redis side of a reconciliation: one EVALSHA for up to 1,000 counters, numbered (CallId). */
export function redisReconcile(redis: NonNullable<FastifyInstance['redis']>): ReconcileFn {
  const r = redis as RedisWithReconcile;
  if (typeof r.sillageReconcile !== 'function') r.defineCommand('sillageReconcile', { lua: RECONCILE_LUA });
  return async (deltas, call) => {
    let longest = 0;
    for (const d of deltas) longest = Math.max(longest, d.windowMs);
    const args: (string | number)[] = [
      `sillage-rl-calls:${call.instance}`,
      ...deltas.map((d) => d.key),
      call.seq,
      2 * longest,
    ];
    for (const d of deltas) args.push(d.hits, d.windowMs);
    const out = await r.sillageReconcile(deltas.length + 1, ...args);
    return deltas.map((_, i) => ({ total: Number(out[2 * i]), ttlMs: Number(out[2 * i + 1]) }));
  };
}

/** The plugin's store interface over shared counters; a route's child prefixes its method and URL, as the plugin's Redis store did. */
class SharedStore implements FastifyRateLimitStore {
  constructor(
    private readonly counter: SharedCounter,
    private readonly prefix: string,
  ) {}

  incr(key: string, cb: Parameters<FastifyRateLimitStore['incr']>[1], timeWindow: number) {
    cb(null, this.counter.hit(this.prefix + key, timeWindow));
  }

  read(key: string, cb: Parameters<FastifyRateLimitStore['incr']>[1]) {
    cb(null, this.counter.read(this.prefix + key));
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    const info = (routeOptions as unknown as { routeInfo: { method: string; url: string } }).routeInfo;
    return new SharedStore(this.counter, `${this.prefix}${info.method}${info.url}-`);
  }
}

export default fp(
  async (app) => {
    const redis = app.redis;
    let lastWarn = 0;
    const onFallback = (err: Error) => {
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        app.log.warn(
          { err: { message: err.message } },
          'rate limit: redis unavailable, counting per instance until it answers',
        );
      }
    };
    let store: (new () => FastifyRateLimitStore) | undefined;
    if (redis) {
      const counter = createSharedCounter({
        name: 'rate-limit-shared',
        reconcile: redisReconcile(redis),
        flushMs: RECONCILE_MS,
        retryMs: SHARED_STORE_RETRY_MS,
        maxCounters: 200_000,
        // a client sending a burst (2 calls within one interval on one instance) is reconciled at once
        hotHits: RECONCILE_HOT_HITS,
        onError: onFallback,
      });
      app.addHook('onClose', () => counter.close());
      store = class {
        constructor() {
          // biome-ignore lint/correctness/noConstructorReturn: the plugin instantiates the store class itself
          return new SharedStore(counter, 'sillage-rl-');
        }
      } as unknown as new () => FastifyRateLimitStore;
    }

    await app.register(rateLimit, {
      global: false,
      store,
      errorResponseBuilder: (_request, context) =>
        new AppError(
          context.statusCode === 403 ? 403 : 429,
          'rate_limited',
          `Rate limit exceeded: at most ${context.max} requests a minute; retry in ${context.after}`,
        ),
    });
  },
  { name: 'rate-limit', dependencies: ['redis'] },
);
