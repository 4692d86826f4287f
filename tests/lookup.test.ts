import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
let key: string;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  ({ key } = await createMerchantWithKey(app, { origins: ['https://tools.example'] }));
});
afterAll(() => closeTestApp(app));

const lookup = (body: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/widget/lookup', payload: { api_key: key, ...body }, headers });

describe('POST /api/widget/lookup', () => {
  it('answers our perfumes ranked by relevance, with their full profile', async () => {
    const res = await lookup({ query: 'baccarat rouge 540 extrait' });
    expect(res.statusCode).toBe(200);
    const [first] = res.json().results;
    expect(first).toMatchObject({
      sillage_perfume_id: 'maison-francis-kurkdjian-baccarat-rouge-540-extrait',
      name: 'Baccarat Rouge 540',
      house: 'Maison Francis Kurkdjian',
      concentration: 'extrait',
    });
    expect(first.name_ar).toMatch(/[\u0600-\u06FF]/);
    expect(first.house_ar).toMatch(/[\u0600-\u06FF]/);
    expect(first.accords.length).toBeGreaterThanOrEqual(4);
    expect(first.accords[0].weight).toBe(1);
    expect(first.notes).toEqual({ top: expect.any(Array), heart: expect.any(Array), base: expect.any(Array) });
    expect(first.families.length).toBeGreaterThan(0);
    expect(first.score).toBeGreaterThan(0);
    expect(first.score).toBeLessThanOrEqual(1);
    expect(res.json().catalog_version).toBeGreaterThan(0);
  });

  it('understands typos, Arabic and house abbreviations', async () => {
    const first = async (query: string) => (await lookup({ query })).json().results[0]?.sillage_perfume_id;
    expect(await first('khamra')).toBe('lattafa-khamrah-edp');
    expect(await first('خمرة قهوة')).toBe('lattafa-khamrah-qahwa-edp');
    expect(await first('سوفاج ديور')).toBe('dior-sauvage-edt');
    expect(await first('YSL Libre')).toBe('yves-saint-laurent-libre-edp');
    expect(await first('PDM Layton')).toBe('parfums-de-marly-layton-edp');
  });

  it('filters by house and lists a house alone', async () => {
    const res = await lookup({ query: 'oud', house: 'TF', limit: 50 });
    const houses = new Set(res.json().results.map((r: { house: string }) => r.house));
    expect([...houses]).toEqual(['Tom Ford']);
    const all = await lookup({ house: 'لطافة', limit: 50 });
    expect(all.json().results.length).toBeGreaterThan(10);
    expect(all.json().results.every((r: { house: string }) => r.house === 'Lattafa')).toBe(true);
  });

  it('fetches exact ids in order, and names the ones it does not have', async () => {
    const res = await lookup({ ids: ['creed-aventus-edp', 'no-such-perfume', 'dior-sauvage-elixir'] });
    expect(res.json().results.map((r: { sillage_perfume_id: string }) => r.sillage_perfume_id)).toEqual([
      'creed-aventus-edp',
      'dior-sauvage-elixir',
    ]);
    expect(res.json().not_found).toEqual(['no-such-perfume']);
  });

  it('honours limit (default 10, at most 50)', async () => {
    expect((await lookup({ query: 'oud' })).json().results).toHaveLength(10);
    expect((await lookup({ query: 'oud', limit: 3 })).json().results).toHaveLength(3);
    const over = await lookup({ query: 'oud', limit: 51 });
    expect(over.statusCode).toBe(400);
    expect(over.json().details[0].path).toBe('/body/limit');
  });

  it('400 for an empty, blank or oversized query, and for wrong types', async () => {
    for (const body of [{}, { query: '   ' }, { query: '' }]) {
      const res = await lookup(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('empty_lookup');
    }
    const long = await lookup({ query: 'x'.repeat(201) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatch(/query/);
    for (const body of [{ query: 5 }, { ids: 'creed-aventus-edp' }, { ids: [] }, { limit: '5', query: 'oud' }]) {
      expect((await lookup(body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('goes through the key, origin and version rules like every widget operation', async () => {
    expect(
      (await app.inject({ method: 'POST', url: '/api/widget/lookup', payload: { query: 'oud' } })).statusCode,
    ).toBe(401);
    expect((await lookup({ query: 'oud' }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await lookup({ query: 'oud' }, { origin: 'https://tools.example' })).statusCode).toBe(200);
    expect((await lookup({ query: 'oud' }, { 'x-widget-version': 'v9' })).statusCode).toBe(400);
  });

  it('allows 300 calls a minute per key and address, then 429 with Retry-After', async () => {
    const { key: fresh } = await createMerchantWithKey(app);
    let last = 0;
    for (let i = 0; i < 300; i++) {
      last = (
        await app.inject({
          method: 'POST',
          url: '/api/widget/lookup',
          payload: { api_key: fresh, ids: ['creed-aventus-edp'] },
        })
      ).statusCode;
    }
    expect(last).toBe(200);
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/lookup',
      payload: { api_key: fresh, ids: ['creed-aventus-edp'] },
    });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
  });
});
