import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';

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
    for (const path of [
      '/api/admin/merchants',
      '/api/admin/merchants/{id}/keys',
      '/api/admin/keys/{id}/revoke',
      '/healthz',
      '/readyz',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
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
