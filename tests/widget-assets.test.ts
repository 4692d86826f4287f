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

describe("a product's scent picture at /widget/v1/scent.svg", () => {
  it('serves an SVG of the accords, cached a year, that can run nothing', async () => {
    const res = await get(
      `/widget/v1/scent.svg?a=${encodeURIComponent('oud:100,rose:60')}&h=Lattafa&n=${encodeURIComponent('عود مود')}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(res.body).toContain('عود مود');
  });

  it('answers a malformed or unknown accord, a missing or unknown parameter, with JSON 400', async () => {
    for (const url of [
      '/widget/v1/scent.svg?a=plutonium:50&h=x&n=y',
      '/widget/v1/scent.svg?a=oud:100&h=x',
      '/widget/v1/scent.svg?a=oud:100&h=x&n=y&z=1',
      `/widget/v1/scent.svg?a=oud:100&h=${'x'.repeat(81)}&n=y`,
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json().code, url).toMatch(/^(validation_failed|unknown_field)$/);
    }
  });

  it('is the picture a score answer gives a product that has none of its own', async () => {
    const { createMerchantWithKey } = await import('./helper.ts');
    const { key } = await createMerchantWithKey(app, { slug: 'scent-pictures' });
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: {
        api_key: key,
        quiz: { families: ['musky'], accord_ratings: { musky: 'love' } },
        catalog_mode: 'inline',
        inline_catalog: [
          { merchant_product_id: 'p1', name: 'Musk Tahara', house: 'Local Atelier', accords: ['musky', 'powdery'] },
          {
            merchant_product_id: 'p2',
            name: 'Musk Tahara White',
            house: 'Local Atelier',
            accords: ['musky'],
            image_url: 'https://shop.example/p2.jpg',
          },
        ],
      },
    });
    expect(res.statusCode).toBe(200);
    const shown = [...res.json().recommendations, ...res.json().also_explore] as {
      merchant_product_id: string;
      image_url: string;
    }[];
    const byId = Object.fromEntries(shown.map((r) => [r.merchant_product_id, r.image_url]));
    // the merchant's own picture first
    expect(byId.p2).toBe('https://shop.example/p2.jpg');
    const url = new URL(byId.p1 as string);
    expect(url.pathname).toBe('/widget/v1/scent.svg');
    expect(url.searchParams.get('a')).toMatch(/^musky:\d+/);
    expect(url.searchParams.get('h')).toBe('Local Atelier');
    const picture = await get(`${url.pathname}${url.search}`);
    expect(picture.statusCode).toBe(200);
    expect(picture.body).toContain('>Local Atelier</text>');
  });
});
