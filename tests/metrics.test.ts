import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cache } from '../lib/cache.ts';
import { operationOf } from '../plugins/app/metrics.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp();
  ({ key } = await createMerchantWithKey(app, { mode: 'test' }));
});
afterAll(() => closeTestApp(app));

const scrape = async () => {
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: adminHeaders });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.body;
};
/** the value of one sample line, 0 when absent */
const sample = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
};

describe('GET /metrics (Prometheus)', () => {
  it('is for the operator only: the admin token, and off without one', async () => {
    expect((await app.inject({ method: 'GET', url: '/metrics' })).json()).toMatchObject({
      code: 'invalid_admin_token',
    });
    const off = await buildTestApp({ ADMIN_TOKEN: undefined });
    try {
      const res = await off.inject({ method: 'GET', url: '/metrics', headers: adminHeaders });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'admin_disabled' });
    } finally {
      await closeTestApp(off);
    }
  });

  it('counts requests per operation and status, their latency, rate-limit refusals and stored events', async () => {
    const before = await scrape();
    const ok = await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: key } });
    expect(ok.statusCode).toBe(200);
    await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: 'pk_test_nope' } });
    const ev = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: { api_key: key, events: [{ type: 'widget_loaded' }, { type: 'widget_opened' }] },
    });
    expect(ev.statusCode).toBe(202);
    // the verify limit is 60 a minute per key and address: the 61st is refused
    const address = '10.9.9.9';
    let refused = 0;
    for (let i = 0; i < 62; i++) {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/verify',
        payload: { api_key: key },
        remoteAddress: address,
      });
      if (r.statusCode === 429) refused++;
    }
    expect(refused).toBe(2);

    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('sillage_requests_total{operation="verify",status="200"}')).toBe(61);
    expect(delta('sillage_requests_total{operation="verify",status="401"}')).toBe(1);
    expect(delta('sillage_requests_total{operation="event",status="202"}')).toBe(1);
    expect(delta('sillage_rate_limited_total{operation="verify"}')).toBe(2);
    // an operation's refusal count is there from its first request, at 0, so rate() works before any 429
    expect(after).toMatch(/^sillage_rate_limited_total\{operation="event"\} 0$/m);
    expect(delta('sillage_events_ingested_total')).toBe(2);
    expect(delta('sillage_request_duration_seconds_count{operation="verify"}')).toBe(64);
    expect(after).toMatch(/^sillage_request_duration_seconds_bucket\{le="0\.005",operation="verify"\} \d+$/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('labels stay bounded: unknown paths are one "unmatched" series, not one per URL', async () => {
    for (const p of ['/nope-1', '/nope-2', '/api/widget/nope']) await app.inject({ method: 'GET', url: p });
    const text = await scrape();
    expect(text).not.toMatch(/nope/);
    expect(sample(text, 'sillage_requests_total{operation="unmatched",status="404"}')).toBeGreaterThanOrEqual(3);
    expect(operationOf('/api/admin/merchants/:id')).toBe('admin');
    expect(operationOf('/widget/v1/:file')).toBe('widget_file');
  });

  it('reports the entries of every cache by name, never more than its bound', async () => {
    const bounded = new Cache<string, number>({ name: 'test-metrics-bound', max: 2, invalidatedBy: 'a test' });
    bounded.set('a', 1).set('b', 2).set('c', 3);
    await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: key } });
    const text = await scrape();
    expect(text).toMatch(/^# TYPE sillage_cache_entries gauge$/m);
    expect(sample(text, 'sillage_cache_entries{cache="test-metrics-bound"}')).toBe(2);
    expect(sample(text, 'sillage_cache_entries{cache="widget-key-parse"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'sillage_cache_entries{cache="widget-keys"}')).toBeGreaterThanOrEqual(1);
    bounded.clear();
    expect(sample(await scrape(), 'sillage_cache_entries{cache="test-metrics-bound"}')).toBe(0);
  });
});
