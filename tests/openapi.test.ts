import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, buildTestApp, closeTestApp, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

describe('OpenAPI and health', () => {
  it('publishes every route with its request and response schemas, errors included', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    const verify = doc.paths['/api/widget/verify'].post;
    expect(verify.requestBody.content['application/json'].schema.properties.api_key).toBeDefined();
    expect(Object.keys(verify.responses)).toEqual(expect.arrayContaining(['200', '4XX', '5XX']));
    const score = doc.paths['/api/widget/score'].post;
    expect(score.responses['200'].content['application/json'].schema.properties.recommendations).toBeDefined();
    for (const path of ['/healthz', '/readyz']) expect(doc.paths[path], path).toBeDefined();
  });

  it('publishes the admin API to operators only: not in /docs, whole at /api/admin/openapi.json behind the token', async () => {
    const pub = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
    expect(Object.keys(pub.paths).filter((p) => p.startsWith('/api/admin'))).toEqual([]);
    expect(pub.components.securitySchemes.adminToken).toBeUndefined();
    expect(pub.tags.map((t: { name: string }) => t.name)).not.toContain('admin');
    expect((await app.inject({ method: 'GET', url: '/api/admin/openapi.json' })).statusCode).toBe(401);
    const res = await app.inject({ method: 'GET', url: '/api/admin/openapi.json', headers: adminHeaders });
    expect(res.statusCode).toBe(200);
    const whole = res.json();
    for (const path of [
      '/api/admin/merchants',
      '/api/admin/merchants/{id}/keys',
      '/api/admin/keys/{id}/revoke',
      '/api/widget/score',
      '/healthz',
    ]) {
      expect(whole.paths[path], path).toBeDefined();
    }
    expect(whole.paths['/api/admin/openapi.json']).toBeUndefined();
  });

  it('serves the docs page', async () => {
    const res = await app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });

  it('/healthz and /readyz answer ok when the database is there', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ok', database: 'ok' });
  });
});
