import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';

/** Refused posts to /api/platforms/* one address may send a minute, per instance; past them, 429. */
export const REFUSED_POSTS_PER_ADDRESS = 60;
const WINDOW_MS = 60_000;

/** Requests that proved their sender (a platform's signature, a store's secret): their refusals are not counted. */
const proven = new WeakSet<object>();

/**
 * The request proved who sent it: a refusal after this point (an unknown store in a signed
 * delivery, a body the platform sent wrong) is the platform's own, not a stranger's guess.
 */
export function markProven(request: FastifyRequest): void {
  proven.add(request);
}

const addressOf = (ip: string) => (ip.includes(':') ? normalizeIP(ip) : ip);

/**
 * A limit per client address on the platform posts nobody vouched for (a webhook without a
 * valid signature, for a store or a platform this service does not know): each such refusal is
 * counted when it is answered, and an address past REFUSED_POSTS_PER_ADDRESS in the current minute
 * is answered 429 in onRequest, before its body is read, until the minute ends. The platforms'
 * own deliveries are signed, so they are never counted: a platform's server is refused only when
 * the same address also sent that many refused posts. Counted in each instance's memory (no round
 * trip to Redis): with N instances an address may send N times as many.
 */
export function refusedPostGuard(max = REFUSED_POSTS_PER_ADDRESS) {
  const refusals = createWindowCounter({ name: 'platform-refused-posts', max: 100_000, windowMs: WINDOW_MS });
  return {
    onRequest(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
      if (request.method !== 'POST') return done();
      const c = refusals.peek(addressOf(request.ip));
      if (c.count < max) return done();
      done(
        new AppError(
          429,
          'rate_limited',
          `Too many refused posts from this address: at most ${max} a minute; retry in ${c.retryAfter} s`,
          undefined,
          { 'retry-after': String(c.retryAfter) },
        ),
      );
    },
    onResponse(request: FastifyRequest, reply: FastifyReply, done: () => void) {
      const status = reply.statusCode;
      // a 429 is this limit's own (or another's) answer, a 5xx the service's failure: neither is a refused guess
      if (request.method === 'POST' && status >= 400 && status < 500 && status !== 429 && !proven.has(request)) {
        refusals.add(addressOf(request.ip));
      }
      done();
    },
  };
}
