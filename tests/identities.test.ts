import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../db/client.ts';
import { IDENTITY_BATCH, learnIdentities, MAX_IDENTITY_WITNESSES } from '../services/identities.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) =>
  app.inject({ method, url: `/api/admin${url}`, payload, headers: adminHeaders });

/** a line of a house we know that the catalog does not hold */
const TITLE = 'Lattafa Qamar Al Zaman Eau de Parfum 100ml';

interface IdentityView {
  id: string;
  house: string;
  name: string;
  shops: number;
  status: string;
  sillage_perfume_id: string | null;
  evidence: { url: string; shop: string; title: string }[];
}
const identities = async (status = 'all') =>
  (await admin('GET', `/learning/identities?status=${status}`)).json().identities as IdentityView[];

describe('new perfumes proposed by shelves, reviewed by the operator (docs/learning.md)', () => {
  it('two shops propose it; the operator approves; every shelf is matched to the new record', async () => {
    for (const slug of ['id-a1', 'id-a2', 'id-b', 'id-quiet']) await createMerchantWithKey(app, { slug });
    expect((await admin('PATCH', '/merchants/id-quiet', { teaches: false })).statusCode).toBe(200);
    const listing = (host: string, name = TITLE) => ({
      merchant_product_id: 'q',
      name,
      price: 120,
      product_url: `https://${host}/products/qamar`,
    });
    // a shop that does not teach is never counted: with it and one teaching shop, nothing is proposed
    await admin('PUT', '/merchants/id-quiet/products', { products: [listing('quiet.example')] });
    await admin('PUT', '/merchants/id-a1/products', { products: [listing('a1.example')] });
    await app.learning.runDue();
    expect(await identities()).toEqual([]);

    // its own wording: the house in its field, the concentration spelt out
    await admin('PUT', '/merchants/id-a2/products', {
      products: [{ ...listing('a2.example', 'QAMAR AL ZAMAN - Eau De Parfum 100 ML'), house: 'Lattafa' }],
    });
    await admin('PUT', '/merchants/id-b/products', {
      products: [{ merchant_product_id: 'b', name: 'Qamar Al Zaman Lattafa EDP', price: 99 }],
    });
    await app.learning.runDue();
    const [proposal, ...more] = await identities('waiting');
    expect(more).toEqual([]);
    expect(proposal).toMatchObject({ house: 'Lattafa', name: 'Qamar Al Zaman', shops: 2, status: 'waiting' });
    expect(proposal?.evidence.map((e) => e.url).sort()).toEqual([
      'https://a1.example/products/qamar',
      'https://a2.example/products/qamar',
    ]);
    // merchants are counted, never named
    expect(JSON.stringify(proposal)).not.toMatch(/id-a1|id-a2|merchant/);

    const refused = await admin('POST', `/learning/identities/${proposal?.id}/review`, {
      decision: 'approve',
      why: 'two shops',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'invalid_review' });
    expect(refused.json().error).toMatch(/no gender/);

    const approved = await admin('POST', `/learning/identities/${proposal?.id}/review`, {
      decision: 'approve',
      why: 'two shops list the bottle; the house lists the line',
      gender: 'unisex',
    });
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved', sillage_perfume_id: 'lattafa-qamar-al-zaman-edp' });
    await app.jobs.drain();
    // the record: an identity, its listings its evidence, no profile
    const record = await admin('GET', '/perfumes/lattafa-qamar-al-zaman-edp');
    expect(record.statusCode).toBe(200);
    expect(record.json()).toMatchObject({ name: 'Qamar Al Zaman', house: 'Lattafa', concentration: 'edp' });
    // every shop's listing matched to it, the one that taught nothing included
    for (const slug of ['id-a1', 'id-a2', 'id-b', 'id-quiet']) {
      const [p] = (await admin('GET', `/merchants/${slug}/products`)).json().products;
      expect(p, slug).toMatchObject({ status: 'matched', sillage_perfume_id: 'lattafa-qamar-al-zaman-edp' });
    }
    const again = await admin('POST', `/learning/identities/${proposal?.id}/review`, { decision: 'reject', why: 'no' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'already_reviewed' });
  });

  it('a rejected proposal stays rejected with why; one whose shops leave is withdrawn; the catalog never gets a record twice', async () => {
    for (const slug of ['id-r1', 'id-r2']) await createMerchantWithKey(app, { slug });
    const two = (name: string, host: string) => ({
      merchant_product_id: name,
      name,
      price: 80,
      product_url: `https://${host}/r`,
    });
    const sync = (slug: string, products: object[]) =>
      admin('PUT', `/merchants/${slug}/products`, { products, replace: true });
    await sync('id-r1', [
      two('Rasasi Zubaidah Noor EDP 100ml', 'r1.example'),
      two('Lattafa Sheikh Al Dhahab EDP', 'r1.example'),
    ]);
    await sync('id-r2', [
      two('Rasasi Zubaidah Noor EDP 100ml', 'r2.example'),
      two('Lattafa Sheikh Al Dhahab EDP', 'r2.example'),
    ]);
    await app.learning.runDue();
    const find = async (name: string) => (await identities()).find((i) => i.name === name);
    const noor = await find('Zubaidah Noor');
    const dhahab = await find('Sheikh Al Dhahab');
    expect([noor?.status, dhahab?.status]).toEqual(['waiting', 'waiting']);

    const rejected = await admin('POST', `/learning/identities/${noor?.id}/review`, {
      decision: 'reject',
      why: 'a shop name, not a line',
    });
    expect(rejected.json()).toMatchObject({ status: 'rejected', why: 'a shop name, not a line' });
    await app.learning.runDue();
    expect((await identities('waiting')).map((i) => i.name)).not.toContain('Zubaidah Noor');
    expect((await identities('rejected')).map((i) => i.name)).toContain('Zubaidah Noor');

    // one of the two shops stops selling it: the waiting proposal goes; the rejected one keeps its review
    await sync('id-r2', [two('Rasasi Zubaidah Noor EDP 100ml', 'r2.example')]);
    await app.learning.runDue();
    expect(await find('Sheikh Al Dhahab')).toBeUndefined();
    expect(await find('Zubaidah Noor')).toMatchObject({ status: 'rejected', shops: 2 });
    await sync('id-r1', []);
    await app.learning.runDue();
    expect(await find('Zubaidah Noor')).toMatchObject({ status: 'rejected', shops: 1 });
    expect((await find('Zubaidah Noor'))?.evidence.map((e) => e.url)).toEqual(['https://r2.example/r']);

    expect(
      (await admin('POST', '/learning/identities/nope/review', { decision: 'reject', why: 'x' })).json(),
    ).toMatchObject({
      code: 'proposal_not_found',
    });
    const blank = await admin('POST', `/learning/identities/${noor?.id}/review`, { decision: 'reject', why: '  ' });
    expect(blank.json()).toMatchObject({ code: 'invalid_review' });
    expect((await admin('GET', '/learning/identities?status=maybe')).statusCode).toBe(400);
  });

  it('an approval the catalog holds already is refused with 409, nothing added', async () => {
    for (const slug of ['id-k1', 'id-k2']) await createMerchantWithKey(app, { slug });
    // a spelling the matcher does not match, of a perfume the catalog holds (Khamrah, EDP)
    const odd = (host: string) => ({
      merchant_product_id: 'k',
      name: 'Lattafa Khamrah Khamrah Zzz EDP',
      price: 80,
      product_url: `https://${host}/k`,
    });
    await admin('PUT', '/merchants/id-k1/products', { products: [odd('k1.example')] });
    await admin('PUT', '/merchants/id-k2/products', { products: [odd('k2.example')] });
    await app.learning.runDue();
    const p = (await identities('waiting')).find((i) => i.name.startsWith('Khamrah'));
    expect(p).toMatchObject({ house: 'Lattafa', shops: 2 });
    const before = app.catalog.current().version;
    const res = await admin('POST', `/learning/identities/${p?.id}/review`, {
      decision: 'approve',
      why: 'x',
      name: 'Khamrah',
      gender: 'unisex',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'identity_exists' });
    expect((await app.catalog.refresh()).version).toBe(before);
  });
});

