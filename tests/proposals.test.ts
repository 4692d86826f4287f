import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spellingOf } from '../matching/listing.ts';
import { merchants, proposals } from '../schema/index.ts';
import { learnPerfumes, PROFILE_BATCH } from '../services/learning.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) =>
  app.inject({ method, url: `/api/admin${url}`, payload, headers: adminHeaders });

/** perfumes of our catalog with no profile of their own: recognised, never recommended until someone says what they smell of */
const OUD = { id: 'acqua-di-parma-oud-spice-edp', name: 'Acqua di Parma Oud & Spice Eau de Parfum 100ml' };
const AMEER = { id: 'lattafa-al-noble-ameer-edp', name: 'Lattafa Al Noble Ameer EDP 100ml' };
/** a perfume with a profile of its own, to be named as an original */
const ORIGINAL = 'dior-sauvage-edp';

interface View {
  merchant_product_id: string;
  quality: string | null;
  sillage_perfume_id: string | null;
  described_by_shops: number | null;
  to_recommend: string[] | null;
  inspired_by: { sillage_perfume_id: string; said_by: string } | null;
  answer: { notes: string[]; accords: string[]; inspired_by: string | null } | null;
  profile: { basis: string[]; accords: { name: string }[] } | null;
}
const view = async (slug: string) =>
  Object.fromEntries(
    ((await admin('GET', `/merchants/${slug}/products`)).json().products as View[]).map((p) => [
      p.merchant_product_id,
      p,
    ]),
  ) as Record<string, View>;
const shelf = (slug: string) =>
  admin('PUT', `/merchants/${slug}/products`, {
    products: [
      { merchant_product_id: 'oud', name: OUD.name, price: 900 },
      { merchant_product_id: 'ameer', name: AMEER.name, price: 150 },
    ],
  });
const answer = (slug: string, product: string, body: object) =>
  admin('PUT', `/merchants/${slug}/products/${product}/answer`, body);
const proposalOf = async (perfume: string) =>
  (
    (await admin('GET', '/learning/proposals?status=all')).json().proposals as {
      sillage_perfume_id: string;
      shops: number;
      facts: { item: string; shops: number; state: string; approved: boolean }[];
      why: string | null;
    }[]
  ).find((p) => p.sillage_perfume_id === perfume);

