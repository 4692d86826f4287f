import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createPerfumeSuggester,
  createSillageClient,
  DEFAULT_TIMEOUT_MS,
  MAX_BATCH,
  moveHighlight,
  parseRetryAfter,
  randomId,
  SUGGEST_DEBOUNCE_MS,
  type Suggestions,
  UNAVAILABLE,
  type WidgetEvent,
} from '../widget/client.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

const BASE = 'https://reco.example.com/';
const KEY = 'pk_test_fake';

interface Call {
  url: string;
  init: RequestInit;
  body: Record<string, unknown>;
}

/** A fetch that records calls and answers from a queue of responders. */
function fakeFetch(...responders: ((call: Call) => Response | Promise<Response>)[]) {
  const calls: Call[] = [];
  const fn = vi.fn(async (url: string | URL | Request, init: RequestInit = {}) => {
    const call = { url: String(url), init, body: JSON.parse(String(init.body)) as Record<string, unknown> };
    calls.push(call);
    const respond = responders[Math.min(calls.length - 1, responders.length - 1)];
    if (!respond) throw new Error('no responder');
    return respond(call);
  });
  return { fetch: fn as unknown as typeof fetch, calls };
}
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
/** never answers until aborted, like a hung server */
const hang = (call: Call) =>
  new Promise<Response>((_, reject) => {
    call.init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
  });

const quiz = { families: ['oud'], accord_ratings: { oud: 'love' } };

describe('headless client: results, never exceptions', () => {
  it('sends the key, the version header and the session, and resolves ok with the data', async () => {
    const f = fakeFetch(json(200, { recommendations: [] }));
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch, sessionId: 's-1' });
    const res = await client.score({ quiz });
    expect(res).toEqual({ ok: true, status: 200, data: { recommendations: [] } });
    const [call] = f.calls;
    expect(call?.url).toBe('https://reco.example.com/api/widget/score');
    expect((call?.init.headers as Record<string, string> | undefined)?.['x-widget-version']).toBe('v1');
    expect(call?.body).toMatchObject({ api_key: KEY, session_id: 's-1', quiz });
  });

  it('names the key in the Authorization header as well for an inline catalog, a large body (and only then)', async () => {
    const f = fakeFetch(json(200, { recommendations: [] }));
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    await client.score({ quiz });
    await client.score({
      quiz,
      catalog_mode: 'inline',
      inline_catalog: [{ merchant_product_id: 'p1', name: 'Oud', house: 'Atelier' }],
    });
    const headers = f.calls.map((c) => (c.init.headers as Record<string, string>).authorization);
    expect(headers).toEqual([undefined, `Bearer ${KEY}`]);
    expect(f.calls[1]?.body).toMatchObject({ api_key: KEY, catalog_mode: 'inline' });
  });

  it("gives the server's error sentence and code on a refusal", async () => {
    const f = fakeFetch(json(400, { error: 'quiz.families: unknown family "x"', code: 'validation_failed' }));
    const res = await createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch }).score({ quiz });
    expect(res).toEqual({
      ok: false,
      status: 400,
      error: 'quiz.families: unknown family "x"',
      code: 'validation_failed',
    });
  });

  it('falls back to a generic unavailability message when the body is not JSON or has no error', async () => {
    const html = fakeFetch(() => new Response('<html>502 Bad Gateway</html>', { status: 502 }));
    const r1 = await createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: html.fetch }).verify();
    expect(r1).toMatchObject({ ok: false, status: 502, error: UNAVAILABLE, code: 'unavailable' });
    const empty = fakeFetch(json(500, { message: 'x' }));
    const r2 = await createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: empty.fetch }).verify();
    expect(r2).toMatchObject({ ok: false, error: UNAVAILABLE });
  });

  it('turns a network failure, or a fetch that throws at once, into a result', async () => {
    const down = fakeFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(await createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: down.fetch }).verify()).toMatchObject({
      ok: false,
      status: 0,
      code: 'network',
      error: UNAVAILABLE,
    });
    const throws = (() => {
      throw new Error('boom');
    }) as unknown as typeof fetch;
    expect(await createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: throws }).verify()).toMatchObject({
      ok: false,
      code: 'network',
    });
  });

  it('accepts both forms of Retry-After and assumes 60 seconds without one', () => {
    expect(parseRetryAfter('12', 0)).toBe(12);
    expect(parseRetryAfter(new Date(30_000).toUTCString(), 0)).toBe(30);
    expect(parseRetryAfter(null, 0)).toBe(60);
    expect(parseRetryAfter('soon', 0)).toBe(60);
  });
});

