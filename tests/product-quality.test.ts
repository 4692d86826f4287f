import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { t } from '../console/i18n.ts';
import { perfumeRecord } from '../services/catalog.ts';
import { importCatalog } from '../services/catalog-import.ts';
import { createConsoleUser } from '../services/console-users.ts';
import { Browser, PASSWORD } from './console-session.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/**
 * A product's profile from the best evidence there is, and answers that say what they rest on
 * (issue 46): identities without a profile imported beside the shipped catalog, one of them sold
 * as the answer to Aventus, then a shop that sells them, synced and inline.
 */
let app: TestApp;

const shop = (owner: string, gave: string) => ({
  source: `https://${owner}/products/sahara`,
  kind: 'shop' as const,
  owner,
  gave,
  supports: ['identity', 'gender'],
});
const RECORDS = [
  {
    id: 'qtest-sahara-answer-edp',
    name: 'Sahara Answer',
    name_ar: 'جواب الصحراء',
    house: 'Qtest House',
    house_ar: 'دار الاختبار',
    concentration: 'edp',
    gender: 'men',
    inspired_by: 'creed-aventus-edp',
    evidence: [
      shop('shop-one.example', 'Qtest House Sahara Answer EDP 100ml, inspired by Aventus'),
      {
        ...shop('shop-two.example', 'Sahara Answer Qtest House EDP — بديل أفينتوس'),
        supports: ['identity', 'inspired_by'],
      },
      { ...shop('shop-one.example', 'inspired by Creed Aventus'), supports: ['inspired_by'] },
    ],
  },
  {
    id: 'qtest-sahara-plain-edp',
    name: 'Sahara Plain',
    house: 'Qtest House',
    concentration: 'edp',
    gender: 'unisex',
    evidence: [shop('shop-one.example', 'Sahara Plain EDP'), shop('shop-two.example', 'Qtest Sahara Plain EDP')],
  },
  {
    id: 'qtest-sahara-rose-edp',
    name: 'Sahara Rose',
    house: 'Qtest House',
    concentration: 'edp',
    gender: 'women',
    families: ['floral'],
    accords: { rose: 100, powdery: 70, musky: 55, fruity: 40 },
    notes: { top: ['raspberry'], heart: ['rose'], base: ['musk'] },
    seasons: ['spring'],
    times: ['day'],
    occasions: ['daily'],
  },
];

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const summary = await importCatalog(
    app.db,
    (async function* () {
      for (const [i, record] of RECORDS.entries()) yield { row: i + 1, record };
    })(),
  );
  expect(summary.rejected).toEqual([]);
  await app.catalog.refresh();
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
  app.inject({ method, url: `/api/admin${url}`, payload: payload as object, headers: adminHeaders });

const DESCRIPTION = 'An oriental blend of oud, saffron and Taif rose over a base of amber.';
const FEED = [
  { merchant_product_id: 'answer', name: 'Sahara Answer EDP 100ml', house: 'Qtest House', price: 120 },
  { merchant_product_id: 'plain', name: 'Sahara Plain EDP 100ml', house: 'Qtest House', price: 90 },
  {
    merchant_product_id: 'described',
    name: 'Sahara Plain EDP 50ml',
    house: 'Qtest House',
    price: 60,
    description: DESCRIPTION,
  },
  { merchant_product_id: 'rose', name: 'Sahara Rose EDP', house: 'Qtest House', price: 150 },
  { merchant_product_id: 'sauvage', name: 'Dior Sauvage EDP 100ml', house: 'Dior', price: 600 },
  { merchant_product_id: 'layali', name: 'Layali', house: 'Local Atelier', description: DESCRIPTION },
  { merchant_product_id: 'guess', name: 'Oud Rose', house: 'Local Atelier', price: 80 },
  { merchant_product_id: 'mystery', name: 'Mystery Blend', house: 'Local Atelier' },
];

