import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import { inArray, sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEY_CACHE_TTL_MS, KEY_INVALIDATION_CHANNEL } from '../auth/key-store.ts';
import { parseKey } from '../auth/keys.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { WIDGET_RATE_LIMITS } from '../plugins/external/rate-limit.ts';
import { apiKeys, events, widgetSessions } from '../schema/index.ts';
import {
  type Answer,
  adminHeaders,
  BASE_FEED,
  createMerchantAndKey,
  FaultProxy,
  type Instance,
  outputsOf,
  poll,
  QUIZ,
  request,
  shownProducts,
  sleep,
  startInstance,
  startRequest,
  stopAllInstances,
  syncProducts,
} from './cluster.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './helper.ts';

/**
 * Real service processes under faults: PostgreSQL restarting under load,
 * Redis going away, the process killed mid-ingestion, and SIGTERM with
 * requests in flight. PostgreSQL and Redis are cut off through a TCP proxy
 * (tests/cluster.ts), never stopped: other test files use them meanwhile.
 * (Skipped with a printed line, by tests/global-setup.ts, without both servers.)
 */
describe.runIf(TEST_DATABASE_URL && TEST_REDIS_URL)('faults', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  const started: Instance[] = [];
  const proxies: FaultProxy[] = [];
  const redisUrl = TEST_REDIS_URL as string;

  beforeAll(async () => {
    scratch = await createScratchDatabase(TEST_DATABASE_URL as string, 'sillage_faults');
    await scratch.database.migrate();
  });
  afterAll(async () => {
    await stopAllInstances();
    await Promise.all(proxies.map((p) => p.close()));
    await scratch?.database.close();
    await scratch?.drop();
  });
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      process.stderr.write(outputsOf(started));
    });
  });

  async function start(
    name: string,
    opts: { databaseUrl?: string; redisUrl?: string; logLevel?: string; env?: Record<string, string> } = {},
  ) {
    const instance = await startInstance({
      name,
      databaseUrl: opts.databaseUrl ?? scratch.url,
      redisUrl: opts.redisUrl ?? redisUrl,
      logLevel: opts.logLevel,
      env: opts.env,
    });
    started.push(instance);
    await instance.ready();
    return instance;
  }

  async function proxyTo(url: string) {
    const proxy = await FaultProxy.start(url);
    proxies.push(proxy);
    return proxy;
  }

  /** The ids among `ids` that the events table holds. */
  async function storedEventIds(ids: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (let i = 0; i < ids.length; i += 5000) {
      const rows = await scratch.database.db
        .select({ id: events.eventId })
        .from(events)
        .where(inArray(events.eventId, ids.slice(i, i + 5000)));
      for (const r of rows) if (r.id) found.add(r.id);
    }
    return found;
  }

  const isJson = (a: Answer) => /^application\/json/.test(String(a.headers['content-type']));

  it('PostgreSQL restarting under load: JSON 503s meanwhile, never a hang or a 500; recovers by itself; every 202 stored', async () => {
    const proxy = await proxyTo(scratch.url);
    const node = await start('pg-proxied', { databaseUrl: proxy.urlFor(scratch.url) });
    const { merchantId, key } = await createMerchantAndKey(node, 'pgfault');
    await syncProducts(node, merchantId, BASE_FEED);

    type Outcome = { kind: 'event' | 'score' | 'verify'; id?: string; sentAt: number; answer?: Answer; error?: Error };
    const outcomes: Outcome[] = [];
    let stop = false;
    const run = `pg-${randomUUID().slice(0, 8)}`;
    // Steady traffic, each kind from its own client address so no rate limit is reached:
    // two event senders, a shopper scoring a few times a second, a verify a second.
    async function loop(kind: Outcome['kind'], lane: number, everyMs: number) {
      for (let n = 0; !stop; n++) {
        const id = kind === 'event' ? `${run}-${lane}-${n}` : undefined;
        const body =
          kind === 'event'
            ? { api_key: key, type: 'widget_loaded', event_id: id }
            : kind === 'score'
              ? { api_key: key, locale: 'en', quiz: QUIZ }
              : { api_key: key };
        const sentAt = performance.now();
        try {
          // a hang shows as a ClientTimeout, never as a slow pass
          const answer = await request(`${node.url}/api/widget/${kind}`, {
            body,
            localAddress: `127.0.0.${20 + lane}`,
            timeoutMs: 8000,
          });
          outcomes.push({ kind, id, sentAt, answer });
        } catch (error) {
          outcomes.push({ kind, id, sentAt, error: error as Error });
        }
        await sleep(everyMs);
      }
    }
    const ok = (o: Outcome) => o.answer?.status === (o.kind === 'event' ? 202 : 200);
    const loops = [loop('event', 1, 25), loop('event', 2, 25), loop('score', 3, 250), loop('verify', 4, 1100)];

    await poll('traffic to flow', () => outcomes.filter(ok).length >= 20, { timeoutMs: 10_000 });
    const cutAt = performance.now();
    await proxy.cut('refuse');
    // the outage: ~3 s, as long as a PostgreSQL restart takes
    await poll('503s during the outage', () => outcomes.some((o) => o.answer?.status === 503), { timeoutMs: 5000 });
    await sleep(Math.max(0, 3000 - (performance.now() - cutAt)));
    const restoredAt = performance.now();
    await proxy.restore();
    const recovered = await poll(
      'an event accepted again after the restore',
      () => outcomes.find((o) => o.kind === 'event' && o.sentAt >= restoredAt && o.answer?.status === 202),
      { timeoutMs: 20_000, intervalMs: 20 },
    );
    const recoveryMs = (recovered.answer as Answer).at - restoredAt;
    // a further second of traffic after recovery, all of it served
    const steadyFrom = performance.now();
    await sleep(1000);
    stop = true;
    await Promise.all(loops);

    const failures = outcomes.filter((o) => o.error);
    expect(failures.map((o) => `${o.kind}: ${o.error?.name} ${o.error?.message}`)).toEqual([]);
    for (const o of outcomes) {
      const a = o.answer as Answer;
      expect(isJson(a), `${o.kind} ${a.status} ${a.body.slice(0, 200)}`).toBe(true);
      if (ok(o)) continue;
      expect(a.status, `${o.kind}: ${a.body}`).toBe(503);
      // an event whose connection was cut once its COMMIT was sent may be stored: it says so (docs/security.md)
      expect(a.json<{ code: string }>().code).toMatch(
        o.kind === 'event' ? /^(database_unavailable|write_outcome_unknown)$/ : /^database_unavailable$/,
      );
      expect(a.headers['retry-after']).toMatch(/^\d+$/);
    }
    const slowest = Math.max(...outcomes.map((o) => o.answer?.ms ?? 0));
    expect(slowest).toBeLessThan(3000);
    const after = outcomes.filter((o) => o.sentAt >= steadyFrom);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((o) => !ok(o)).map((o) => `${o.kind} ${o.answer?.status}`)).toEqual([]);
    expect(node.child.exitCode).toBeNull(); // the same process served before and after

    const acknowledged = outcomes.filter((o) => o.kind === 'event' && ok(o)).map((o) => o.id as string);
    const stored = await storedEventIds(outcomes.filter((o) => o.kind === 'event').map((o) => o.id as string));
    const missing = acknowledged.filter((id) => !stored.has(id));
    const refused = outcomes.filter((o) => o.answer?.status === 503);
    process.stdout.write(
      `PostgreSQL outage (3 s, connections refused): ${outcomes.length} requests, ${refused.length} answered 503, ` +
        `slowest answer ${Math.round(slowest)} ms; first event accepted ${Math.round(recoveryMs)} ms after the restore; ` +
        `events acknowledged ${acknowledged.length}, stored ${acknowledged.length - missing.length}, missing ${missing.length}\n`,
    );
    expect(missing).toEqual([]);
    // back within seconds of PostgreSQL, not after the driver's reconnect backoff (up to 20 s by default)
    expect(recoveryMs).toBeLessThan(5000);
    await node.stop();
  }, 90_000);

  it('PostgreSQL frozen (connections open, never answering): lookup, verify and cached scores keep answering; events get a 503 within the timeout and none of those is stored; every 202 is', async () => {
    const timeoutMs = 1500;
    const proxy = await proxyTo(scratch.url);
    const node = await start('pg-frozen', {
      databaseUrl: proxy.urlFor(scratch.url),
      env: { DB_TIMEOUT_MS: String(timeoutMs) },
    });
    const { merchantId, key } = await createMerchantAndKey(node, 'pgfrozen');
    await syncProducts(node, merchantId, BASE_FEED);

    type Outcome = { kind: string; id?: string; sentAt: number; answer?: Answer; error?: Error };
    const outcomes: Outcome[] = [];
    let stop = false;
    const run = `frozen-${randomUUID().slice(0, 8)}`;
    const bodies: Record<string, (n: number, lane: number) => object> = {
      event: (n, lane) => ({ api_key: key, type: 'widget_opened', event_id: `${run}-${lane}-${n}` }),
      score: () => ({ api_key: key, locale: 'en', quiz: QUIZ }),
      verify: () => ({ api_key: key }),
      lookup: () => ({ api_key: key, query: 'sauvage' }),
    };
    async function loop(kind: string, lane: number, everyMs: number) {
      for (let n = 0; !stop; n++) {
        const body = bodies[kind]?.(n, lane) as { event_id?: string };
        const sentAt = performance.now();
        try {
          const answer = await request(`${node.url}/api/widget/${kind}`, {
            body,
            localAddress: `127.0.0.${40 + lane}`,
            timeoutMs: 3 * timeoutMs + 2000,
          });
          outcomes.push({ kind, id: body.event_id, sentAt, answer });
        } catch (error) {
          outcomes.push({ kind, id: body.event_id, sentAt, error: error as Error });
        }
        await sleep(everyMs);
      }
    }
    const ok = (o: Outcome) => o.answer?.status === (o.kind === 'event' ? 202 : 200);
    const loops = [
      loop('event', 1, 30),
      loop('event', 2, 30),
      loop('score', 3, 200),
      loop('verify', 4, 700),
      loop('lookup', 5, 300),
    ];
    await poll(
      'traffic to flow',
      () => ['event', 'score', 'verify', 'lookup'].every((k) => outcomes.some((o) => o.kind === k && ok(o))),
      {
        timeoutMs: 10_000,
      },
    );
    const frozenAt = performance.now();
    await proxy.cut('freeze');
    await sleep(3 * timeoutMs + 1000);
    const thawedAt = performance.now();
    await proxy.restore();
    await poll(
      'an event accepted again after the thaw',
      () => outcomes.find((o) => o.kind === 'event' && o.sentAt >= thawedAt && ok(o)),
      { timeoutMs: 20_000, intervalMs: 20 },
    );
    await sleep(500);
    stop = true;
    await Promise.all(loops);

    expect(outcomes.filter((o) => o.error).map((o) => `${o.kind}: ${o.error?.message}`)).toEqual([]);
    const during = outcomes.filter((o) => o.sentAt >= frozenAt && o.sentAt < thawedAt);
    // what needs no write is answered from memory throughout
    for (const kind of ['score', 'verify', 'lookup']) {
      const mine = during.filter((o) => o.kind === kind);
      expect(mine.length, kind).toBeGreaterThan(0);
      expect(mine.filter((o) => !ok(o)).map((o) => `${kind} ${o.answer?.status} ${o.answer?.body}`)).toEqual([]);
    }
    // events: a 503 with Retry-After, never a wait much past the timeout
    const refused = outcomes.filter((o) => o.kind === 'event' && !ok(o));
    expect(refused.length).toBeGreaterThan(0);
    for (const o of refused) {
      expect(o.answer?.status, o.answer?.body).toBe(503);
      expect(o.answer?.headers['retry-after']).toMatch(/^\d+$/);
      expect(o.answer?.json()).toMatchObject({
        code: expect.stringMatching(/^(database_unavailable|write_outcome_unknown)$/),
      });
    }
    const slowest = Math.max(...outcomes.map((o) => o.answer?.ms ?? 0));
    expect(slowest).toBeLessThan(2 * timeoutMs + 1000);
    // what was acknowledged is stored; what was refused as not stored is not, even after the thaw
    await sleep(1000);
    const ids = outcomes.filter((o) => o.kind === 'event').map((o) => o.id as string);
    const stored = await storedEventIds(ids);
    const acknowledged = outcomes.filter((o) => o.kind === 'event' && ok(o)).map((o) => o.id as string);
    const notStored = refused.filter((o) => o.answer?.json<{ code: string }>().code === 'database_unavailable');
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(notStored.filter((o) => stored.has(o.id as string)).map((o) => o.id)).toEqual([]);
    process.stdout.write(
      `PostgreSQL frozen ${Math.round(thawedAt - frozenAt)} ms (DB_TIMEOUT_MS ${timeoutMs}): ${during.length} requests meanwhile; ` +
        `score/verify/lookup all answered; events refused ${refused.length} (${notStored.length} as not stored, none of them stored), ` +
        `slowest answer ${Math.round(slowest)} ms; acknowledged ${acknowledged.length}, all stored\n`,
    );
    expect(node.child.exitCode).toBeNull();
    await node.stop();
  }, 90_000);

  // refuse: the Redis process stopped; freeze: Redis partitioned away, its connections open but silent
  it.each(['refuse', 'freeze'] as const)(
    'Redis cut (%s): widget and admin calls keep working, rate limits count per instance, and Redis is used again once back',
    async (mode) => {
      const proxy = await proxyTo(redisUrl);
      const node = await start(`redis-${mode}`, { redisUrl: proxy.urlFor(redisUrl) });
      const { merchantId, key } = await createMerchantAndKey(node, 'redisfault');
      await syncProducts(node, merchantId, BASE_FEED);
      const extraKey = async () => {
        const res = await request(`${node.url}/api/admin/merchants/${merchantId}/keys`, {
          headers: adminHeaders,
          body: { mode: 'live' },
        });
        expect(res.status).toBe(201);
        return res.json<{ id: string; key: string }>();
      };
      const spare = await extraKey();
      const later = await extraKey();

      // An answer must never wait for Redis, so a short client timeout.
      const call = (op: string, body: object, from = '127.0.0.40') =>
        request(`${node.url}/api/widget/${op}`, { body, localAddress: from, timeoutMs: 3000 });
      expect((await call('verify', { api_key: key })).status).toBe(200);
      await proxy.cut(mode);
      for (let round = 0; round < 3; round++) {
        expect((await call('verify', { api_key: key })).status).toBe(200);
        const scored = await call('score', { api_key: key, locale: 'en', quiz: QUIZ });
        expect(scored.status).toBe(200);
        expect(shownProducts(scored).length).toBeGreaterThan(0);
        expect((await call('event', { api_key: key, type: 'widget_loaded' })).status).toBe(202);
        const merchant = await request(`${node.url}/api/admin/merchants/${merchantId}`, {
          headers: adminHeaders,
          timeoutMs: 3000,
        });
        expect(merchant.status).toBe(200);
      }
      // a revocation through this instance still takes effect here at once
      const revoked = await request(`${node.url}/api/admin/keys/${spare.id}/revoke`, {
        method: 'POST',
        headers: adminHeaders,
        timeoutMs: 3000,
      });
      expect(revoked.status).toBe(200);
      expect((await call('verify', { api_key: spare.key })).json()).toMatchObject({ code: 'revoked_api_key' });
      // the limit still holds, counted by this instance alone, for a fresh shopper
      const limit = WIDGET_RATE_LIMITS.verify;
      const codes: number[] = [];
      for (let n = 0; n <= limit; n++) codes.push((await call('verify', { api_key: key }, '127.0.0.41')).status);
      expect(codes.slice(0, limit).every((c) => c === 200)).toBe(true);
      expect(codes[limit]).toBe(429);
      await poll('the log to say rate limits count per instance', () =>
        node.output().includes('rate limit: redis unavailable, counting per instance'),
      );

      const restoredAt = performance.now();
      await proxy.restore();
      // back to the shared counters: a verify call shows up in Redis again
      const redis = new Redis(redisUrl);
      try {
        const digest = createHash('sha256').update(key).digest('hex').slice(0, 20);
        const counter = `sillage-rl-POST/api/widget/verify-${digest}|127.0.0.42`;
        const sharedAgainAt = await poll(
          'the instance to count in Redis again',
          async () => {
            const res = await call('verify', { api_key: key }, '127.0.0.42');
            expect(res.status).toBe(200);
            return Number(await redis.get(counter)) > 0 ? res.at : undefined;
          },
          { timeoutMs: 15_000, intervalMs: 100 },
        );
        // and the key-invalidation subscriber is subscribed again: a revocation made by
        // another instance (the row updated, the message published) is refused here well
        // within the cache lifetime
        const subscribed = () =>
          redis
            .call('CLIENT', 'LIST', 'TYPE', 'pubsub')
            .then((list) =>
              [...proxy.upstreamPorts()].some((port) => String(list).includes(`addr=127.0.0.1:${port} `)),
            );
        await poll('the invalidation subscriber to subscribe again', subscribed, {
          timeoutMs: 15_000,
          intervalMs: 100,
        });
        expect((await call('event', { api_key: later.key, type: 'widget_loaded' })).status).toBe(202);
        await scratch.database.db
          .update(apiKeys)
          .set({ revokedAt: sql`now()` })
          .where(sql`${apiKeys.id} = ${later.id}`);
        const parsed = parseKey(later.key);
        if (!parsed.ok) throw new Error('bad key');
        const publishedAt = performance.now();
        await redis.publish(KEY_INVALIDATION_CHANNEL, parsed.hash);
        const refusedAt = await poll(
          'the revoked key to be refused',
          async () => {
            const res = await call('event', { api_key: later.key, type: 'widget_loaded' });
            return res.status === 403 ? res.at : undefined;
          },
          { timeoutMs: 5000, intervalMs: 5 },
        );
        process.stdout.write(
          `Redis outage (${mode}): shared counting again ${Math.round(sharedAgainAt - restoredAt)} ms after the restore; ` +
            `a revocation from elsewhere refused ${Math.round(refusedAt - publishedAt)} ms after its message\n`,
        );
        expect(refusedAt - publishedAt).toBeLessThan(KEY_CACHE_TTL_MS / 2);
      } finally {
        redis.disconnect();
      }
      expect((await call('event', { api_key: key, type: 'widget_loaded' })).status).toBe(202);
      await node.stop();
    },
    90_000,
  );

  it('kill -9 during event ingestion: every event answered 202 is stored', async () => {
    const node = await start('killed');
    const { key } = await createMerchantAndKey(node, 'kill');
    const run = `kill-${randomUUID().slice(0, 8)}`;
    const acknowledged: string[] = [];
    const unanswered: string[] = [];
    const other: string[] = [];
    let killed = false;
    // six shoppers (each its own address, so no rate limit), each posting batches of five
    // back to back, so requests are always in flight: some when the process dies
    const clients = Array.from({ length: 6 }, async (_, c) => {
      for (let n = 0; !killed; n++) {
        const ids = Array.from({ length: 5 }, (_, e) => `${run}-${c}-${n}-${e}`);
        try {
          const res = await request(`${node.url}/api/widget/event`, {
            body: { api_key: key, events: ids.map((event_id) => ({ type: 'widget_loaded', event_id })) },
            localAddress: `127.0.0.${50 + c}`,
            timeoutMs: 10_000,
          });
          if (res.status === 202) acknowledged.push(...ids);
          else other.push(`${res.status} ${res.body}`);
        } catch (err) {
          // in flight when the process died: these may or may not be stored
          if (killed) unanswered.push(...ids);
          else other.push(String(err));
        }
      }
    });
    await poll('events to flow', () => acknowledged.length >= 500, { timeoutMs: 20_000, intervalMs: 5 });
    killed = true;
    node.child.kill('SIGKILL');
    const exit = await node.exited;
    await Promise.all(clients);
    expect(exit.signal).toBe('SIGKILL');
    expect(other).toEqual([]);
    expect(unanswered.length).toBeGreaterThan(0); // the kill did land mid-request

    const stored = await storedEventIds([...acknowledged, ...unanswered]);
    const missing = acknowledged.filter((id) => !stored.has(id));
    const unansweredStored = unanswered.filter((id) => stored.has(id)).length;
    process.stdout.write(
      `kill -9: ${acknowledged.length} events acknowledged, ${acknowledged.length - missing.length} stored, ${missing.length} missing; ` +
        `${unanswered.length} without an answer, of which ${unansweredStored} stored\n`,
    );
    expect(missing).toEqual([]);
  }, 60_000);

  it('SIGTERM with requests in flight: they complete normally, buffered writes are flushed, exit 0 within the grace period', async () => {
    // info level: the log's "incoming request" lines show the server has begun each request
    const node = await start('terminated', { logLevel: 'info' });
    const { merchantId, key } = await createMerchantAndKey(node, 'sigterm');
    await syncProducts(node, merchantId, BASE_FEED);
    // a browser's connections: kept alive between requests
    const agent = new http.Agent({ keepAlive: true });
    try {
      // answered scores whose session records are still buffered (plugins/app/sessions.ts)
      const sessions = Array.from({ length: 20 }, () => randomUUID());
      const scored = await Promise.all(
        sessions.map((session_id, n) =>
          request(`${node.url}/api/widget/score`, {
            body: { api_key: key, locale: 'en', quiz: QUIZ, session_id },
            localAddress: `127.0.0.${60 + (n % 5)}`,
          }),
        ),
      );
      expect(scored.map((r) => r.status)).toEqual(sessions.map(() => 200));

      // requests the server has begun but cannot answer yet: their bodies are still coming
      const run = `term-${randomUUID().slice(0, 8)}`;
      const batches = [0, 1].map((b) => Array.from({ length: 10 }, (_, e) => `${run}-${b}-${e}`));
      const lateSession = randomUUID();
      const inFlight = [
        ...batches.map((ids, b) =>
          startRequest(
            `${node.url}/api/widget/event`,
            { api_key: key, events: ids.map((event_id) => ({ type: 'widget_loaded', event_id })) },
            { agent, headers: { 'x-request-id': `${run}-events-${b}` } },
          ),
        ),
        startRequest(
          `${node.url}/api/widget/score`,
          { api_key: key, locale: 'en', quiz: QUIZ, session_id: lateSession },
          { agent, headers: { 'x-request-id': `${run}-score` } },
        ),
      ];
      const begun = (id: string) =>
        node
          .output()
          .split('\n')
          .some((l) => l.includes(`"reqId":"${id}"`) && l.includes('incoming request'));
      await poll('the server to begin the in-flight requests', () =>
        [`${run}-events-0`, `${run}-events-1`, `${run}-score`].every(begun),
      );

      const termAt = performance.now();
      node.child.kill('SIGTERM');
      await poll('the server to start shutting down', () => node.output().includes('"msg":"shutting down"'));
      const answers = await Promise.all(inFlight.map((r) => r.finish()));
      expect(answers.map((a) => a.status)).toEqual([202, 202, 200]);
      expect(answers[0]?.json()).toEqual({ accepted: 10, duplicates: 0 });
      expect(answers[1]?.json()).toEqual({ accepted: 10, duplicates: 0 });
      expect(shownProducts(answers[2] as Answer).length).toBeGreaterThan(0);

      // the grace period is 10 s (server.ts): past it the process exits 1 with work undone
      const exit = await Promise.race([node.exited, sleep(15_000).then(() => null)]);
      const exitMs = performance.now() - termAt;
      process.stdout.write(
        `SIGTERM with 3 requests in flight: exited ${JSON.stringify(exit)} after ${Math.round(exitMs)} ms\n`,
      );
      expect(exit).toEqual({ code: 0, signal: null });
      expect(exitMs).toBeLessThan(10_000);

      const rows = await scratch.database.db
        .select({ id: widgetSessions.id })
        .from(widgetSessions)
        .where(inArray(widgetSessions.id, [...sessions, lateSession]));
      expect(rows.map((r) => r.id).sort()).toEqual([...sessions, lateSession].sort());
      const stored = await storedEventIds(batches.flat());
      expect(stored.size).toBe(20);
    } finally {
      agent.destroy();
    }
  }, 60_000);
});
