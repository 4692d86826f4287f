import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { t } from '../console/i18n.ts';
import { createConsoleUser } from '../services/console-users.ts';
import { Browser, PASSWORD } from './console-session.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/**
 * The merchant's correction of a product's kind (docs/gulf-shelf.md, "The merchant's correction"):
 * set with the admin API or the console's product page, kept through syncs, and the kind the
 * product is scored, filtered and shown as from the next score on; alcohol-free as that kind is.
 */
let app: TestApp;
let shopId = '';

const FEED = [
  // read as a spray: the shop sells it as an oil
  {
    merchant_product_id: 'oud-amber',
    name: 'Oud Amber Royal 12ml',
    house: 'Local Atelier',
    price: 120,
    accords: ['oud', 'amber', 'woody'],
  },
  // bakhoor sold in a bag (كيس): read as an accessory, so matched to nothing and never recommended
  {
    merchant_product_id: 'mamool',
    name: 'بخور معمول كيس 50 جرام',
    house: 'Local Atelier',
    price: 45,
    accords: ['oud', 'amber', 'smoky'],
  },
  { merchant_product_id: 'khamrah', name: 'لطافة خمرة او دو بارفان 100 مل', house: 'Lattafa', price: 145 },
  // read as a body mist: the shop sells it as a perfume spray
  {
    merchant_product_id: 'body-spray',
    name: 'Oud Amber Body Spray 200ml',
    house: 'Local Atelier',
    price: 90,
    accords: ['oud', 'amber'],
  },
];

interface Shown {
  merchant_product_id: string;
  product_kind: string;
  alcohol_free: boolean;
}
interface Product {
  merchant_product_id: string;
  status: string;
  kind_override: string | null;
  explanation: { parsed: { kind: string } };
}

const sync = async (merchantId: string, products: object[]) => {
  const res = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${merchantId}/products`,
    payload: { products },
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(200);
};
const setKind = (merchantId: string, id: string, payload: object) =>
  app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${merchantId}/products/${encodeURIComponent(id)}/kind`,
    payload,
    headers: adminHeaders,
  });
const listed = async (merchantId: string, id: string): Promise<Product> => {
  const res = await app.inject({
    method: 'GET',
    url: `/api/admin/merchants/${merchantId}/products`,
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(200);
  const p = (res.json() as { products: Product[] }).products.find((x) => x.merchant_product_id === id);
  expect(p, id).toBeDefined();
  return p as Product;
};
const shown = async (apiKey: string, quiz: object): Promise<Shown[]> => {
  const res = await app.inject({ method: 'POST', url: '/api/widget/score', payload: { api_key: apiKey, quiz } });
  expect(res.statusCode).toBe(200);
  const body = res.json() as { recommendations: Shown[]; also_explore: Shown[] };
  return [...body.recommendations, ...body.also_explore];
};
const find = (list: Shown[], id: string) => list.find((p) => p.merchant_product_id === id);

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const made = await createMerchantWithKey(app, { slug: 'kind-shop' });
  shopId = made.merchant.id;
  await sync(shopId, FEED);
});
afterAll(() => closeTestApp(app));

describe("the admin API's correction of a product's kind", () => {
  it('sets it and clears it with null; the product shows what was read and the correction', async () => {
    expect((await listed(shopId, 'khamrah')).kind_override).toBeNull();
    const set = await setKind(shopId, 'khamrah', { kind: 'gift_set' });
    expect(set.statusCode).toBe(200);
    const body = set.json() as Product;
    expect(body.kind_override).toBe('gift_set');
    expect(body.explanation.parsed.kind).toBe('spray');
    expect((await listed(shopId, 'khamrah')).kind_override).toBe('gift_set');
    const cleared = await setKind(shopId, 'khamrah', { kind: null });
    expect(cleared.statusCode).toBe(200);
    expect((cleared.json() as Product).kind_override).toBeNull();
    expect((await listed(shopId, 'khamrah')).kind_override).toBeNull();
  });

  it('refuses a kind that is not one with 400 invalid_kind, and changes nothing', async () => {
    expect((await setKind(shopId, 'khamrah', { kind: 'oil' })).statusCode).toBe(200);
    for (const kind of ['perfume', 'Oil', 'دهن', 'edp']) {
      const res = await setKind(shopId, 'khamrah', { kind });
      expect(res.statusCode, kind).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_kind', error: expect.stringContaining('spray') });
    }
    expect((await listed(shopId, 'khamrah')).kind_override).toBe('oil');
    expect((await setKind(shopId, 'khamrah', { kind: null })).statusCode).toBe(200);
  });

  it('answers 404 for a product or a merchant it does not know', async () => {
    const product = await setKind(shopId, 'no-such-product', { kind: 'oil' });
    expect(product.statusCode).toBe(404);
    expect(product.json()).toMatchObject({ code: 'product_not_found' });
    const merchant = await setKind('no-such-merchant', 'khamrah', { kind: 'oil' });
    expect(merchant.statusCode).toBe(404);
    expect(merchant.json()).toMatchObject({ code: 'merchant_not_found' });
  });
});