describe('each product’s profile from the best evidence there is', () => {
  it('a sync counts the recognised products without a profile; the admin list says what each rests on and what would make the rest recommendable', async () => {
    const { merchant } = await createMerchantWithKey(app);
    const sync = await admin('PUT', `/merchants/${merchant.id}/products`, { products: FEED });
    expect(sync.statusCode).toBe(200);
    expect(sync.json()).toMatchObject({ matched: 5, partial: 2, unmatched: 1, without_profile: 1 });

    const list = (await admin('GET', `/merchants/${merchant.id}/products`)).json();
    const by = Object.fromEntries(
      list.products.map((p: { merchant_product_id: string }) => [p.merchant_product_id, p]),
    );
    const view = (id: string) => {
      const p = by[id];
      return {
        status: p.status,
        quality: p.quality,
        perfume: p.sillage_perfume_id,
        grade: p.matched_perfume?.grade ?? null,
        inspired_by: p.inspired_by?.sillage_perfume_id ?? null,
        basis: p.profile?.basis ?? null,
        to_recommend: p.to_recommend,
      };
    };
    expect(view('answer')).toEqual({
      status: 'matched',
      quality: 'inspired',
      perfume: 'qtest-sahara-answer-edp',
      grade: null,
      inspired_by: 'creed-aventus-edp',
      basis: ['catalog'],
      to_recommend: null,
    });
    expect(by.answer.inspired_by).toEqual({
      sillage_perfume_id: 'creed-aventus-edp',
      name: 'Aventus',
      house: 'Creed',
      said_by: 'catalog',
    });
    expect(by.answer.matched_perfume.inspired_by).toBe('creed-aventus-edp');
    expect(view('plain')).toEqual({
      status: 'matched',
      quality: null,
      perfume: 'qtest-sahara-plain-edp',
      grade: null,
      inspired_by: null,
      basis: null,
      to_recommend: ['description', 'inspired_by'],
    });
    expect(view('described')).toMatchObject({ status: 'matched', quality: 'described', basis: ['description'] });
    expect(view('rose')).toMatchObject({ quality: 'full', grade: 'referenced', basis: ['catalog'] });
    expect(view('sauvage')).toMatchObject({ quality: 'unreviewed', grade: 'unreviewed' });
    expect(view('layali')).toMatchObject({ status: 'partial', quality: 'partial', perfume: null, to_recommend: null });
    expect(view('guess')).toMatchObject({ status: 'partial', quality: 'guessed', basis: ['name'] });
    expect(view('mystery')).toMatchObject({
      status: 'unmatched',
      quality: null,
      to_recommend: ['match', 'description'],
    });
  });

  it('readiness: a shop whose only products are recognised without a profile is not ready', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: [FEED[1]] });
    const before = (await admin('GET', `/merchants/${merchant.id}`)).json().catalog;
    expect(before).toMatchObject({ total: 1, matched: 1, without_profile: 1, ready: false });
    const verify = await app.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: key } });
    expect(verify.json().catalog).toMatchObject({ matched: 1, without_profile: 1, ready: false });
    // the same product with a description that names its notes: recommendable
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: [{ ...FEED[1], description: DESCRIPTION }] });
    const after = (await admin('GET', `/merchants/${merchant.id}`)).json().catalog;
    expect(after).toMatchObject({ total: 1, matched: 1, without_profile: 0, ready: true });
  });

  it('a rematch counts them too', async () => {
    const { merchant } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: FEED });
    const rematch = await admin('POST', `/merchants/${merchant.id}/products/rematch`);
    expect(rematch.json()).toMatchObject({ changed: 0, matched: 5, partial: 2, unmatched: 1, without_profile: 1 });
  });
});

describe('answers say what they rest on', () => {
  const score = (key: string, locale: 'ar' | 'en', inline: boolean, quiz: object) =>
    app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: {
        api_key: key,
        locale,
        limit: 24,
        quiz,
        ...(inline ? { catalog_mode: 'inline', inline_catalog: FEED } : {}),
      },
    });
  type Shown = {
    merchant_product_id: string;
    quality: string;
    inspired_by?: unknown;
    sillage_perfume_id: string | null;
  };

  it('the product inspired by a loved perfume names it, in the shopper’s language; a product with no profile is never shown; synced and inline alike', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: FEED });
    for (const inline of [false, true]) {
      const en = await score(key, 'en', inline, { loved_perfumes: ['creed-aventus-edp'] });
      expect(en.statusCode).toBe(200);
      const shown: Shown[] = [...en.json().recommendations, ...en.json().also_explore];
      const answer = shown.find((r) => r.merchant_product_id === 'answer');
      expect(answer, `inline ${inline}`).toMatchObject({
        quality: 'inspired',
        sillage_perfume_id: 'qtest-sahara-answer-edp',
        inspired_by: { sillage_perfume_id: 'creed-aventus-edp', name: 'Aventus', house: 'Creed' },
        // its profile is Aventus's: as close to it as can be, yet never said to be it
        similar_to: { sillage_perfume_id: 'creed-aventus-edp', relation: 'similar', similarity: 100 },
      });
      expect(shown.map((r) => r.merchant_product_id)).not.toContain('plain');
      for (const r of shown) if (r.merchant_product_id !== 'answer') expect(r.inspired_by).toBeUndefined();
      const ar = await score(key, 'ar', inline, { loved_perfumes: ['creed-aventus-edp'] });
      const inArabic = [...ar.json().recommendations, ...ar.json().also_explore].find(
        (r: Shown) => r.merchant_product_id === 'answer',
      );
      expect((inArabic as { inspired_by: { name: string } }).inspired_by.name).toMatch(/[\u0600-\u06FF]/);
    }
  });

  it('each product’s quality is the admin list’s, synced and inline alike, for every quiz', async () => {
    const { merchant, key } = await createMerchantWithKey(app);
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: FEED });
    const list = (await admin('GET', `/merchants/${merchant.id}/products`)).json();
    const quality = new Map(
      list.products.map((p: { merchant_product_id: string; quality: string }) => [p.merchant_product_id, p.quality]),
    );
    const seen = new Set<string>();
    for (const quiz of [
      { families: ['oud', 'amber'], accord_ratings: { oud: 'love' } },
      { families: ['floral'], accord_ratings: { rose: 'love' } },
      { families: ['fresh', 'citrus', 'woody'] },
      { loved_perfumes: ['creed-aventus-edp'] },
    ]) {
      const [synced, inline] = await Promise.all(
        [false, true].map(async (i) => (await score(key, 'en', i, quiz)).json()),
      );
      // one path from a listing to a product: synced and inline answer alike
      expect(inline.recommendations).toEqual(synced.recommendations);
      expect(inline.also_explore).toEqual(synced.also_explore);
      for (const r of [...synced.recommendations, ...synced.also_explore] as Shown[]) {
        expect(r.quality, r.merchant_product_id).toBe(quality.get(r.merchant_product_id));
        seen.add(r.quality);
      }
    }
    // the quizzes reach every kind of profile this shop has
    expect([...seen].sort()).toEqual(['described', 'full', 'guessed', 'inspired', 'partial', 'unreviewed']);
  });
});