describe("a merchant's own answer (docs/learning.md)", () => {
  it('serves the merchant at once, survives its re-syncs, and is refused with a clear reason when wrong', async () => {
    const { key } = await createMerchantWithKey(app, { slug: 'ans-own' });
    expect((await shelf('ans-own')).statusCode).toBe(200);
    const before = (await view('ans-own')).oud as View;
    expect(before).toMatchObject({ quality: 'guessed', sillage_perfume_id: OUD.id });
    expect((await view('ans-own')).ameer).toMatchObject({
      quality: null,
      to_recommend: ['description', 'inspired_by'],
    });

    const res = await answer('ans-own', 'ameer', { notes: ['Oud', 'زعفران', 'rose'], accords: ['amber'] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      quality: 'described',
      to_recommend: null,
      answer: { notes: ['oud', 'saffron', 'rose'], accords: ['amber'], inspired_by: null },
      profile: { basis: ['answer'] },
    });
    // the shopper's quiz finds it now
    const score = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      headers: { origin: 'https://shop.example' },
      payload: { api_key: key, quiz: { families: ['oriental'] } },
    });
    expect(score.statusCode, score.body).toBe(200);
    const ids = (score.json().recommendations as { merchant_product_id: string }[]).map((r) => r.merchant_product_id);
    expect(ids).toContain('ameer');

    // a re-sync of the feed (which carries no answers) keeps it
    await shelf('ans-own');
    expect((await view('ans-own')).ameer).toMatchObject({
      quality: 'described',
      answer: { notes: ['oud', 'saffron', 'rose'] },
    });

    // wrong answers change nothing
    for (const [body, code] of [
      [{ notes: ['dragon breath'] }, 'invalid_answer'],
      [{ inspired_by: AMEER.id }, 'invalid_answer'],
      [{ inspired_by: 'no-such-perfume' }, 'invalid_answer'],
      [{ notes: Array(13).fill('oud') }, 'validation_failed'],
      [{ colour: 'red' }, 'unknown_field'],
    ] as const) {
      const bad = await answer('ans-own', 'ameer', body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(400);
      expect(bad.json().code).toBe(code);
    }
    expect((await answer('ans-own', 'nope', { notes: ['oud'] })).json().code).toBe('product_not_found');
    expect((await view('ans-own')).ameer?.answer?.notes).toEqual(['oud', 'saffron', 'rose']);

    // an answer naming nothing clears it
    const cleared = await answer('ans-own', 'ameer', {});
    expect(cleared.json()).toMatchObject({ quality: null, answer: null });
  });

  it("reaches every shop when a second merchant gives the same facts, as shops describe it; one merchant's word alone does not", async () => {
    for (const slug of ['ans-a', 'ans-b', 'ans-c']) {
      await createMerchantWithKey(app, { slug });
      await shelf(slug);
    }
    await answer('ans-a', 'ameer', { notes: ['oud', 'saffron', 'rose'], accords: ['amber'] });
    await app.learning.runDue();
    expect((await view('ans-c')).ameer?.quality).toBeNull();
    const waiting = await proposalOf(AMEER.id);
    expect(waiting?.facts.map((f) => [f.item, f.state])).toContainEqual(['note:oud', 'waiting']);

    // a second shop says much the same in its own words
    await answer('ans-b', 'ameer', { notes: ['عود', 'saffron', 'leather'], accords: ['amber', 'leather'] });
    await app.learning.runDue();
    const c = (await view('ans-c')).ameer as View;
    expect(c).toMatchObject({ quality: 'shops', described_by_shops: 2, profile: { basis: ['shops'] } });
    expect(c.profile?.accords.map((a) => a.name)).toEqual(expect.arrayContaining(['amber']));
    const agreed = await proposalOf(AMEER.id);
    const state = Object.fromEntries((agreed?.facts ?? []).map((f) => [f.item, f.state]));
    expect(state).toMatchObject({
      'note:oud': 'in_force',
      'note:saffron': 'in_force',
      'accord:amber': 'in_force',
      'note:rose': 'waiting',
      'note:leather': 'waiting',
    });
    // the shops that answered keep their own answers
    expect((await view('ans-a')).ameer).toMatchObject({ quality: 'shops' });

    // the operator rejects one agreed fact: the others still make a profile
    const rejected = await admin('POST', `/learning/proposals/${AMEER.id}/review`, {
      decision: 'reject',
      items: ['accord:amber'],
      why: 'Al Noble Ameer is not an amber',
    });
    expect(rejected.statusCode, rejected.body).toBe(200);
    expect(rejected.json()).toMatchObject({ why: 'Al Noble Ameer is not an amber' });
    await app.learning.runDue();
    const [row] = await app.db.select().from(proposals).where(eq(proposals.perfumeId, AMEER.id));
    expect(row?.inForce).toEqual(['note:oud', 'note:saffron']);

    // a merchant that does not learn keeps to itself
    await app.db.update(merchants).set({ learns: false }).where(eq(merchants.slug, 'ans-c'));
    await admin('PUT', '/merchants/ans-c/products', {
      products: [{ merchant_product_id: 'ameer', name: AMEER.name, price: 150 }],
    });
    expect((await view('ans-c')).ameer?.quality).toBeNull();
  });

  it("the operator's approval puts one merchant's original in force for every shop; the proposal goes with the merchant", async () => {
    for (const slug of ['orig-a', 'orig-c']) {
      await createMerchantWithKey(app, { slug });
      await shelf(slug);
    }
    const own = await answer('orig-a', 'oud', { inspired_by: ORIGINAL });
    expect(own.json()).toMatchObject({
      quality: 'inspired',
      inspired_by: { sillage_perfume_id: ORIGINAL, said_by: 'merchant' },
    });
    await app.learning.runDue();
    expect((await view('orig-c')).oud?.quality).toBe('guessed');

    const bad = await admin('POST', `/learning/proposals/${OUD.id}/review`, { decision: 'approve', why: ' ' });
    expect(bad.json().code).toBe('invalid_review');
    const unknown = await admin('POST', `/learning/proposals/${OUD.id}/review`, {
      decision: 'approve',
      items: ['note:oud'],
      why: 'checked',
    });
    expect(unknown.json().code).toBe('invalid_review');
    expect(
      (await admin('POST', '/learning/proposals/nothing-here/review', { decision: 'approve', why: 'x' })).json().code,
    ).toBe('proposal_not_found');

    const approved = await admin('POST', `/learning/proposals/${OUD.id}/review`, {
      decision: 'approve',
      why: 'the house says so on its page',
    });
    expect(approved.statusCode, approved.body).toBe(200);
    await app.learning.runDue();
    expect((await view('orig-c')).oud).toMatchObject({
      quality: 'inspired',
      inspired_by: { sillage_perfume_id: ORIGINAL, said_by: 'shops' },
    });

    // the merchant that said it is erased: its answer goes, and what it taught with it
    await app.db.delete(merchants).where(eq(merchants.slug, 'orig-a'));
    await app.learning.runDue();
    expect(await proposalOf(OUD.id)).toBeUndefined();
    expect((await view('orig-c')).oud?.quality).toBe('guessed');

    // so does a proposal still waiting, with nothing learnt from it yet
    await createMerchantWithKey(app, { slug: 'orig-d' });
    await shelf('orig-d');
    await answer('orig-d', 'oud', { notes: ['oud', 'cardamom'] });
    await app.learning.runDue();
    expect((await proposalOf(OUD.id))?.facts.map((f) => f.state)).toEqual(['waiting', 'waiting']);
    await app.db.delete(merchants).where(eq(merchants.slug, 'orig-d'));
    await app.learning.runDue();
    expect(await proposalOf(OUD.id)).toBeUndefined();
  });

  it('learns a burst of perfumes in statements bounded per batch, whatever how many merchants answered', async () => {
    const ids = Array.from({ length: PROFILE_BATCH * 2 + 1 }, (_, i) => `no-such-perfume-${i}`);
    const summary = await learnPerfumes(app.db, app.catalog.current(), ids);
    // three batches, each: descriptions, answers, pins, reviews, what was learnt before; nothing to write
    expect(summary.statements).toBe(3 * 5);
    expect(summary.perfumesChecked).toBe(ids.length);
  });
});

