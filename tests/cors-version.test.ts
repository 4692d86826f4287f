import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp, verify } from './helper.ts';

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp();
  ({ key } = await createMerchantWithKey(app, { origins: ['https://shop.example'] }));
});
afterAll(() => closeTestApp(app));

describe('CORS', () => {
  it('answers a preflight from any origin with the widget headers allowed', async () => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/api/widget/verify',
      headers: {
        origin: 'https://any-store.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-widget-version,authorization',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
    for (const h of ['content-type', 'x-widget-version', 'authorization']) expect(allowed).toContain(h);
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('exposes Retry-After to the browser and lets it read a 403 body', async () => {
    const res = await verify(app, { api_key: key }, { origin: 'https://other.example' });
    expect(res.statusCode).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers']).toLowerCase()).toContain('retry-after');
  });

  it('sends no credentials header: the widget never uses cookies', async () => {
    const res = await verify(app, { api_key: key }, { origin: 'https://shop.example' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });
});

describe('X-Widget-Version', () => {
  it('absent means v1', async () => {
    expect((await verify(app, { api_key: key })).statusCode).toBe(200);
  });
  it('v1 is accepted', async () => {
    expect((await verify(app, { api_key: key }, { 'x-widget-version': 'v1' })).statusCode).toBe(200);
  });
  it('any other value is 400 naming the supported versions', async () => {
    for (const v of ['v2', '1', 'v1.1', '', 'v1,v2']) {
      const res = await verify(app, { api_key: key }, { 'x-widget-version': v });
      expect(res.statusCode, v).toBe(400);
      expect(res.json()).toMatchObject({ code: 'unsupported_widget_version' });
      expect(res.json().error).toContain('v1');
    }
  });
});