describe('headless client: ids', () => {
  it('are UUID version 7 carrying their time, so later ids sort after earlier ones', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 48 - 2 }), fc.integer({ min: 1, max: 2 ** 40 }), (t, dt) => {
        const id = randomId(t);
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(Number.parseInt(id.replace('-', '').slice(0, 12), 16)).toBe(t);
        const later = Math.min(t + dt, 2 ** 48 - 1);
        expect(randomId(later) > id).toBe(true);
      }),
    );
  });
});

describe('headless client: time', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives up after 4 seconds by default, and after its own timeout when given one', async () => {
    const f = fakeFetch(hang);
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    const pending = client.score({ quiz });
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject({ ok: false, status: 0, code: 'timeout', error: UNAVAILABLE });

    const quick = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: fakeFetch(hang).fetch, timeoutMs: 500 });
    const p2 = quick.verify();
    await vi.advanceTimersByTimeAsync(500);
    expect(await p2).toMatchObject({ code: 'timeout' });
  });

  it('after a 429 it stays away for Retry-After seconds instead of retrying', async () => {
    const f = fakeFetch(
      json(429, { error: 'Rate limit exceeded', code: 'rate_limited' }, { 'retry-after': '12' }),
      json(200, {}),
    );
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    const first = await client.score({ quiz });
    expect(first).toMatchObject({ ok: false, status: 429, retryAfter: 12, error: 'Rate limit exceeded' });
    await vi.advanceTimersByTimeAsync(11_000);
    const second = await client.score({ quiz });
    expect(second).toMatchObject({ ok: false, status: 429, code: 'rate_limited', retryAfter: 1 });
    expect(f.calls).toHaveLength(1); // no request was made
    // other operations are not held back by the score limit
    expect((await client.verify()).ok).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await client.score({ quiz })).ok).toBe(true);
    expect(f.calls).toHaveLength(3);
  });

  it("a score call's own timeout overrides the client's, for that call only", async () => {
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: fakeFetch(hang).fetch, timeoutMs: 500 });
    let settled = false;
    const slow = client.score({ quiz }, { timeoutMs: 2000 });
    void slow.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(1999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await slow).toMatchObject({ code: 'timeout' });
    const verify = client.verify();
    await vi.advanceTimersByTimeAsync(500);
    expect(await verify).toMatchObject({ code: 'timeout' });
  });

  it('a 503 with Retry-After says when to try again, and does not close the operation', async () => {
    const f = fakeFetch(
      json(503, { error: 'down', code: 'database_unavailable' }, { 'retry-after': '5' }),
      json(503, { error: 'down', code: 'database_unavailable' }),
      json(200, {}),
    );
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    expect(await client.score({ quiz })).toMatchObject({ ok: false, status: 503, retryAfter: 5 });
    const second = await client.score({ quiz });
    expect(second).toMatchObject({ ok: false, status: 503 });
    expect(second).not.toHaveProperty('retryAfter');
    expect((await client.score({ quiz })).ok).toBe(true);
    expect(f.calls).toHaveLength(3);
  });

  it('assumes 60 seconds when a 429 carries no Retry-After', async () => {
    const f = fakeFetch(json(429, {}), json(200, {}));
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    expect(await client.verify()).toMatchObject({ status: 429, retryAfter: 60 });
    await vi.advanceTimersByTimeAsync(59_000);
    expect((await client.verify()).ok).toBe(false);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await client.verify()).ok).toBe(true);
    expect(f.calls).toHaveLength(2);
  });

  it('batches tracked events into one request, each with an id, a time and the session', async () => {
    const f = fakeFetch(json(202, { accepted: 3, duplicates: 0 }));
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch, sessionId: 'sess' });
    client.track({ type: 'widget_loaded' });
    client.track({ type: 'widget_opened' });
    client.track({ type: 'recommendation_clicked', merchant_product_id: 'sku-1', position: 2 });
    expect(f.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(f.calls).toHaveLength(1);
    const events = f.calls[0]?.body.events as (WidgetEvent & Record<string, string>)[];
    expect(events.map((e) => e.type)).toEqual(['widget_loaded', 'widget_opened', 'recommendation_clicked']);
    for (const e of events) {
      expect(e.event_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(String(e.occurred_at)))).toBe(false);
      expect(e.session_id).toBe('sess');
    }
    expect(new Set(events.map((e) => e.event_id)).size).toBe(3);
    expect(f.calls[0]?.init.keepalive).toBe(true);
    expect(client.pending).toBe(0);
  });

  it(`sends at once when ${MAX_BATCH} events are waiting`, async () => {
    const f = fakeFetch(json(202, { accepted: MAX_BATCH, duplicates: 0 }));
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    for (let i = 0; i < MAX_BATCH; i++) client.track({ type: 'widget_opened' });
    await vi.advanceTimersByTimeAsync(0);
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0]?.body.events).toHaveLength(MAX_BATCH);
  });

  it('on page hide it sends by sendBeacon as text/plain JSON, and by fetch when the beacon is refused', async () => {
    const beacons: { url: string; body: string }[] = [];
    const f = fakeFetch(json(202, { accepted: 1, duplicates: 0 }));
    let accept = true;
    const client = createSillageClient({
      baseUrl: BASE,
      apiKey: KEY,
      fetch: f.fetch,
      sendBeacon: (url, body) => {
        if (!accept) return false;
        beacons.push({ url, body: String(body) });
        return true;
      },
    });
    client.track({ type: 'recommendation_clicked', merchant_product_id: 'sku-9', position: 1 });
    await client.flush({ beacon: true });
    expect(f.calls).toHaveLength(0);
    expect(beacons).toHaveLength(1);
    expect(beacons[0]?.url).toBe('https://reco.example.com/api/widget/event');
    const sent = JSON.parse(beacons[0]?.body ?? '{}');
    expect(sent.api_key).toBe(KEY);
    expect(sent.events[0]).toMatchObject({ type: 'recommendation_clicked', merchant_product_id: 'sku-9', position: 1 });

    accept = false;
    client.track({ type: 'widget_closed' });
    await client.flush({ beacon: true });
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0]?.init.keepalive).toBe(true);
    // nothing was scheduled after the flush
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.calls).toHaveLength(1);
  });

  it('keeps a batch the service could not take and sends it later, not in a loop', async () => {
    const f = fakeFetch(
      json(503, { error: 'down', code: 'database_unavailable' }),
      json(202, { accepted: 2, duplicates: 0 }),
    );
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch, flushDelayMs: 1000 });
    client.track({ type: 'widget_loaded' });
    client.track({ type: 'widget_opened' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(f.calls).toHaveLength(1);
    expect(client.pending).toBe(2);
    await vi.advanceTimersByTimeAsync(4000);
    expect(f.calls).toHaveLength(1); // still waiting: 5 × the delay
    await vi.advanceTimersByTimeAsync(1000);
    expect(f.calls).toHaveLength(2);
    expect(client.pending).toBe(0);
    // the resend carries the same event ids: the service stores each once
    const ids = (call: Call | undefined) =>
      (call?.body.events as { event_id: string }[] | undefined)?.map((e) => e.event_id);
    expect(ids(f.calls[1])).toEqual(ids(f.calls[0]));
    expect(ids(f.calls[1])).toHaveLength(2);
  });

  it('drops a batch the service refused for good (a bad key), instead of resending it', async () => {
    const f = fakeFetch(json(401, { error: 'Unknown key', code: 'invalid_key' }));
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    client.track({ type: 'widget_loaded' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(f.calls).toHaveLength(1);
    expect(client.pending).toBe(0);
  });
});