describe('the corrected kind is the kind the shopper is shown', () => {
  let shop = '';
  let shopKey = '';
  beforeAll(async () => {
    const made = await createMerchantWithKey(app, { slug: 'kind-score-shop' });
    shop = made.merchant.id;
    shopKey = made.key;
    await sync(shop, FEED);
  });

  it('a spray corrected to an oil is an oil, alcohol-free, at the next score, and no longer a spray', async () => {
    const before = find(await shown(shopKey, { families: ['oud'], kinds: ['spray'] }), 'oud-amber');
    expect(before).toMatchObject({ product_kind: 'spray', alcohol_free: false });
    expect(find(await shown(shopKey, { families: ['oud'], kinds: ['oil'] }), 'oud-amber')).toBeUndefined();

    expect((await setKind(shop, 'oud-amber', { kind: 'oil' })).statusCode).toBe(200);
    const oil = find(await shown(shopKey, { families: ['oud'], kinds: ['oil'] }), 'oud-amber');
    expect(oil).toMatchObject({ product_kind: 'oil', alcohol_free: true });
    expect(find(await shown(shopKey, { families: ['oud'], kinds: ['spray'] }), 'oud-amber')).toBeUndefined();
    expect(find(await shown(shopKey, { families: ['oud'], alcohol_free: true }), 'oud-amber')).toBeDefined();
  });

  it('a sync of the same product keeps the correction', async () => {
    await sync(
      shop,
      FEED.map((p) => (p.merchant_product_id === 'oud-amber' ? { ...p, price: 110 } : p)),
    );
    expect((await listed(shop, 'oud-amber')).kind_override).toBe('oil');
    const oil = find(await shown(shopKey, { families: ['oud'], kinds: ['oil'] }), 'oud-amber');
    expect(oil).toMatchObject({ product_kind: 'oil', alcohol_free: true });
  });

  it('bakhoor read as something else is recommended as bakhoor once corrected, through syncs', async () => {
    expect((await listed(shop, 'mamool')).status).toBe('unmatched');
    expect(find(await shown(shopKey, { families: ['oud'], kinds: ['bakhoor'] }), 'mamool')).toBeUndefined();
    const set = await setKind(shop, 'mamool', { kind: 'bakhoor' });
    expect(set.statusCode).toBe(200);
    // the profile its shop gives it counts now that it is burnt for its scent
    expect((set.json() as Product).status).toBe('partial');
    const bakhoor = find(await shown(shopKey, { families: ['oud'], kinds: ['bakhoor'] }), 'mamool');
    expect(bakhoor).toMatchObject({ product_kind: 'bakhoor', alcohol_free: true });
    await sync(shop, FEED);
    expect((await listed(shop, 'mamool')).status).toBe('partial');
    expect(find(await shown(shopKey, { families: ['oud'], kinds: ['bakhoor'] }), 'mamool')).toBeDefined();
    // cleared: read as the listing reads again, never recommended
    expect(((await setKind(shop, 'mamool', { kind: null })).json() as Product).status).toBe('unmatched');
    expect(find(await shown(shopKey, { families: ['oud'], kinds: ['bakhoor'] }), 'mamool')).toBeUndefined();
  });

  it('a mist corrected to a spray stays recommended, as a spray; corrected to another thing, it is not', async () => {
    expect(find(await shown(shopKey, { families: ['oud'], kinds: ['mist'] }), 'body-spray')).toBeDefined();
    expect((await setKind(shop, 'body-spray', { kind: 'spray' })).statusCode).toBe(200);
    const spray = find(await shown(shopKey, { families: ['oud'], kinds: ['spray'] }), 'body-spray');
    expect(spray).toMatchObject({ product_kind: 'spray', alcohol_free: false });
    // a set, a kit or a thing not worn as a perfume is never recommended by its shop's words
    const other = await setKind(shop, 'body-spray', { kind: 'other' });
    expect((other.json() as Product).status).toBe('unmatched');
    expect(find(await shown(shopKey, { families: ['oud'] }), 'body-spray')).toBeUndefined();
    expect((await setKind(shop, 'body-spray', { kind: null })).statusCode).toBe(200);
  });
});

