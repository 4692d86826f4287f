import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

// The Gulf shopper's answers (docs/gulf-shelf.md): kinds of product, alcohol-free, a budget; each a
// rule no recommendation breaks, in the shop's own stock.
let app: TestApp;
let key: string;
const shelf = [
  { merchant_product_id: 'khamrah', name: 'لطافة خمرة او دو بارفان 100 مل', house: 'Lattafa', price: 145 },
  { merchant_product_id: 'oud-wood-tf', name: 'Oud Wood EDP 100ml', house: 'Tom Ford', price: 1290 },
  { merchant_product_id: 'black-aoud', name: 'Black Aoud EDP', house: 'Montale', price: 540 },
  { merchant_product_id: 'shaghaf', name: 'Shaghaf Oud 75ml', house: 'Swiss Arabian', price: 260 },
  { merchant_product_id: 'no-price', name: 'Kalemat EDP', house: 'Arabian Oud' },
  {
    merchant_product_id: 'dehn',
    name: 'دهن عود ملكي 3 مل',
    house: 'Local Atelier',
    price: 450,
    accords: ['oud', 'woody', 'animalic'],
  },
  {
    merchant_product_id: 'musk-oil',
    name: 'Musk Tahara Perfume Oil 12ml',
    house: 'Local Atelier',
    price: 60,
    accords: ['musky', 'powdery'],
  },
  {
    merchant_product_id: 'af-spray',
    name: 'Oud Amber Spray 100ml alcohol free',
    house: 'Local Atelier',
    price: 180,
    accords: ['oud', 'amber'],
  },
  {
    merchant_product_id: 'mist',
    name: 'معطر شعر عود وعنبر 50 مل',
    house: 'Local Atelier',
    price: 95,
    accords: ['oud', 'amber'],
  },
  {
    merchant_product_id: 'bakhoor',
    name: 'بخور العود الملكي 50 جرام',
    house: 'Local Atelier',
    price: 75,
    accords: ['oud', 'amber', 'incense'],
  },
  {
    merchant_product_id: 'sold-out-oil',
    name: 'Oud Amber Perfume Oil 12ml',
    house: 'Local Atelier',
    price: 80,
    accords: ['oud', 'amber'],
    available: false,
  },
];

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const m = await createMerchantWithKey(app, { slug: 'gulf-quiz-shop' });
  key = m.key;
  const res = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${m.merchant.id}/products`,
    payload: { products: shelf },
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(200);
});
afterAll(() => closeTestApp(app));

interface Shown {
  merchant_product_id: string;
  product_kind: string;
  alcohol_free: boolean;
  price: number | null;
}
async function ask(extra: object) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, quiz: { families: ['oud', 'amber'], ...extra } },
  });
  return res;
}
const shown = async (extra: object): Promise<Shown[]> => {
  const res = await ask(extra);
  expect(res.statusCode).toBe(200);
  const body = res.json() as { recommendations: Shown[]; also_explore: Shown[] };
  return [...body.recommendations, ...body.also_explore];
};

describe("the Gulf shopper's answers", () => {
  it('every product says what kind it is and whether it holds alcohol', async () => {
    const seen = new Map<string, [string, boolean]>();
    for (const kinds of [['spray'], ['oil'], ['mist']])
      for (const p of await shown({ kinds })) seen.set(p.merchant_product_id, [p.product_kind, p.alcohol_free]);
    expect(seen.get('khamrah')).toEqual(['spray', false]);
    expect(seen.get('dehn')).toEqual(['oil', true]);
    expect(seen.get('af-spray')).toEqual(['spray', true]);
    // a hair mist is matched to no perfume: recommended as a mist, by the profile its shop gives it
    expect(seen.get('mist')).toEqual(['mist', false]);
  });

  it('kinds: only the kinds asked for, in Arabic or English', async () => {
    const oils = await shown({ kinds: ['oil'] });
    expect(oils.length).toBeGreaterThan(0);
    expect(new Set(oils.map((p) => p.product_kind))).toEqual(new Set(['oil']));
    const arabic = await shown({ kinds: ['دهن', 'معطر شعر'] });
    expect(new Set(arabic.map((p) => p.product_kind))).toEqual(new Set(['oil', 'mist']));
  });

  it('alcohol-free: no product that holds alcohol, a spray only when its listing says so', async () => {
    const free = await shown({ alcohol_free: true });
    expect(free.map((p) => p.merchant_product_id).sort()).toEqual(expect.arrayContaining(['af-spray', 'dehn']));
    expect(free.every((p) => p.alcohol_free)).toBe(true);
    expect(free.map((p) => p.merchant_product_id)).not.toContain('khamrah');
  });

  it('budget: nothing above its top, below its floor, or without a price', async () => {
    const cheap = await shown({ budget: { max: 300 } });
    expect(cheap.length).toBeGreaterThan(0);
    for (const p of cheap) expect(p.price).not.toBeNull();
    expect(cheap.every((p) => (p.price as number) <= 300)).toBe(true);
    const range = await shown({ budget: { min: 200, max: 600 } });
    expect(range.every((p) => (p.price as number) >= 200 && (p.price as number) <= 600)).toBe(true);
    expect(range.map((p) => p.merchant_product_id)).not.toContain('no-price');
  });

  it('the answers together: an alcohol-free oil within budget', async () => {
    const picks = await shown({ families: ['musky'], kinds: ['oil'], alcohol_free: true, budget: { max: 100 } });
    expect(picks.map((p) => p.merchant_product_id)).toEqual(['musk-oil']);
  });

  it('refuses an unknown kind, a budget upside down or negative, with a 400 naming it', async () => {
    for (const [extra, path, code] of [
      [{ kinds: ['perfume bottles'] }, '/body/quiz/kinds/0', 'invalid_quiz'],
      [{ budget: { min: 500, max: 100 } }, '/body/quiz/budget', 'invalid_quiz'],
      [{ budget: { max: 0 } }, '/body/quiz/budget/max', 'validation_failed'],
      [{ budget: { min: -5 } }, '/body/quiz/budget/min', 'validation_failed'],
    ] as const) {
      const res = await ask(extra);
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe(code);
      expect(JSON.stringify(res.json())).toContain(path);
    }
  });

  it('layering: pairs of an oil or bakhoor under a spray, both in stock, in their order of use', async () => {
    const res = await ask({ layering: true });
    expect(res.statusCode).toBe(200);
    const pairs = res.json().layering as {
      base: Shown;
      top: Shown;
      steps: { merchant_product_id: string; how: string }[];
    }[];
    expect(pairs.length).toBeGreaterThan(0);
    expect(pairs.length).toBeLessThanOrEqual(3);
    for (const p of pairs) {
      expect(['oil', 'bakhoor', 'oud_wood']).toContain(p.base.product_kind);
      expect(p.top.product_kind).toBe('spray');
      expect(p.base.merchant_product_id).not.toBe('sold-out-oil');
      expect(p.steps.map((s) => s.how)).toEqual([
        p.base.product_kind === 'oil' ? 'oil_on_skin' : 'smoke_clothes',
        'spray_over',
      ]);
    }
    // asked for nothing of it, the answer holds no layering block
    expect((await ask({})).json().layering).toBeUndefined();
  });

  it('lasts in heat: every product carries its estimate, labelled estimated, and none estimated short', async () => {
    const res = await ask({ lasts_in_heat: true });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { recommendations: (Shown & { heat: { lasting: string; estimated: boolean } })[] };
    expect(body.recommendations.length).toBeGreaterThan(0);
    for (const r of body.recommendations) {
      expect(r.heat.estimated).toBe(true);
      expect(r.heat.lasting).not.toBe('short');
    }
    expect((await ask({})).json().recommendations[0].heat).toBeUndefined();
    // a listing that names no concentration is estimated by our perfume's: Shaghaf Oud is an eau de parfum
    const all = (await ask({ lasts_in_heat: true, gender: 'any' })).json() as {
      recommendations: (Shown & { heat: { reasons: string[] } })[];
      also_explore: (Shown & { heat: { reasons: string[] } })[];
    };
    const shaghaf = [...all.recommendations, ...all.also_explore].find((r) => r.merchant_product_id === 'shaghaf');
    expect(shaghaf?.heat.reasons[0]).toBe('concentration_edp');
  });

  it('a gift for her names the recipient; Ramadan nights is an occasion in Arabic and English', async () => {
    const gift = await ask({ gift: true, gender: 'نسائي' });
    expect(gift.statusCode).toBe(200);
    expect(gift.json().taste_summary.gift).toEqual({ recipient: 'her' });
    for (const occasion of ['ليالي رمضان', 'Ramadan nights', 'ramadan-nights'])
      expect((await ask({ occasion })).statusCode).toBe(200);
  });

  it("alternatives to a loved perfume: never the perfume itself, its price against the shop's", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: key, quiz: { loved_perfumes: ['lattafa-khamrah-edp'], budget: { max: 300 } } },
    });
    expect(res.statusCode).toBe(200);
    const [alt] = res.json().alternatives as {
      to: { sillage_perfume_id: string };
      shop_price: number | null;
      products: (Shown & { price_difference: number | null })[];
    }[];
    expect(alt?.to.sillage_perfume_id).toBe('lattafa-khamrah-edp');
    expect(alt?.shop_price).toBe(145);
    for (const p of alt?.products ?? []) {
      expect(p.merchant_product_id).not.toBe('khamrah');
      expect(p.price as number).toBeLessThanOrEqual(300);
      expect(p.price_difference).toBe((p.price as number) - 145);
    }
  });
});
