import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/client.ts';
import { widgetAnswers, widgetSessions } from '../schema/index.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
let key: string;
let testKey: string;
let merchantId: string;
const quiz = {
  families: ['oud', 'amber'],
  accord_ratings: { oud: 'love', citrus: 'avoid' },
  season: 'winter',
  occasion: 'evening',
};
const feed = [
  {
    merchant_product_id: 'oud-1',
    name: 'Oud Wood 100ml',
    house: 'Tom Ford',
    price: 1290,
    product_url: 'https://shop.example/oud-1',
  },
  { merchant_product_id: 'oud-2', name: 'Black Aoud EDP', house: 'Montale', price: 540 },
  { merchant_product_id: 'amb-1', name: 'Grand Soir', house: 'MFK', price: 1150, currency: 'AED' },
  { merchant_product_id: 'cit-1', name: 'Dior Homme Cologne', house: 'Dior', price: 400 },
  { merchant_product_id: 'fresh-1', name: 'Dylan Blue EDT', house: 'Versace', price: 395 },
  { merchant_product_id: 'sw-1', name: 'Khamrah', house: 'Lattafa', price: 145 },
  { merchant_product_id: 'sw-2', name: 'Khamrah Qahwa', house: 'Lattafa', price: 155 },
  { merchant_product_id: 'rose-1', name: 'Kalemat', house: 'Arabian Oud', price: 420 },
  { merchant_product_id: 'hint-1', name: 'Musk Tahara', house: 'Local Atelier', accords: ['musky', 'powdery'] },
  { merchant_product_id: 'none-1', name: 'Gift wrapping', house: 'Local Atelier' },
];

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const m = await createMerchantWithKey(app, { slug: 'score-shop', origins: ['https://shop.example'] });
  key = m.key;
  merchantId = m.merchant.id;
  const t = await (await import('../services/keys.ts')).createKey(app.db, merchantId, {
    mode: 'test',
    allowedOrigins: [],
  });
  testKey = t.key;
  const res = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${merchantId}/products`,
    payload: { products: feed },
    headers: adminHeaders,
  });
  expect(res.json().matched).toBe(8);
});
afterAll(() => closeTestApp(app));

const score = (body: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: key, ...body }, headers });

describe('POST /api/widget/score — the interface rules', () => {
  it('answers ranked recommendations, also_explore, the taste summary, attribution and test_mode', async () => {
    const res = await score({ quiz });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.merchant).toEqual({ id: merchantId, name: 'Shop score-shop', slug: 'score-shop' });
    expect(body.test_mode).toBe(false);
    expect(body.recommendations.length).toBeGreaterThan(0);
    const [first] = body.recommendations;
    expect(['oud-1', 'oud-2', 'amb-1']).toContain(first.merchant_product_id);
    // perfumes of the older grouped files: their own profile, not yet reviewed house by house
    expect(first).toMatchObject({ quality: 'unreviewed', currency: expect.any(String) });
    expect(Number.isInteger(first.match_score)).toBe(true);
    expect(first.match_accords.length).toBeGreaterThan(0);
    const scores = body.recommendations.map((r: { match_score: number }) => r.match_score);
    expect([...scores].sort((a: number, b: number) => b - a)).toEqual(scores);
    // the summary reports what the shopper said; what the answers imply is apart, as inferred
    expect(body.taste_summary).toEqual({
      dominant_families: ['amber', 'oud'],
      top_accords: ['oud'],
      avoid_accords: ['citrus'],
      inferred: { families: expect.any(Array), accords: expect.any(Array) },
    });
    expect(body.taste_summary.inferred.accords).not.toContain('oud');
    for (const r of body.recommendations) expect(['strong', 'good']).toContain(r.fit);
    expect(body.powered_by.label).toMatch(/[\u0600-\u06FF]/);
    expect(body.powered_by.url).toContain('merchant=score-shop');
    expect(body.powered_by.logo_svg).toMatch(/^<svg/);
    expect(Array.isArray(body.also_explore)).toBe(true);
  });

  it('rule 1: creates a UUID session_id when omitted, echoes a given one', async () => {
    const created = (await score({ quiz })).json().session_id;
    // time-ordered (version 7): later sessions sort after earlier ones
    expect(created).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const later = (await score({ quiz })).json().session_id;
    expect(later > created).toBe(true);
    const mine = '2f1c3a8e-5b7d-4c2a-9e1f-0a1b2c3d4e5f';
    expect((await score({ quiz, session_id: mine })).json().session_id).toBe(mine);
    const bad = await score({ quiz, session_id: 'not-a-uuid' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('/body/session_id');
  });

  it('rule 2: synced mode uses the connected products; never recommends what cannot be', async () => {
    const body = (await score({ quiz, limit: 24 })).json();
    const ids = [...body.recommendations, ...body.also_explore].map(
      (r: { merchant_product_id: string }) => r.merchant_product_id,
    );
    expect(ids).not.toContain('none-1');
    for (const id of ids) expect(feed.map((p) => p.merchant_product_id)).toContain(id);
    // the oud perfumes fit an oud lover; a partial product (from the merchant's hints) fits a musk lover
    expect(body.recommendations.map((r: { merchant_product_id: string }) => r.merchant_product_id)).toEqual(
      expect.arrayContaining(['oud-1', 'oud-2']),
    );
    const musk = (await score({ quiz: { families: ['musky'], accord_ratings: { musky: 'love' } }, limit: 24 })).json();
    expect(musk.recommendations.map((r: { merchant_product_id: string }) => r.merchant_product_id)).toContain('hint-1');
  });

  it('for whom: a product made for the other wearer is never shown, by our catalog or by its listing; each result says for whom', async () => {
    const inline_catalog = [
      {
        merchant_product_id: 'w1',
        name: 'Musk Tahara for women 50ml',
        house: 'Local Atelier',
        accords: ['musky', 'powdery'],
      },
      { merchant_product_id: 'm1', name: 'Musk Tahara للرجال', house: 'Local Atelier', accords: ['musky', 'powdery'] },
      { merchant_product_id: 'u1', name: 'Musk Tahara', house: 'Local Atelier', accords: ['musky', 'powdery'] },
    ];
    const musk = { families: ['musky'], accord_ratings: { musky: 'love' } };
    const shownFor = async (gender?: string) => {
      const res = await score({
        quiz: { ...musk, ...(gender ? { gender } : {}) },
        catalog_mode: 'inline',
        inline_catalog,
      });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      return Object.fromEntries(
        [...body.recommendations, ...body.also_explore].map(
          (r: { merchant_product_id: string; gender: string | null }) => [r.merchant_product_id, r.gender],
        ),
      );
    };
    expect(await shownFor('نسائي')).toEqual({ w1: 'women', u1: null });
    expect(await shownFor('men')).toEqual({ m1: 'men', u1: null });
    expect(await shownFor()).toEqual({ w1: 'women', m1: 'men', u1: null });
    const bad = await score({ quiz: { ...musk, gender: 'robots' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([expect.objectContaining({ path: '/body/quiz/gender' })]);
  });

  it('inline mode reads the house of a product given none from its title, as a synced one', async () => {
    const res = await score({
      quiz,
      catalog_mode: 'inline',
      inline_catalog: [
        { merchant_product_id: 'n1', name: 'Swiss Arabian Shaghaf Oud 75ml', price: 260 },
        { merchant_product_id: 'n2', name: 'Shaghaf Oud', house: '', price: 250 },
      ],
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    const shown = Object.fromEntries(
      [...body.recommendations, ...body.also_explore].map(
        (r: { merchant_product_id: string; sillage_perfume_id: string; quality: string }) => [
          r.merchant_product_id,
          [r.sillage_perfume_id, r.quality],
        ],
      ),
    );
    // the record is one of the older grouped files', its profile not yet reviewed
    expect(shown).toEqual({
      n1: ['swiss-arabian-shaghaf-oud-edp', 'unreviewed'],
      n2: ['swiss-arabian-shaghaf-oud-edp', 'unreviewed'],
    });
  });

  it('rule 3: inline mode uses the products passed, each needing an id and a name', async () => {
    const res = await score({
      quiz,
      catalog_mode: 'inline',
      inline_catalog: [
        { merchant_product_id: 'i1', name: 'Shaghaf Oud', house: 'Swiss Arabian', price: 260 },
        { merchant_product_id: 'i2', name: 'Light Blue', house: 'Dolce & Gabbana', price: 390 },
      ],
    });
    expect(res.statusCode).toBe(200);
    const recs = res.json().recommendations;
    // Light Blue's citrus, which this shopper avoids, is prominent in it: never shown, not even in also_explore
    expect(recs.map((r: { merchant_product_id: string }) => r.merchant_product_id)).toEqual(['i1']);
    expect(res.json().also_explore.map((r: { merchant_product_id: string }) => r.merchant_product_id)).not.toContain(
      'i2',
    );
    expect(recs[0]).toMatchObject({
      sillage_perfume_id: 'swiss-arabian-shaghaf-oud-edp',
      quality: 'unreviewed',
      currency: 'SAR',
    });
    const missing = await score({ quiz, catalog_mode: 'inline' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatch(/inline_catalog/);
    const bad = await score({
      quiz,
      catalog_mode: 'inline',
      inline_catalog: [{ merchant_product_id: 'x', name: 'No house', house: ['Lattafa'] }],
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_inline_catalog', details: [{ path: '/body/inline_catalog/0' }] });
    expect(bad.json().error).toMatch(/house must be text of at most 200 characters/);
    const tooMany = await score({
      quiz,
      catalog_mode: 'inline',
      inline_catalog: Array.from({ length: 201 }, (_, i) => ({
        merchant_product_id: `p${i}`,
        name: 'Aventus',
        house: 'Creed',
      })),
    });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().details[0].path).toBe('/body/inline_catalog');
  });

  it('rule 4: at most limit recommendations (default 6); limit 0 or above 24 is 400', async () => {
    expect((await score({ quiz })).json().recommendations).toHaveLength(6);
    expect((await score({ quiz, limit: 2 })).json().recommendations).toHaveLength(2);
    for (const limit of [0, 25, 2.5, '6']) {
      const res = await score({ quiz, limit });
      expect(res.statusCode, String(limit)).toBe(400);
      expect(res.json().details[0].path).toBe('/body/limit');
    }
  });

  it('rule 5: a product without currency is in SAR', async () => {
    const recs = (await score({ quiz, limit: 24 })).json().recommendations;
    expect(recs.find((r: { merchant_product_id: string }) => r.merchant_product_id === 'oud-2').currency).toBe('SAR');
    expect(recs.find((r: { merchant_product_id: string }) => r.merchant_product_id === 'amb-1').currency).toBe('AED');
  });

  it('rule 6: an invalid quiz is 400 with a clear error', async () => {
    const cases: [object, RegExp][] = [
      [{ quiz: {} }, /at least one family, rate at least one accord, or name a loved perfume/],
      [{ quiz: { families: [] } }, /at least one family/],
      [{ quiz: { families: ['citrusy-ish'] } }, /unknown family "citrusy-ish"; allowed: floral, woody/],
      [{ quiz: { accord_ratings: { unicorn: 'love' } } }, /unknown accord "unicorn"/],
      [
        { quiz: { accord_ratings: { oud: 'adore' } } },
        /unknown rating "adore"; allowed: love, like, neutral, dislike, avoid/,
      ],
      [{ quiz: { families: ['oud'], season: 'monsoon' } }, /unknown season/],
      [{ quiz: { families: ['oud'], occasion: 'funeral' } }, /unknown occasion/],
      [{ quiz: { families: 'oud' } }, /families must be array/],
      [{ quiz: { accord_ratings: { oud: 5 } } }, /must be string/],
      [{ quiz: 'oud lover' }, /quiz must be object/],
      [{}, /quiz/],
      [{ quiz, locale: 'fr' }, /locale/],
      [{ quiz, catalog_mode: 'both' }, /catalog_mode/],
    ];
    for (const [body, message] of cases) {
      const res = await score(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error, JSON.stringify(body)).toMatch(message);
      expect(typeof res.json().code).toBe('string');
    }
  });

  it('English locale labels the attribution in English', async () => {
    expect((await score({ quiz, locale: 'en' })).json().powered_by.label).toBe('Powered by Sillage');
  });

  it('a test key answers test_mode true', async () => {
    expect((await score({ quiz }, {})).json().test_mode).toBe(false);
    const res = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: testKey, quiz } });
    expect(res.json().test_mode).toBe(true);
  });
});

describe('loved and disliked perfumes (an extension of the quiz)', () => {
  it('a quiz of a loved perfume alone: the perfume first, its version labelled, the summary names it', async () => {
    const res = await score({ quiz: { loved_perfumes: ['lattafa-khamrah-edp'] } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.recommendations[0]).toMatchObject({
      merchant_product_id: 'sw-1',
      similar_to: { sillage_perfume_id: 'lattafa-khamrah-edp', name: 'Khamrah', house: 'Lattafa', relation: 'same' },
    });
    const qahwa = body.recommendations.find((r: { merchant_product_id: string }) => r.merchant_product_id === 'sw-2');
    expect(qahwa?.similar_to).toMatchObject({ relation: 'version', sillage_perfume_id: 'lattafa-khamrah-edp' });
    expect(body.taste_summary.loved_perfumes).toEqual([
      { sillage_perfume_id: 'lattafa-khamrah-edp', name: 'Khamrah', house: 'Lattafa' },
    ]);
  });

  it('a disliked perfume the shop sells is never shown, nor its versions', async () => {
    const res = await score({
      quiz: { families: ['amber', 'gourmand'], disliked_perfumes: ['lattafa-khamrah-edp'] },
      limit: 24,
    });
    expect(res.statusCode).toBe(200);
    const shown = [...res.json().recommendations, ...res.json().also_explore].map(
      (r: { merchant_product_id: string }) => r.merchant_product_id,
    );
    expect(shown).not.toContain('sw-1');
    expect(shown).not.toContain('sw-2');
  });

  it('ids not in our catalog are 400 invalid_quiz naming each', async () => {
    const res = await score({
      quiz: { loved_perfumes: ['lattafa-khamrah-edp', 'no-such-perfume'], disliked_perfumes: ['nor-this'] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_quiz', error: expect.stringContaining('no-such-perfume') });
    expect(res.json().details).toEqual([
      { path: '/body/quiz/loved_perfumes/1', message: expect.stringContaining('"no-such-perfume"') },
      { path: '/body/quiz/disliked_perfumes/0', message: expect.stringContaining('"nor-this"') },
    ]);
  });

  it('refuses six loved perfumes, one both loved and disliked, and a price to beat with nothing loved', async () => {
    const six = await score({ quiz: { loved_perfumes: ['a', 'b', 'c', 'd', 'e', 'f'] } });
    expect(six.statusCode).toBe(400);
    expect(six.json().details[0].path).toBe('/body/quiz/loved_perfumes');
    const both = await score({
      quiz: { loved_perfumes: ['lattafa-khamrah-edp'], disliked_perfumes: ['lattafa-khamrah-edp'] },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json()).toMatchObject({ code: 'invalid_quiz', details: [{ path: '/body/quiz/disliked_perfumes/0' }] });
    const price = await score({ quiz: { families: ['oud'], for_less_than: 300 } });
    expect(price.statusCode).toBe(400);
    expect(price.json()).toMatchObject({ code: 'invalid_quiz', details: [{ path: '/body/quiz/for_less_than' }] });
    const free = await score({ quiz: { loved_perfumes: ['lattafa-khamrah-edp'], for_less_than: 0 } });
    expect(free.statusCode).toBe(400);
    // a disliked perfume alone says too little to recommend from
    const disliked = await score({ quiz: { disliked_perfumes: ['lattafa-khamrah-edp'] } });
    expect(disliked.statusCode).toBe(400);
    expect(disliked.json().code).toBe('invalid_quiz');
  });
});

describe('keys, origins, versions and limits on score', () => {
  it('401, 403 and version like every widget operation', async () => {
    expect((await app.inject({ method: 'POST', url: '/api/widget/score', payload: { quiz } })).statusCode).toBe(401);
    expect((await score({ quiz }, { origin: 'https://elsewhere.example' })).statusCode).toBe(403);
    expect((await score({ quiz }, { origin: 'https://shop.example' })).statusCode).toBe(200);
    expect((await score({ quiz }, { 'x-widget-version': 'v1' })).statusCode).toBe(200);
    expect((await score({ quiz }, { 'x-widget-version': 'v0' })).statusCode).toBe(400);
  });

  it('allows 100 a minute per key and address, then 429 with Retry-After', async () => {
    const m = await createMerchantWithKey(app);
    const call = () => app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: m.key, quiz } });
    for (let i = 0; i < 100; i++) expect((await call()).statusCode).toBe(200);
    const res = await call();
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
  });
});

describe('caching and sessions', () => {
  it('a sync is visible to the next score at once (the compiled catalog is dropped)', async () => {
    const m = await createMerchantWithKey(app);
    const before = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: m.key, quiz } });
    expect(before.json().recommendations).toEqual([]);
    await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${m.merchant.id}/products`,
      payload: { products: feed.slice(0, 2) },
      headers: adminHeaders,
    });
    const after = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: m.key, quiz } });
    expect(
      after
        .json()
        .recommendations.map((r: { merchant_product_id: string }) => r.merchant_product_id)
        .sort(),
    ).toEqual(['oud-1', 'oud-2']);
  });

  it('records each scored session with the products shown and their positions', async () => {
    const session = '11111111-2222-4333-8444-555555555555';
    const res = await score({ quiz, session_id: session, locale: 'en' });
    await app.sessions.flush();
    const [row] = await app.db.select().from(widgetSessions).where(eq(widgetSessions.id, session));
    expect(row).toMatchObject({ merchantId, test: false, locale: 'en' });
    const [answer] = await app.db
      .select()
      .from(widgetAnswers)
      .where(eq(widgetAnswers.id, row?.answerId as string));
    const shown = answer?.shown as { merchant_product_id: string; position: number; list: string }[];
    const recs = res.json().recommendations;
    expect(shown.filter((s) => s.list === 'recommendations').map((s) => s.merchant_product_id)).toEqual(
      recs.map((r: { merchant_product_id: string }) => r.merchant_product_id),
    );
    expect(shown[0]?.position).toBe(1);
    expect(answer?.quiz).toMatchObject({ families: ['amber', 'oud'], catalog_mode: 'synced' });
  });

  it('stores an answer once for all the sessions that got it, under the id migration 0006 computes', async () => {
    const ids = ['61111111-2222-4333-8444-555555555555', '62111111-2222-4333-8444-555555555555'];
    for (const session_id of ids) await score({ quiz, session_id, locale: 'ar' });
    const other = '63111111-2222-4333-8444-555555555555';
    await score({ quiz: { ...quiz, season: 'summer' }, session_id: other });
    await app.sessions.flush();
    const rows = await app.db
      .select()
      .from(widgetSessions)
      .where(inArray(widgetSessions.id, [...ids, other]));
    const answerOf = new Map(rows.map((r) => [r.id, r.answerId]));
    expect(answerOf.get(ids[0] as string)).toBe(answerOf.get(ids[1] as string));
    expect(answerOf.get(other)).not.toBe(answerOf.get(ids[0] as string));
    const answers = await app.db
      .select({ id: widgetAnswers.id })
      .from(widgetAnswers)
      .where(inArray(widgetAnswers.id, [...new Set(answerOf.values())]));
    expect(answers).toHaveLength(2);
    // the migration's SQL hash of a stored answer is its id, so moved and new sessions share answers
    const same = await app.db.execute(sql`
      select id = encode(substring(sha256(convert_to(merchant_id::text || E'\n' || quiz::text || E'\n' || shown::text, 'UTF8')) from 1 for 16), 'hex')::uuid as same
      from ${widgetAnswers} where merchant_id = ${merchantId}`);
    const flags = rowsOf<{ same: boolean }>(same).map((r) => r.same);
    expect(flags.length).toBeGreaterThanOrEqual(2);
    expect(flags.every(Boolean)).toBe(true);
  });

  it('test-key sessions are stored as test', async () => {
    const session = '21111111-2222-4333-8444-555555555555';
    await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: testKey, quiz, session_id: session },
    });
    await app.sessions.flush();
    const [row] = await app.db.select().from(widgetSessions).where(eq(widgetSessions.id, session));
    expect(row?.test).toBe(true);
  });

  it('a session id the database could not store is refused at the door, and never blocks others', async () => {
    // JSON Schema's "uuid" format also accepts urn:uuid:… and upper case; the uuid column takes only the bare form
    for (const odd of ['urn:uuid:31111111-2222-4333-8444-555555555555', '{31111111-2222-4333-8444-555555555555}']) {
      const res = await score({ quiz, session_id: odd });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'validation_failed',
        error: 'Invalid request: session_id must be a UUID (8-4-4-4-12 hexadecimal digits)',
      });
    }
    const upper = '41111111-2222-4333-8444-55555555555A';
    expect((await score({ quiz, session_id: upper })).json().session_id).toBe(upper);
    const session = '51111111-2222-4333-8444-555555555555';
    await score({ quiz, session_id: session });
    await app.sessions.flush();
    const rows = await app.db
      .select()
      .from(widgetSessions)
      .where(inArray(widgetSessions.id, [session, upper]));
    expect(rows).toHaveLength(2);
  });
});

describe('several instances on one database', () => {
  it('a sync through one instance is seen by score on another at its next version check', async () => {
    const { buildApp } = await import('../app.ts');
    const { testConfig } = await import('./helper.ts');
    // a second instance on the same database (not closing it: the first owns it)
    const other = await buildApp({
      config: testConfig({ REDIS_URL: undefined }),
      database: { ...app.database, close: async () => {}, migrate: async () => {} },
      logger: false,
    });
    await other.ready();
    const m = await createMerchantWithKey(app);
    const ask = () => other.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: m.key, quiz } });
    expect((await ask()).json().recommendations).toEqual([]); // compiled and cached on the other instance
    await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${m.merchant.id}/products`,
      payload: { products: feed.slice(0, 1) },
      headers: adminHeaders,
    });
    expect((await ask()).json().recommendations).toEqual([]); // still its cached catalog
    await other.merchantProducts.checkVersions(); // what its timer does every 500 ms
    expect(
      (await ask()).json().recommendations.map((r: { merchant_product_id: string }) => r.merchant_product_id),
    ).toEqual(['oud-1']);
    await other.close();
  });
});
