import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createDatabase } from '../db/client.ts';
import { SEND_WAIT_MS } from '../plugins/app/jobs.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp, testConfig, verify } from './helper.ts';

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp({}, (a) => {
    a.post('/__test/boom', { schema: { hide: true } }, async () => {
      throw new Error('secret internals at /srv/app.ts:42');
    });
  });
  ({ key } = await createMerchantWithKey(app));
});
afterAll(() => closeTestApp(app));

function expectErrorShape(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(res.body);
  expect(typeof body.error).toBe('string');
  expect(body.error.length).toBeGreaterThan(0);
  expect(typeof body.code).toBe('string');
  expect(res.body).not.toMatch(/<html|at .*\.ts:\d+|stack/i);
  return body;
}

describe('every error answers JSON { error, code }', () => {
  it('404 for an unknown route', async () => {
    const res = await app.inject({ method: 'GET', url: '/no/such/thing' });
    expect(res.statusCode).toBe(404);
    expect(expectErrorShape(res).code).toBe('not_found');
  });

  it('404 for a wrong method on a widget path', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/widget/verify' });
    expect(res.statusCode).toBe(404);
    expectErrorShape(res);
  });

  it('400 invalid_json for a body that is not JSON', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      headers: { 'content-type': 'application/json' },
      payload: '{"api_key": ',
    });
    expect(res.statusCode).toBe(400);
    expect(expectErrorShape(res).code).toBe('invalid_json');
  });

  it('refuses prototype-poisoning keys with a JSON 400 (Fastify reports them as invalid JSON)', async () => {
    for (const payload of [
      '{"api_key":"x","__proto__":{"admin":true}}',
      '{"api_key":"x","constructor":{"prototype":{"admin":true}}}',
    ]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/widget/verify',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(expectErrorShape(res).code).toBe('invalid_json');
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('400 validation_failed with details naming the field', async () => {
    const res = await verify(app, { api_key: 42 });
    expect(res.statusCode).toBe(400);
    const body = expectErrorShape(res);
    expect(body.code).toBe('validation_failed');
    expect(body.details).toEqual([{ path: '/body/api_key', message: 'must be string' }]);
    expect(body.error).toContain('api_key');
  });

  it('400 when the body is not an object (text/plain, arrays)', async () => {
    const plain = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ api_key: key }),
    });
    expect(plain.statusCode).toBe(400);
    expect(expectErrorShape(plain).code).toBe('validation_failed');
    const array = await verify(app, [key]);
    expect(array.statusCode).toBe(400);
  });

  it('413 payload_too_large above the body limit', async () => {
    const res = await verify(app, { api_key: key, pad: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.statusCode).toBe(413);
    expect(expectErrorShape(res).code).toBe('payload_too_large');
  });

  it('415 unsupported_media_type for a form post', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'api_key=x',
    });
    expect(res.statusCode).toBe(415);
    expect(expectErrorShape(res).code).toBe('unsupported_media_type');
  });

  it('500 hides the cause: no message, no stack', async () => {
    const res = await app.inject({ method: 'POST', url: '/__test/boom' });
    expect(res.statusCode).toBe(500);
    const body = expectErrorShape(res);
    expect(body).toEqual({ error: 'Internal server error', code: 'internal_error' });
    expect(res.body).not.toContain('secret internals');
  });

  it("every answer carries a request id for support: the caller's own when it is a short token", async () => {
    const res = await verify(app, {});
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await verify(app, {}, { 'x-request-id': 'checkout-42' });
    expect(mine.headers['x-request-id']).toBe('checkout-42');
    const junk = await verify(app, {}, { 'x-request-id': 'x'.repeat(500) });
    expect(junk.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not echo a huge URL back', async () => {
    const res = await app.inject({ method: 'GET', url: `/${'a'.repeat(5000)}` });
    expect(res.statusCode).toBe(404);
    expect(res.body.length).toBeLessThan(400);
  });
});

describe('database unreachable', () => {
  it('answers 503 database_unavailable with Retry-After, on widget routes and /readyz', async () => {
    // a real driver against a port where nothing listens
    const down = await createDatabase({ database: { kind: 'postgres', url: 'postgres://nobody@127.0.0.1:1/none' } });
    const broken = await buildApp({
      config: testConfig({ REDIS_URL: undefined }),
      database: { ...down, migrate: async () => {} },
      logger: false,
    });
    await broken.ready();
    const { generateKey } = await import('../auth/keys.ts');
    const res = await broken.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: generateKey('live').key },
    });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(expectErrorShape(res).code).toBe('database_unavailable');
    const ready = await broken.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(expectErrorShape(ready).code).toBe('database_unavailable');
    const live = await broken.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode).toBe(200);
    // work sent while the background runner cannot start is refused after a while, never waited on for ever
    const t = Date.now();
    await expect(broken.jobs.send('feeds.dispatch', {})).rejects.toThrow(/background jobs have not started/);
    expect(Date.now() - t).toBeLessThan(SEND_WAIT_MS + 3_000);
    await broken.close();
  }, 45_000);
});