describe('GET /api/admin/perfumes/:id', () => {
  it('a record with its grade, the perfume it is inspired by and its sources', async () => {
    const res = await admin('GET', '/perfumes/qtest-sahara-answer-edp');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      sillage_perfume_id: 'qtest-sahara-answer-edp',
      name: 'Sahara Answer',
      name_ar: 'جواب الصحراء',
      house: 'Qtest House',
      grade: null,
      inspired_by: { sillage_perfume_id: 'creed-aventus-edp', name: 'Aventus', house: 'Creed', has_profile: true },
      families: [],
      accords: [],
      notes: { top: [], heart: [], base: [] },
    });
    expect(res.json().evidence).toEqual(RECORDS[0]?.evidence);
    const rose = (await admin('GET', '/perfumes/qtest-sahara-rose-edp')).json();
    expect(rose).toMatchObject({ grade: 'referenced', inspired_by: null, evidence: [] });
    expect(rose.accords[0]).toEqual({ name: 'rose', weight: 1 });
  });

  it('an unknown id is a 404 with its code; a bad one a 400; each request reads at most two rows by key', async () => {
    const missing = await admin('GET', '/perfumes/no-such-perfume');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      code: 'perfume_not_found',
      error: expect.stringContaining('no-such-perfume'),
    });
    const long = await admin('GET', `/perfumes/${'x'.repeat(121)}`);
    expect(long.statusCode).toBe(400);
    expect(long.json()).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    // the route's reads, counted on the database it is given (the app's own polls are not its work)
    let reads = 0;
    const counted = new Proxy(app.db, {
      get: (target, key) =>
        key === 'select'
          ? (...args: Parameters<typeof target.select>) => {
              reads++;
              return target.select(...args);
            }
          : Reflect.get(target, key),
    });
    for (const id of ['qtest-sahara-answer-edp', 'qtest-sahara-plain-edp', 'no-such-perfume']) {
      reads = 0;
      await perfumeRecord(counted, id);
      expect(reads, id).toBeLessThanOrEqual(id === 'qtest-sahara-answer-edp' ? 2 : 1);
    }
  });

  it('without the admin token: refused', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/admin/perfumes/qtest-sahara-answer-edp' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: expect.any(String) });
  });
});

describe('the console', () => {
  it('lists the products recognised without a profile apart, and shows a product’s grade, sources and what would make it recommendable', async () => {
    const { merchant } = await createMerchantWithKey(app, { slug: 'quality-shop' });
    await createConsoleUser(app.db, {
      email: 'owner@quality-shop.example',
      password: PASSWORD,
      role: 'owner',
      merchant: merchant.id,
    });
    await admin('PUT', `/merchants/${merchant.id}/products`, { products: FEED });
    const b = new Browser(app, '10.0.46.1');
    await b.signIn('owner@quality-shop.example');
    const shelf = await b.get('/console/m/quality-shop/shelf?filter=no_profile&lang=en');
    expect(shelf.statusCode).toBe(200);
    expect(shelf.body).toContain('data-product="plain"');
    expect(shelf.body).not.toContain('data-product="answer"');
    expect(shelf.body).toContain(t('en', 'qualityNone'));
    const all = await b.get('/console/m/quality-shop/shelf?lang=en');
    for (const q of [
      'qualityInspired',
      'qualityDescribed',
      'qualityFull',
      'qualityUnreviewed',
      'qualityGuessed',
    ] as const)
      expect(all.body, q).toContain(t('en', q));

    const plain = await b.get('/console/m/quality-shop/shelf/product?id=plain&lang=en');
    expect(plain.body).toContain(t('en', 'toRecommendDescription'));
    expect(plain.body).toContain(t('en', 'toRecommendInspired'));
    expect(plain.body).toContain(t('en', 'gradeNone'));
    expect(plain.body).toContain('https://shop-two.example/products/sahara');

    const answer = await b.get('/console/m/quality-shop/shelf/product?id=answer&lang=ar');
    expect(answer.body).toContain(t('ar', 'qualityInspired'));
    expect(answer.body).toContain('أفينتوس');
    expect(answer.body).toContain('بديل أفينتوس');
    expect(answer.body).not.toContain(t('ar', 'toRecommend'));
  });
});