describe("a merchant's pin as a spelling every shop learns (docs/learning.md)", () => {
  const listingOf = (n: number) => ({
    merchant_product_id: 'x',
    name: `Royal Blend Reserve No ${n}`,
    house: 'Lattafa',
    price: 200,
  });
  const pin = (slug: string) => admin('PUT', `/merchants/${slug}/products/x/match`, { sillage_perfume_id: AMEER.id });
  const product = async (slug: string) =>
    (
      (await admin('GET', `/merchants/${slug}/products`)).json().products as (View & {
        matched_by: string | null;
        reason: string;
      })[]
    )[0];

  it('two shops pinning one listing to a perfume teach it to a third; one shop’s pin needs the operator, who can take it back', async () => {
    for (const slug of ['pin-1', 'pin-2', 'pin-3', 'pin-4', 'pin-5']) await createMerchantWithKey(app, { slug });
    for (const slug of ['pin-1', 'pin-2', 'pin-3'])
      await admin('PUT', `/merchants/${slug}/products`, { products: [listingOf(7)] });
    expect((await product('pin-3'))?.sillage_perfume_id).not.toBe(AMEER.id);
    await pin('pin-1');
    await app.learning.runDue();
    expect((await product('pin-3'))?.sillage_perfume_id).not.toBe(AMEER.id);
    await pin('pin-2');
    await app.learning.runDue();
    expect(await product('pin-3')).toMatchObject({
      sillage_perfume_id: AMEER.id,
      matched_by: 'spelling',
      reason: expect.stringContaining('matched by its spelling, pinned by 2 shops'),
    });
    // the spelling is listed with the perfume's proposal, never as a barcode
    const spelling = spellingOf(listingOf(7)) as string;
    const facts = (await proposalOf(AMEER.id))?.facts ?? [];
    expect(facts).toContainEqual(
      expect.objectContaining({ item: `spelling:${spelling.slice(2)}`, shops: 2, state: 'in_force' }),
    );
    expect((await admin('GET', '/learning/barcodes?status=key')).json().barcodes).not.toContainEqual(
      expect.objectContaining({ barcode: spelling }),
    );

    // one shop's pin: waiting, until the operator approves it
    for (const slug of ['pin-4', 'pin-5'])
      await admin('PUT', `/merchants/${slug}/products`, { products: [listingOf(8)] });
    await pin('pin-4');
    await app.learning.runDue();
    expect((await product('pin-5'))?.sillage_perfume_id).not.toBe(AMEER.id);
    const item = `spelling:${(spellingOf(listingOf(8)) as string).slice(2)}`;
    const approve = await admin('POST', `/learning/proposals/${AMEER.id}/review`, {
      decision: 'approve',
      items: [item],
      why: 'the shop’s own name for Al Noble Ameer',
    });
    expect(approve.statusCode, approve.body).toBe(200);
    await app.learning.runDue();
    expect(await product('pin-5')).toMatchObject({
      sillage_perfume_id: AMEER.id,
      matched_by: 'spelling',
      reason: expect.stringContaining('pinned by a shop, approved'),
    });
    await admin('POST', `/learning/proposals/${AMEER.id}/review`, {
      decision: 'reject',
      items: [item],
      why: 'wrong after all',
    });
    await app.learning.runDue();
    expect((await product('pin-5'))?.sillage_perfume_id).not.toBe(AMEER.id);
  });
});
