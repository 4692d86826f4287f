/**
 * Strangers' large bodies, counted together (docs/security.md, finding 1 of issue 44).
 *
 * Each body a stranger may send is bounded (http/json-body.ts: the largest costs the main thread
 * at most 20 ms), but strangers are many: twenty megabytes a second, each from an address of its
 * own, took about 29% of the main thread (reading, decoding and parsing them, collecting their
 * garbage), and no limit per address or per key saw them. So the bytes of large bodies — over
 * LARGE_BODY_BYTES — whose sender has not proved itself before the body is read are drawn from one
 * budget per instance, refilled at a fixed rate; a body the budget cannot pay for now is refused
 * `503 overloaded` with Retry-After before it is read, and its connection closed rather than read
 * to its end.
 *
 * Who has proved itself before the body is read: an operator (the admin token, checked in
 * onRequest), a Zid delivery (its URL carries the store's secret). A widget request whose
 * `Authorization: Bearer` names a key this instance has found real draws on a budget of its own
 * (the keys' lane), the same size: a stranger's flood cannot starve a shop's inline catalogs, and
 * since publishable keys are public, the keys' lane is bounded as well. Small bodies never touch
 * either budget: a shopper's synced score, an event, a verify, a lookup, a platform's ordinary
 * delivery are all under LARGE_BODY_BYTES. Pure but for the request's headers: no Fastify hooks here
 * (plugins/app/large-bodies.ts).
 */
import type { FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';

/** A body over this many bytes is large (http/json-body.ts parses one of more characters in a turn of its own). */
export const LARGE_BODY_BYTES = 64 * 1024;

/** A bucket of bytes, refilled at `bytesPerSecond` up to `burst`. */
export interface ByteBudget {
  /**
   * Takes `bytes` when the bucket holds them (or is full, for a body larger than the whole
   * bucket: it then owes the rest) and answers 0; otherwise takes nothing and answers the whole
   * seconds until it will (at least 1).
   */
  take(bytes: number): number;
}

export function createByteBudget(opts: { bytesPerSecond: number; burst: number; now?: () => number }): ByteBudget {
  const { bytesPerSecond: rate, burst } = opts;
  const clock = opts.now ?? (() => Date.now());
  let held = burst;
  let at = clock();
  return {
    take(bytes) {
      const now = clock();
      // a clock that steps back refills nothing
      held = Math.min(burst, held + (Math.max(0, now - at) * rate) / 1000);
      at = now;
      const need = Math.min(bytes, burst);
      if (held >= need) {
        held -= bytes;
        return 0;
      }
      return Math.max(1, Math.ceil((need - held) / rate));
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** every request of this route that gets as far as its body has proved its sender (the admin token in onRequest) */
    provenBeforeBody?: boolean;
  }
}

/** Requests whose sender proved itself in onRequest (a Zid delivery's secret). */
const proven = new WeakSet<object>();
/** Widget requests whose Authorization header names a key this instance found real. */
const keyed = new WeakSet<object>();

/** The request's sender proved itself before its body is read: its body draws on no budget. */
export function markProvenBeforeBody(request: FastifyRequest): void {
  proven.add(request);
}

/** The request names, in its headers, a widget key this instance found real: its large body draws on the keys' lane. */
export function markKnownKey(request: FastifyRequest): void {
  keyed.add(request);
}

export type Lane = 'proven' | 'key' | 'stranger';

export function laneOf(request: FastifyRequest): Lane {
  if (proven.has(request) || request.routeOptions.config?.provenBeforeBody === true) return 'proven';
  return keyed.has(request) ? 'key' : 'stranger';
}

/**
 * The bytes of body a request will have read: 0 for GET and HEAD (never read); its
 * Content-Length; else, when it has a Transfer-Encoding (chunked: its size is known at its end),
 * the most its route reads; else 0 (no body).
 */
export function bodyBytes(method: string, headers: FastifyRequest['headers'], routeLimit: number): number {
  if (method === 'GET' || method === 'HEAD') return 0;
  const length = headers['content-length'];
  if (length !== undefined) return Number(length) || 0;
  return headers['transfer-encoding'] === undefined ? 0 : routeLimit;
}

/** What the budgets did, for the tests that count it (bytes and bodies each lane took, bodies it refused). */
export const largeBodyWork = {
  stranger: { bodies: 0, bytes: 0, refused: 0 },
  key: { bodies: 0, bytes: 0, refused: 0 },
};

/**
 * The refusal of a request whose large body its lane cannot pay for now, or null (the body is then
 * read, and its bytes are taken). A body over its route's limit is refused 413 unread, and takes
 * nothing.
 */
export function largeBodyRefusal(
  request: FastifyRequest,
  budgets: Record<Exclude<Lane, 'proven'>, ByteBudget>,
): AppError | null {
  const limit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
  const bytes = bodyBytes(request.method, request.headers, limit);
  if (bytes <= LARGE_BODY_BYTES || bytes > limit) return null;
  const lane = laneOf(request);
  if (lane === 'proven') return null;
  const work = largeBodyWork[lane];
  const wait = budgets[lane].take(bytes);
  if (wait === 0) {
    work.bodies++;
    work.bytes += bytes;
    return null;
  }
  work.refused++;
  const from = lane === 'key' ? 'with a widget key in their headers' : 'from senders not known before their body';
  return new AppError(
    503,
    'overloaded',
    `This instance is reading all the bodies over 64 KB ${from} it reads a second; retry in ${wait} s`,
    undefined,
    // the body is not read: the connection is closed rather than drained
    { 'retry-after': String(wait), connection: 'close' },
  );
}