describe('headless client: the perfume type-ahead', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** a lookup answer naming each query's perfume after it */
  const found = (call: Call) =>
    json(200, {
      results: [{ sillage_perfume_id: `id-${call.body.query}`, name: String(call.body.query) }],
      not_found: [],
      catalog_version: 1,
    })();
  function typeAhead(responders: ((call: Call) => Response | Promise<Response>)[], opts = {}) {
    const f = fakeFetch(...responders);
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    const answers: Suggestions[] = [];
    const suggester = createPerfumeSuggester(client, { onResults: (a) => answers.push(a), ...opts });
    const ids = () => answers.map((a) => a.results?.map((r) => r.sillage_perfume_id) ?? null);
    return { f, suggester, answers, ids };
  }

  it('asks nothing under two characters, and once a pause in typing, for the latest text', async () => {
    const { f, suggester, answers, ids } = typeAhead([found]);
    suggester.input(' k ');
    expect(answers).toEqual([{ query: ' k ', results: null }]);
    for (const text of ['kh', 'kha', 'kham', 'khamrah']) {
      suggester.input(text);
      await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS - 50);
    }
    expect(f.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(50);
    expect(f.calls.map((c) => [c.url, c.body.query, c.body.limit])).toEqual([
      ['https://reco.example.com/api/widget/lookup', 'khamrah', 8],
    ]);
    expect(answers.slice(1)).toEqual([
      { query: 'khamrah', results: [{ sillage_perfume_id: 'id-khamrah', name: 'khamrah' }] },
    ]);
    expect(ids()).toEqual([null, ['id-khamrah']]);
  });

  it('answers a text it has answered from memory, at once: spaces and capitals aside, the least recently used forgotten first', async () => {
    const { f, suggester, ids } = typeAhead([found], { cacheSize: 2 });
    for (const text of ['sauvage', 'khamrah']) {
      suggester.input(text);
      await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    }
    suggester.input('  SAUVAGE ');
    expect(ids().at(-1)).toEqual(['id-sauvage']); // no pause, no request
    expect(f.calls).toHaveLength(2);
    // a third text: khamrah, the least recently used, is forgotten; sauvage is kept
    suggester.input('yara');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    suggester.input('sauvage');
    suggester.input('khamrah');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    expect(f.calls.map((c) => c.body.query)).toEqual(['sauvage', 'khamrah', 'yara', 'khamrah']);
  });

  it("never gives an older text's answer: the search it replaces is aborted, and an answer that still arrives is dropped", async () => {
    const release: (() => void)[] = [];
    /** answers only when released, whether aborted or not: a server that answers late */
    const late = (call: Call) => new Promise<Response>((resolve) => release.push(() => resolve(found(call))));
    const { f, suggester, answers, ids } = typeAhead([late]);
    suggester.input('sauv');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    suggester.input('sauvage');
    expect(f.calls[0]?.init.signal?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    release[1]?.();
    await vi.advanceTimersByTimeAsync(0);
    release[0]?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(ids()).toEqual([['id-sauvage']]);
    expect(answers[0]?.query).toBe('sauvage');
    // cancel: nothing waiting is asked, nothing under way is given
    suggester.input('yara');
    suggester.cancel();
    suggester.input('oud wood');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    suggester.cancel();
    release[2]?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(f.calls.map((c) => c.body.query)).toEqual(['sauv', 'sauvage', 'oud wood']);
    expect(answers).toHaveLength(1);
  });

  it('says why when the search cannot be made, remembers no failure, and after a 429 asks nothing until Retry-After', async () => {
    const { f, suggester, answers } = typeAhead([
      json(429, { error: 'Rate limit exceeded', code: 'rate_limited' }, { 'retry-after': '5' }),
      found,
    ]);
    suggester.input('khamrah');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    expect(answers[0]).toMatchObject({
      query: 'khamrah',
      results: [],
      failure: { code: 'rate_limited', retryAfter: 5 },
    });
    suggester.input('khamrah');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    expect(f.calls).toHaveLength(1); // closed: the client answered itself
    expect(answers[1]?.failure?.code).toBe('rate_limited');
    await vi.advanceTimersByTimeAsync(5000);
    suggester.input('khamrah');
    await vi.advanceTimersByTimeAsync(SUGGEST_DEBOUNCE_MS);
    expect(f.calls).toHaveLength(2);
    expect(answers[2]).toEqual({ query: 'khamrah', results: [{ sillage_perfume_id: 'id-khamrah', name: 'khamrah' }] });
  });

  it("lookup takes a signal: aborted, it resolves 'aborted' (never rejects), and an aborted signal sends nothing", async () => {
    const f = fakeFetch(hang);
    const client = createSillageClient({ baseUrl: BASE, apiKey: KEY, fetch: f.fetch });
    const controller = new AbortController();
    const pending = client.lookup({ query: 'oud' }, { signal: controller.signal });
    controller.abort();
    expect(await pending).toEqual({ ok: false, status: 0, code: 'aborted', error: UNAVAILABLE });
    expect(await client.lookup({ query: 'oud' }, { signal: controller.signal })).toMatchObject({ code: 'aborted' });
    expect(f.calls).toHaveLength(1);
  });
});