describe('what an erased shop proposed goes (docs/learning.md)', () => {
  it('a proposal two shops made is withdrawn once one is erased; no approved record keeps counting it', async () => {
    for (const slug of ['id-e1', 'id-e2']) await createMerchantWithKey(app, { slug });
    const listing = (host: string) => ({
      merchant_product_id: 'e',
      name: 'Rasasi Layali Al Qamar EDP',
      price: 70,
      product_url: `https://${host}/e`,
    });
    await admin('PUT', '/merchants/id-e1/products', { products: [listing('e1.example')] });
    await admin('PUT', '/merchants/id-e2/products', { products: [listing('e2.example')] });
    await app.learning.runDue();
    expect((await identities('waiting')).map((i) => i.name)).toContain('Layali Al Qamar');
    const erase = await app.inject({
      method: 'DELETE',
      url: '/api/admin/merchants/id-e2',
      payload: { confirm: 'id-e2' },
      headers: adminHeaders,
    });
    expect(erase.statusCode).toBe(202);
    await app.jobs.drain();
    await app.learning.runDue();
    expect((await identities()).map((i) => i.name)).not.toContain('Layali Al Qamar');
    // no proposal counts a merchant that is gone
    const rows = rowsOf<{ n: number }>(
      await app.db.execute(sql`select count(*)::int as n from identity_proposals p where exists (select 1 from unnest(p.merchant_ids) m
        where not exists (select 1 from merchants x where x.id = m))`),
    );
    expect(Number(rows[0]?.n)).toBe(0);
  });
});

describe('the work of learning identities is bounded by the merchant’s own unknown listings', () => {
  it('one statement for its spellings, then at most four a batch of IDENTITY_BATCH, and MAX_IDENTITY_WITNESSES listings a spelling', async () => {
    const shops = await Promise.all(['id-w1', 'id-w2', 'id-w3'].map((slug) => createMerchantWithKey(app, { slug })));
    const shelf = (host: string) =>
      Array.from({ length: 130 }, (_, i) => ({
        merchant_product_id: `w${i}`,
        name: `Lattafa Zafran Line ${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))} EDP`,
        price: 50,
        product_url: `https://${host}/w${i}`,
      }));
    for (const [i, s] of shops.entries())
      await admin('PUT', `/merchants/${s.merchant.slug}/products`, { products: shelf(`w${i}.example`) });
    const run = await learnIdentities(app.db, app.catalog.current(), shops[0]?.merchant.id as string);
    expect(run.spellings).toBe(130);
    const batches = Math.ceil(130 / IDENTITY_BATCH);
    expect(run.statements).toBeLessThanOrEqual(1 + 3 * batches + 1);
    expect(run.listings).toBeLessThanOrEqual(130 * MAX_IDENTITY_WITNESSES);
    expect(run.listings).toBe(130 * 3);
    expect(run.proposed).toBe(130);
  });
});
