import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../http/json-body.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/** Bodies read with a nesting limit and no prototype keys, whatever their content type. */
let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  key = (await createMerchantWithKey(app, { origins: ['https://shop.example'] })).key;
});
afterAll(() => closeTestApp(app));

describe('JSON bodies', () => {
  it('counts nesting outside strings only, and stops at the first level past the limit', () => {
    expect(nestsDeeperThan('[[[1]]]', 3)).toBe(false);
    expect(nestsDeeperThan('[[[[1]]]]', 3)).toBe(true);
    expect(nestsDeeperThan('{"a":"[[[[[[[[[[\\"[[[["}', 1)).toBe(false);
    expect(nestsDeeperThan(`{"q":{"families":["oud"]}}`, MAX_JSON_DEPTH)).toBe(false);
  });

  it.each([
    ['/api/widget/score', 'application/json'],
    ['/api/widget/lookup', 'application/json'],
    ['/api/widget/event', 'application/json'],
    ['/api/widget/event', 'text/plain'],
    // 32,000 bytes: within lookup's 32 KiB
  ])('%s (%s): arrays nested 16,000 deep, with no key, are refused before they are parsed', async (url, type) => {
    const res = await app.inject({
      method: 'POST',
      url,
      payload: `${'['.repeat(16_000)}${']'.repeat(16_000)}`,
      headers: { 'content-type': type },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_json', error: expect.stringMatching(/deeper than 32/) });
  });

  it('a text/plain event body with a __proto__ key is refused, as a JSON one is', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/widget/event',
        payload: `{"api_key":"${key}","type":"widget_loaded","__proto__":{"polluted":true}}`,
        headers: { 'content-type': type, origin: 'https://shop.example' },
      });
      expect(res.statusCode, type).toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});

describe('URLs the router refuses', () => {
  it('a path segment over 200 characters is a 414 in the error shape, as is a malformed URL a 400', async () => {
    const long = await app.inject({ method: 'GET', url: `/api/admin/merchants/${'a'.repeat(300)}/products` });
    expect(long.statusCode).toBe(414);
    expect(long.json()).toEqual({ error: 'A path segment is longer than 200 characters', code: 'uri_too_long' });
    const bad = await app.inject({ method: 'GET', url: '/api/admin/merchants/%E0%A4%A/products' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'Malformed URL', code: 'bad_url' });
  });
});

describe('inline catalogs', () => {
  it('descriptions together may hold at most MAX_INLINE_DESCRIPTION_CHARS: past it a 400 naming the cap', async () => {
    const { MAX_INLINE_DESCRIPTION_CHARS } = await import('../../plugins/app/score-answers.ts');
    const row = (i: number, description: string) => ({
      merchant_product_id: `p${i}`,
      name: `Local Blend ${i}`,
      house: 'Local Atelier',
      description,
    });
    const score = (rows: object[]) =>
      app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: { api_key: key, quiz: { families: ['oud'] }, catalog_mode: 'inline', inline_catalog: rows },
        headers: { origin: 'https://shop.example' },
      });
    const full = 'Notes: oud, rose, saffron. '.repeat(150).slice(0, 4000);
    const at = Array.from({ length: MAX_INLINE_DESCRIPTION_CHARS / 4000 }, (_, i) => row(i, full));
    expect((await score(at)).statusCode).toBe(200);
    const over = await score([...at, row(999, 'x')]);
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({
      code: 'invalid_inline_catalog',
      error: expect.stringMatching(/at most 200000/),
    });
  });
});