describe('headless client against the real service', () => {
  let app: TestApp;
  let key: string;
  /** fetch over fastify.inject: the client exactly as a server-side caller uses it */
  const injectFetch = (async (url: string | URL | Request, init: RequestInit = {}) => {
    const u = new URL(String(url));
    const res = await app.inject({
      method: (init.method ?? 'GET') as 'POST',
      url: u.pathname,
      headers: init.headers as Record<string, string>,
      payload: init.body as string,
    });
    return new Response(res.body, { status: res.statusCode, headers: res.headers as Record<string, string> });
  }) as typeof fetch;

  beforeAll(async () => {
    app = await buildTestApp();
    ({ key } = await createMerchantWithKey(app, { mode: 'test' }));
  });
  afterAll(() => closeTestApp(app));

  it('verifies, looks up, scores inline and records a purchase with typed results', async () => {
    const client = createSillageClient({ baseUrl: 'http://service.test', apiKey: key, fetch: injectFetch });
    const v = await client.verify();
    expect(v.ok && v.data.test_mode).toBe(true);

    const l = await client.lookup({ query: 'sauvage' });
    expect(l.ok && l.data.results[0]?.house).toMatch(/Dior/);
    // the type-ahead, on the real catalog: an Arabic name
    const typed = await new Promise<Suggestions>((resolve) =>
      createPerfumeSuggester(client, { onResults: resolve, debounceMs: 0 }).input('خمرة'),
    );
    expect(typed.results?.[0]).toMatchObject({ sillage_perfume_id: 'lattafa-khamrah-edp', name_ar: 'خمرة' });

    const s = await client.score({
      quiz,
      catalog_mode: 'inline',
      inline_catalog: [{ merchant_product_id: 'a', name: 'Oud Wood', house: 'Tom Ford', price: 950 }],
    });
    expect(s.ok).toBe(true);
    if (s.ok) {
      expect(s.data.session_id).toBe(client.sessionId);
      expect(s.data.recommendations[0]).toMatchObject({
        merchant_product_id: 'a',
        currency: 'SAR',
        quality: 'unreviewed',
      });
    }

    const order = {
      order_id: 'o-1',
      total: 950,
      currency: 'SAR',
      items: [{ merchant_product_id: 'a', quantity: 1, price: 950 }],
    };
    expect(await client.trackPurchase(order)).toMatchObject({ ok: true, data: { accepted: 1, duplicates: 0 } });
    // sent again (a reloaded thank-you page): stored once
    expect(await client.trackPurchase(order)).toMatchObject({ ok: true, data: { accepted: 0, duplicates: 1 } });
  });

  it("reports the service's own refusal text for a bad quiz and a bad key", async () => {
    const client = createSillageClient({ baseUrl: 'http://service.test', apiKey: key, fetch: injectFetch });
    const bad = await client.score({ quiz: { families: ['not-a-family'] } });
    expect(bad).toMatchObject({ ok: false, status: 400 });
    expect(!bad.ok && bad.error).toMatch(/not-a-family/);
    const wrong = createSillageClient({ baseUrl: 'http://service.test', apiKey: 'pk_test_nope', fetch: injectFetch });
    expect(await wrong.verify()).toMatchObject({ ok: false, status: 401 });
  });
});

describe('moveHighlight: the arrow keys in a list of suggestions', () => {
  it('down to the next and round to the first; up to the previous, and from the first or none to the last', () => {
    expect([-1, 0, 1, 2].map((a) => moveHighlight('ArrowDown', a, 3))).toEqual([0, 1, 2, 0]);
    expect([-1, 0, 1, 2].map((a) => moveHighlight('ArrowUp', a, 3))).toEqual([2, 2, 0, 1]);
  });

  it('nothing for another key, or with no suggestions', () => {
    expect(moveHighlight('Enter', 0, 3)).toBeNull();
    expect(moveHighlight('ArrowDown', -1, 0)).toBeNull();
    expect(moveHighlight('ArrowUp', -1, 0)).toBeNull();
  });
});
