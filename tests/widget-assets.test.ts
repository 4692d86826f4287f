import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMMUTABLE_CACHE, STABLE_CACHE } from '../routes/widget-assets.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';

/** The budget the widget must stay within, gzipped: it rides on every page of a store. */
const WIDGET_BUDGET_GZIP = 25 * 1024;

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

describe('widget files under /widget/v1/', () => {
  it(`serves sillage.js as JavaScript within ${WIDGET_BUDGET_GZIP / 1024} KB gzipped`, async () => {
    const res = await get('/widget/v1/sillage.js', { 'accept-encoding': 'gzip' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.rawPayload.length).toBeLessThanOrEqual(WIDGET_BUDGET_GZIP);
    const source = gunzipSync(res.rawPayload).toString('utf8');
    expect(source).toContain('sillage-quiz');
    // strict CSP: nothing that evaluates strings as code
    expect(source).not.toMatch(/\beval\(|new Function\(|innerHTML\s*=|insertAdjacentHTML|document\.write/);
    // the Arabic labels travel as UTF-8
    expect(source).toContain('اكتشف عطرك');
  });

  it('caches the stable name for an hour with an ETag, and answers 304 when it has not changed', async () => {
    const res = await get('/widget/v1/sillage.js');
    expect(res.headers['cache-control']).toBe(STABLE_CACHE);
    expect(res.headers.vary).toBe('Accept-Encoding');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
    const etag = String(res.headers.etag);
    const again = await get('/widget/v1/sillage.js', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await get('/widget/v1/sillage.js', { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('prefers brotli, and sends the plain file to a client that accepts no compression', async () => {
    expect((await get('/widget/v1/sillage.js', { 'accept-encoding': 'gzip, br' })).headers['content-encoding']).toBe(
      'br',
    );
    const plain = await get('/widget/v1/sillage.js', { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('sillage-quiz');
  });

  it('publishes content-hashed copies, immutable, whose integrity the manifest states', async () => {
    const manifest = (await get('/widget/v1/manifest.json')).json();
    const entry = manifest.files['sillage.js'];
    expect(entry.hashed).toMatch(/^sillage\.[0-9a-f]{12}\.js$/);
    expect(entry.gzip_bytes).toBeLessThanOrEqual(WIDGET_BUDGET_GZIP);
    const pinned = await get(`/widget/v1/${entry.hashed}`, { 'accept-encoding': 'identity' });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(`sha384-${createHash('sha384').update(pinned.rawPayload).digest('base64')}`).toBe(entry.integrity);
  });

  it('serves the headless client as an ES module', async () => {
    const res = await get('/widget/v1/client.mjs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.body).toMatch(/export\s*\{/);
    expect(res.body).toContain('createSillageClient');
  });

  it('answers an unknown file with a JSON 404', async () => {
    for (const url of ['/widget/v1/nope.js', '/widget/v1/..%2Fpackage.json', '/widget/v2/sillage.js']) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found' });
    }
  });
});