describe("the console's product page corrects the kind", () => {
  const SLUG = 'kind-console-shop';
  const HOME = `/console/m/${SLUG}`;
  const page = (id: string, lang = 'en') => `${HOME}/shelf/product?id=${id}&lang=${lang}`;
  let consoleKey = '';
  let consoleShop = '';
  beforeAll(async () => {
    const made = await createMerchantWithKey(app, { slug: SLUG });
    consoleKey = made.key;
    consoleShop = made.merchant.id;
    await sync(made.merchant.id, FEED);
    await createConsoleUser(app.db, {
      email: `staff@${SLUG}.example`,
      password: PASSWORD,
      role: 'staff',
      merchant: made.merchant.id,
    });
    // a member of another shop's staff
    await createConsoleUser(app.db, {
      email: 'staff@kind-shop.example',
      password: PASSWORD,
      role: 'staff',
      merchant: shopId,
    });
  });
  // each test starts from the kind as read
  afterEach(async () => {
    expect((await setKind(consoleShop, 'oud-amber', { kind: null })).statusCode).toBe(200);
  });
  const signedIn = async (email: string, ip: string) => {
    const b = new Browser(app, ip);
    await b.signIn(email);
    return b;
  };

  it('offers every kind, the kind as read selected, and says it was read from the listing', async () => {
    const b = await signedIn(`staff@${SLUG}.example`, '10.0.61.1');
    const res = await b.get(page('oud-amber'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`<form method="post" action="${HOME}/shelf/kind" id="kind"`);
    expect(res.body).toContain(`<option value="" selected>${t('en', 'kindFromListing', { k: t('en', 'kind_spray') })}`);
    for (const k of ['spray', 'oil', 'bakhoor', 'oud_wood', 'mist', 'gift_set', 'sample', 'other'])
      expect(res.body).toContain(`<option value="${k}">`);
    expect(res.body).toContain(`data-kind="spray" data-kind-from="listing">${t('en', 'kindRead')}</dd>`);
    const ar = await b.get(page('oud-amber', 'ar'));
    expect(ar.body).toContain(`<option value="oil">${t('ar', 'kind_oil')}</option>`);
  });

  it('a correction sent with the form is saved, shown as the shop’s, and reaches the next score', async () => {
    const b = await signedIn(`staff@${SLUG}.example`, '10.0.61.2');
    await b.get(page('oud-amber'));
    const saved = await b.post(`${HOME}/shelf/kind`, { product: 'oud-amber', kind: 'oil' });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${HOME}/shelf/product?id=oud-amber&done=kindSaved#kind`);
    const after = await b.get(`${HOME}/shelf/product?id=oud-amber&done=kindSaved&lang=en`);
    expect(after.body).toContain(t('en', 'kindSaved'));
    expect(after.body).toContain(`<dd class="product-kind">${t('en', 'kind_oil')}</dd>`);
    expect(after.body).toContain(
      `data-kind="oil" data-kind-from="shop">${t('en', 'kindCorrected')} (${t('en', 'kindReadWas', { k: t('en', 'kind_spray') })})</dd>`,
    );
    expect(after.body).toContain('<option value="oil" selected>');
    const oil = find(await shown(consoleKey, { families: ['oud'], kinds: ['oil'] }), 'oud-amber');
    expect(oil).toMatchObject({ product_kind: 'oil', alcohol_free: true });

    const cleared = await b.post(`${HOME}/shelf/kind`, { product: 'oud-amber', kind: '' });
    expect(cleared.headers.location).toBe(`${HOME}/shelf/product?id=oud-amber&done=kindCleared#kind`);
    const back = await b.get(`${HOME}/shelf/product?id=oud-amber&done=kindCleared&lang=en`);
    expect(back.body).toContain(t('en', 'kindCleared'));
    expect(back.body).toContain(`data-kind="spray" data-kind-from="listing">`);
    expect(find(await shown(consoleKey, { families: ['oud'], kinds: ['oil'] }), 'oud-amber')).toBeUndefined();
  });

  it('refuses the form without its CSRF token, and a kind that is not one', async () => {
    const b = await signedIn(`staff@${SLUG}.example`, '10.0.61.3');
    await b.get(page('oud-amber'));
    const forged = await b.post(`${HOME}/shelf/kind`, { product: 'oud-amber', kind: 'oil' }, { csrf: null });
    expect(forged.statusCode).toBe(403);
    const odd = await b.post(`${HOME}/shelf/kind`, { product: 'oud-amber', kind: 'perfume' });
    expect(odd.statusCode).toBe(400);
    expect((await b.get(page('oud-amber'))).body).toContain('data-kind-from="listing"');
  });

  it("another shop's staff gets 404, and the product is left as it was", async () => {
    const other = await signedIn('staff@kind-shop.example', '10.0.61.4');
    // its own shop's page, for a CSRF token of its own session
    expect((await other.get('/console/m/kind-shop/shelf/product?id=oud-amber')).statusCode).toBe(200);
    expect((await other.get(page('oud-amber'))).statusCode).toBe(404);
    const res = await other.post(`${HOME}/shelf/kind`, { product: 'oud-amber', kind: 'mist' });
    expect(res.statusCode).toBe(404);
    const b = await signedIn(`staff@${SLUG}.example`, '10.0.61.5');
    expect((await b.get(page('oud-amber'))).body).toContain('data-kind="spray" data-kind-from="listing"');
  });
});
