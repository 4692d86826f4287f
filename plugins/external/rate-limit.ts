import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import rateLimit, { type FastifyRateLimitStore, normalizeIP, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Cache } from '../../lib/cache.ts';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';

/** Requests per minute for each widget operation (the interface's Limits table). */
export const WIDGET_RATE_LIMITS = { score: 100, event: 1000, verify: 60, lookup: 300 } as const;
export type WidgetOperation = keyof typeof WIDGET_RATE_LIMITS;
const WINDOW_MS = 60_000;

/** The key a request carries: body `api_key` first, then `Authorization: Bearer`. */
export function requestApiKey(request: FastifyRequest): string | undefined {
  const body = request.body as { api_key?: unknown } | null | undefined;
  if (body && typeof body === 'object' && typeof body.api_key === 'string') return body.api_key;
  const auth = request.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return m[1];
  }
  return undefined;
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

// The plugin's own stores, combined below so that Redis trouble degrades to
// per-instance counting instead of no limit or a failed request.
const require = createRequire(import.meta.url);
type StoreCtor = new (...args: unknown[]) => FastifyRateLimitStore;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as StoreCtor;
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as StoreCtor;

/**
 * After the shared store fails, counting stays local this long before Redis is
 * tried again: a Redis that times out rather than refuses (see
 * REDIS_COMMAND_TIMEOUT_MS) then delays one request now and then, not every one.
 */
export const SHARED_STORE_RETRY_MS = 2000;

class FallbackStore implements FastifyRateLimitStore {
  constructor(
    private readonly shared: FastifyRateLimitStore,
    private readonly local: FastifyRateLimitStore,
    /** one state for the store and its per-route children: Redis is down for all of them */
    private readonly state: { sharedDownUntil: number },
    private readonly onFallback: (err: Error) => void,
  ) {}

  incr(key: string, cb: Parameters<FastifyRateLimitStore['incr']>[1], timeWindow: number, max: number) {
    if (Date.now() < this.state.sharedDownUntil) return this.local.incr(key, cb, timeWindow, max);
    this.shared.incr(
      key,
      (err, result) => {
        if (!err) return cb(null, result);
        this.state.sharedDownUntil = Date.now() + SHARED_STORE_RETRY_MS;
        this.onFallback(err);
        this.local.incr(key, cb, timeWindow, max);
      },
      timeWindow,
      max,
    );
  }

  child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    return new FallbackStore(
      this.shared.child(routeOptions),
      this.local.child(routeOptions),
      this.state,
      this.onFallback,
    );
  }
}

export default fp(
  async (app) => {
    const redis = app.redis;
    let lastWarn = 0;
    const onFallback = (err: Error) => {
      if (Date.now() - lastWarn > 10_000) {
        lastWarn = Date.now();
        app.log.warn({ err: { message: err.message } }, 'rate limit: redis unavailable, counting per instance');
      }
    };
    const store = redis
      ? (class {
          constructor(params: { continueExceeding: boolean; exponentialBackoff: boolean }) {
            // biome-ignore lint/correctness/noConstructorReturn: the plugin instantiates the store class itself
            return new FallbackStore(
              new RedisStore(params.continueExceeding, params.exponentialBackoff, redis, 'sillage-rl-'),
              new LocalStore(params.continueExceeding, params.exponentialBackoff, 100_000),
              { sharedDownUntil: 0 },
              onFallback,
            );
          }
        } as unknown as StoreCtor)
      : undefined;

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
