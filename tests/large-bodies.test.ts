import type { FastifyRequest } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import {
  bodyBytes,
  createByteBudget,
  LARGE_BODY_BYTES,
  laneOf,
  largeBodyRefusal,
  largeBodyWork,
  markKnownKey,
  markProvenBeforeBody,
} from '../http/large-bodies.ts';

/**
 * The budget of strangers' large bodies, alone (http/large-bodies.ts): its arithmetic, the size a
 * body is counted at, which lane a request draws on, and its refusal. In the app:
 * tests/security/large-bodies.test.ts.
 */
describe('a budget of bytes a second', () => {
  it('takes what it holds, refuses what it does not with the whole seconds until it will, refills at its rate', () => {
    let now = 1_000_000;
    const budget = createByteBudget({ bytesPerSecond: 1000, burst: 2000, now: () => now });
    expect(budget.take(1500)).toBe(0);
    expect(budget.take(500)).toBe(0);
    // empty: 1 byte needs a thousandth of a second, answered as 1 s; 1,500 bytes 1.5 s, answered as 2
    expect(budget.take(1)).toBe(1);
    expect(budget.take(1500)).toBe(2);
    // what was refused took nothing
    now += 1000;
    expect(budget.take(1001)).toBe(1);
    expect(budget.take(1000)).toBe(0);
    // never more than the burst, however long it waited
    now += 60_000;
    expect(budget.take(2000)).toBe(0);
    expect(budget.take(1)).toBe(1);
    // …and a body larger than the whole bucket is taken from a full one, which then owes the rest
    now += 60_000;
    expect(budget.take(2500)).toBe(0);
    expect(budget.take(1)).toBe(1);
    now += 500;
    expect(budget.take(1)).toBe(1);
    now += 2;
    expect(budget.take(1)).toBe(0);
  });

  it('a clock that steps back refills nothing', () => {
    let now = 5_000;
    const budget = createByteBudget({ bytesPerSecond: 100, burst: 100, now: () => now });
    expect(budget.take(100)).toBe(0);
    now -= 60_000;
    expect(budget.take(1)).toBe(1);
    now += 60_000 + 10;
    expect(budget.take(1)).toBe(0);
  });

  it("reads the process's clock when given none", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-03-01T10:00:00Z'));
      const budget = createByteBudget({ bytesPerSecond: 10, burst: 10 });
      expect(budget.take(10)).toBe(0);
      expect(budget.take(10)).toBe(1);
      vi.setSystemTime(new Date('2026-03-01T10:00:01Z'));
      expect(budget.take(10)).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the bytes a body will be read as', () => {
  it('its Content-Length; its route limit when chunked; nothing for GET, HEAD or no body', () => {
    expect(bodyBytes('POST', { 'content-length': '70000' }, 1e6)).toBe(70_000);
    expect(bodyBytes('PUT', { 'content-length': '0' }, 1e6)).toBe(0);
    expect(bodyBytes('POST', { 'content-length': 'x' }, 1e6)).toBe(0);
    expect(bodyBytes('POST', { 'transfer-encoding': 'chunked' }, 123_456)).toBe(123_456);
    expect(bodyBytes('POST', {}, 1e6)).toBe(0);
    expect(bodyBytes('GET', { 'content-length': '70000' }, 1e6)).toBe(0);
    expect(bodyBytes('HEAD', { 'transfer-encoding': 'chunked' }, 1e6)).toBe(0);
  });
});

/** a request as the guard sees it */
const request = (bytes: number, o: { limit?: number; method?: string; proven?: boolean } = {}) =>
  ({
    method: o.method ?? 'POST',
    headers: { 'content-length': String(bytes) },
    routeOptions: { bodyLimit: o.limit ?? 1024 * 1024, config: o.proven ? { provenBeforeBody: true } : {} },
  }) as unknown as FastifyRequest;

describe('which bodies draw on which budget', () => {
  const counting = () => {
    const taken: number[] = [];
    return {
      taken,
      take: (n: number) => {
        taken.push(n);
        return 0;
      },
    };
  };

  it('only bodies over 64 KB, within their route limit, from a sender not proven before its body', () => {
    const stranger = counting();
    const key = counting();
    const budgets = { stranger, key };
    expect(largeBodyRefusal(request(LARGE_BODY_BYTES), budgets)).toBeNull();
    expect(largeBodyRefusal(request(LARGE_BODY_BYTES + 1), budgets)).toBeNull();
    // past its route's limit: 413 unread, nothing taken
    expect(largeBodyRefusal(request(200_000, { limit: 199_999 }), budgets)).toBeNull();
    expect(largeBodyRefusal(request(200_000, { limit: 200_000 }), budgets)).toBeNull();
    // GET reads no body
    expect(largeBodyRefusal(request(200_000, { method: 'GET' }), budgets)).toBeNull();
    // the operator's routes (the admin token, checked in onRequest)
    expect(largeBodyRefusal(request(200_000, { proven: true }), budgets)).toBeNull();
    // a sender proven in onRequest (a Zid delivery's secret)
    const zid = request(300_000);
    markProvenBeforeBody(zid);
    expect(laneOf(zid)).toBe('proven');
    expect(largeBodyRefusal(zid, budgets)).toBeNull();
    // a widget key this instance found real, named in the headers: the keys' lane
    const keyed = request(400_000);
    markKnownKey(keyed);
    expect(laneOf(keyed)).toBe('key');
    expect(largeBodyRefusal(keyed, budgets)).toBeNull();
    expect(laneOf(request(1))).toBe('stranger');
    expect(stranger.taken).toEqual([LARGE_BODY_BYTES + 1, 200_000]);
    expect(key.taken).toEqual([400_000]);
  });

  it('a refusal: 503 overloaded, Retry-After, the connection closed; counted per lane', () => {
    const refuse = { take: () => 3 };
    const before = structuredClone(largeBodyWork);
    const err = largeBodyRefusal(request(100_000), { stranger: refuse, key: refuse });
    expect(err).toMatchObject({
      statusCode: 503,
      code: 'overloaded',
      headers: { 'retry-after': '3', connection: 'close' },
    });
    expect(err?.message).toBe(
      'This instance is reading all the bodies over 64 KB from senders not known before their body it reads a second; retry in 3 s',
    );
    const keyed = request(100_000);
    markKnownKey(keyed);
    expect(largeBodyRefusal(keyed, { stranger: refuse, key: refuse })?.message).toBe(
      'This instance is reading all the bodies over 64 KB with a widget key in their headers it reads a second; retry in 3 s',
    );
    expect(largeBodyWork.stranger.refused).toBe(before.stranger.refused + 1);
    expect(largeBodyWork.key.refused).toBe(before.key.refused + 1);
    const take = { take: () => 0 };
    largeBodyRefusal(request(100_000), { stranger: take, key: take });
    expect(largeBodyWork.stranger).toEqual({
      bodies: before.stranger.bodies + 1,
      bytes: before.stranger.bytes + 100_000,
      refused: before.stranger.refused + 1,
    });
  });
});
