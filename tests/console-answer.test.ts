import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_NOTES, accordChoices, noteChoices } from '../console/answer-choices.ts';
import { t } from '../console/i18n.ts';
import { MAX_ANSWER_NOTES } from '../matching/answers.ts';
import { importCatalog } from '../services/catalog-import.ts';
import { findProductRow } from '../services/console-data.ts';
import { createConsoleUser } from '../services/console-users.ts';
import { productView, syncProducts } from '../services/products.ts';
import { ACCORDS } from '../vocabulary/index.ts';
import { noteIndex } from '../vocabulary/notes.ts';
import { Browser, PASSWORD } from './console-session.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/**
 * The shelf closes the loop: a product we recognise without a profile says on the shelf the one
 * thing that would make it recommendable, and its page lets the merchant say what it smells like
 * (the perfume it is inspired by, or its main notes and accords) in a few clicks; the answer serves
 * the shop at once. Identities without a profile are imported beside the shipped catalog.
 */
let app: TestApp;

const shop = (owner: string, gave: string) => ({
  source: `https://${owner}/products/dune`,
  kind: 'shop' as const,
  owner,
  gave,
  supports: ['identity', 'gender'],
});
const RECORDS = [
  {
    id: 'qans-dune-plain-edp',
    name: 'Dune Plain',
    name_ar: 'كثيب',
    house: 'Qans House',
    house_ar: 'دار الجواب',
    concentration: 'edp',
    gender: 'unisex',
    evidence: [shop('shop-one.example', 'Dune Plain EDP'), shop('shop-two.example', 'Qans Dune Plain EDP')],
  },
  {
    // our record names its original, which has no profile to lend: only its notes can help
    id: 'qans-dune-echo-edp',
    name: 'Dune Echo',
    house: 'Qans House',
    concentration: 'edp',
    gender: 'unisex',
    inspired_by: 'qans-dune-plain-edp',
    evidence: [
      shop('shop-one.example', 'Dune Echo EDP, inspired by Dune Plain'),
      { ...shop('shop-two.example', 'Qans Dune Echo EDP — بديل كثيب'), supports: ['identity', 'inspired_by'] },
    ],
  },
];
const FEED = [
  { merchant_product_id: 'plain', name: 'Dune Plain EDP 100ml', house: 'Qans House', price: 90 },
  { merchant_product_id: 'echo', name: 'Dune Echo EDP 100ml', house: 'Qans House', price: 80 },
  { merchant_product_id: 'mystery', name: 'Mystery Blend', house: 'Local Atelier', price: 70 },
];
const SLUG = 'answer-shop';
const HOME = `/console/m/${SLUG}`;
let key = '';
let merchantId = '';

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
  const made = await createMerchantWithKey(app, { slug: SLUG });
  key = made.key;
  merchantId = made.merchant.id;
  for (const [email, role] of [
    [`owner@${SLUG}.example`, 'owner'],
    [`staff@${SLUG}.example`, 'staff'],
  ] as const)
    await createConsoleUser(app.db, { email, password: PASSWORD, role, merchant: merchantId });
  await syncProducts(app.db, app.catalog.current(), merchantId, FEED);
});
afterAll(() => closeTestApp(app));

/** What the product's page says its profile rests on (data-quality). */
const qualityOn = (page: string) => /data-quality="([^"]*)"/.exec(page)?.[1];
const recommended = async () => {
  const r = await app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, quiz: { families: ['oriental', 'woody'] }, limit: 6 },
    headers: { origin: 'https://shop.example' },
  });
  expect(r.statusCode).toBe(200);
  return (r.json() as { recommendations: { merchant_product_id: string }[] }).recommendations.map(
    (x) => x.merchant_product_id,
  );
};
const stored = async (id: string) => {
  const row = await findProductRow(app.db, merchantId, id);
  return productView(row as NonNullable<typeof row>, app.catalog.current());
};
const signedIn = async (who: 'owner' | 'staff', ip: string) => {
  const b = new Browser(app, ip);
  await b.signIn(`${who}@${SLUG}.example`);
  return b;
};

describe('what the form offers', () => {
  it('every note it offers is the vocabulary’s, named in Arabic and English, and every accord', () => {
    const notes = noteIndex();
    for (const slug of ANSWER_NOTES) expect(notes.bySlug.get(slug), slug).toBeDefined();
    expect(new Set(ANSWER_NOTES).size).toBe(ANSWER_NOTES.length);
    const ar = noteChoices('ar');
    expect(ar.find((c) => c.slug === 'taif rose')?.label).toBe('ورد طائفي');
    expect(noteChoices('en').find((c) => c.slug === 'oud')?.label).toBe('Oud (Agarwood)');
    // a note an answer names beyond the list stays offered (ticked)
    expect(noteChoices('en', ['fig']).at(-1)).toEqual({ slug: 'fig', label: 'Fig' });
    expect(accordChoices('ar')).toHaveLength(ACCORDS.length);
  });
});

describe('the shelf’s fix loop', () => {
  it('lists a product recognised without a profile with the one thing that would make it recommendable', async () => {
    const b = await signedIn('staff', '10.0.47.1');
    const shelf = (await b.get(`${HOME}/shelf?filter=no_profile&lang=en`)).body;
    expect(shelf).toContain('data-product="plain"');
    expect(shelf).toContain(
      `<a href="${HOME}/shelf/product?id=plain#answer" data-fix="answer">${t('en', 'fixAnswer')}</a>`,
    );
    expect(shelf).toContain(
      `<a href="${HOME}/shelf/product?id=echo#notes" data-fix="notes">${t('en', 'fixNotes')}</a>`,
    );
    expect(shelf).not.toContain('data-product="mystery"');
    const all = (await b.get(`${HOME}/shelf?lang=ar`)).body;
    expect(all).toContain(
      `<a href="${HOME}/shelf/product?id=mystery#find" data-fix="match">${t('ar', 'fixMatch')}</a>`,
    );

    // the product's page: the form, what becomes of the answer, in both languages
    for (const lang of ['ar', 'en'] as const) {
      const page = (await b.get(`${HOME}/shelf/product?id=plain&lang=${lang}`)).body;
      expect(page).toContain('id="answer"');
      expect(page).toContain(t(lang, 'answerFate'));
      expect(page).toContain(t(lang, 'toRecommendAnswer'));
      expect(page).toContain('action="/console/m/answer-shop/shelf/answer"');
      expect(page).toContain('name="notes" value="taif rose"');
      expect(page).toContain('name="accords" value="oud"');
      expect(page).not.toContain('data-answer>');
    }
    expect((await b.get(`${HOME}/shelf/product?id=plain&lang=ar`)).body).toContain('ورد طائفي');
  });

  it('ticking its notes makes it recommendable at once; its page shows them ticked; clearing takes it back', async () => {
    const b = await signedIn('staff', '10.0.47.2');
    expect(await recommended()).not.toContain('plain');
    await b.get(`${HOME}/shelf/product?id=plain&lang=en`);
    const saved = await b.post(`${HOME}/shelf/answer`, {
      product: 'plain',
      notes: ['oud', 'saffron', 'amber'],
      accords: 'woody',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${HOME}/shelf/product?id=plain&done=answered#answer`);
    expect((await stored('plain')).quality).toBe('described');
    expect((await stored('plain')).answer).toEqual({
      notes: ['oud', 'saffron', 'amber'],
      accords: ['woody'],
      inspired_by: null,
    });
    expect(await recommended()).toContain('plain');

    const page = (await b.get(`${HOME}/shelf/product?id=plain&done=answered&lang=en`)).body;
    expect(page).toContain(`<p class="flash ok" role="status">${t('en', 'answerSaved')}</p>`);
    expect(qualityOn(page)).toBe('described');
    expect(page).toContain('name="notes" value="oud" checked');
    expect(page).toContain('name="accords" value="woody" checked');
    expect(page).not.toContain('name="notes" value="rose" checked');
    expect(page).toContain('data-answer>');
    expect(page).toContain(t('en', 'answerClear'));
    // no longer on the list of products without a profile
    expect((await b.get(`${HOME}/shelf?filter=no_profile`)).body).not.toContain('data-product="plain"');

    const cleared = await b.post(`${HOME}/shelf/answer`, { product: 'plain' });
    expect(cleared.statusCode).toBe(303);
    expect(cleared.headers.location).toContain('done=cleared');
    const after = await stored('plain');
    expect(after.answer).toBeNull();
    expect(after.quality).toBeNull();
    expect(await recommended()).not.toContain('plain');
    const back = (await b.get(`${HOME}/shelf/product?id=plain&done=cleared&lang=ar`)).body;
    expect(back).toContain(t('ar', 'answerCleared'));
    expect(back).not.toContain('data-answer>');
  });

  it('naming the perfume it is inspired by, found by a search, gives it that perfume’s profile', async () => {
    const b = await signedIn('owner', '10.0.47.3');
    const found = (await b.get(`${HOME}/shelf/product?id=plain&q=aventus&for=inspired&lang=en`)).body;
    expect(found).toContain('data-inspired-results');
    expect(found).toMatch(/name="inspired_by" value="creed-aventus-edp"><button type="submit"/);
    // the search of the pin section is not shown twice
    expect(found).not.toContain(`aria-label="${t('en', 'pin')}: Aventus`);
    const saved = await b.post(`${HOME}/shelf/answer`, { product: 'plain', inspired_by: 'creed-aventus-edp' });
    expect(saved.statusCode).toBe(303);
    const v = await stored('plain');
    expect(v.quality).toBe('inspired');
    expect(v.inspired_by).toMatchObject({ sillage_perfume_id: 'creed-aventus-edp', said_by: 'merchant' });
    const page = (await b.get(`${HOME}/shelf/product?id=plain&lang=ar`)).body;
    expect(qualityOn(page)).toBe('inspired');
    expect(page).toContain('data-answer>');
    // ticking notes keeps the original named
    expect(page).toContain('name="inspired_by" value="creed-aventus-edp">');
    await b.post(`${HOME}/shelf/answer`, { product: 'plain' });
    expect((await stored('plain')).quality).toBeNull();
  });

  it('refuses a perfume without a profile, and too many notes, in words, changing nothing', async () => {
    const b = await signedIn('owner', '10.0.47.4');
    const found = (
      await b.get(`${HOME}/shelf/product?id=echo&q=${encodeURIComponent('Dune Plain')}&for=inspired&lang=en`)
    ).body;
    expect(found).toContain(t('en', 'answerNoProfileToLend'));
    expect(found).not.toMatch(/name="inspired_by" value="qans-dune-plain-edp"/);

    const noProfile = await b.post(`${HOME}/shelf/answer?lang=en`, {
      product: 'echo',
      inspired_by: 'qans-dune-plain-edp',
    });
    expect(noProfile.statusCode).toBe(400);
    expect(noProfile.body).toContain(t('en', 'answerNoProfile'));
    expect(noProfile.body).toContain('role="alert"');
    // the language link leads to the product's page, not to the form's address
    expect(noProfile.body).toContain(`href="${HOME}/shelf/product?id=echo&amp;lang=ar"`);

    const tooMany = ANSWER_NOTES.slice(0, MAX_ANSWER_NOTES + 1);
    const refused = await b.post(`${HOME}/shelf/answer`, { product: 'echo', notes: [...tooMany] });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain(t('en', 'answerTooManyNotes', { m: MAX_ANSWER_NOTES + 1, n: MAX_ANSWER_NOTES }));
    // the boxes as they were ticked, to untick some
    expect(refused.body).toContain(`name="notes" value="${tooMany.at(-1)}" checked`);
    const unknown = await b.post(`${HOME}/shelf/answer`, { product: 'echo', notes: 'not a real note at all' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain(t('en', 'answerUnknownNote', { x: 'not a real note at all' }));
    expect((await stored('echo')).answer).toBeNull();

    // more than the form offers is refused by its schema; a script gets JSON
    const flood = await b.post(`${HOME}/shelf/answer`, {
      product: 'echo',
      notes: Array.from({ length: 200 }, (_, i) => `n${i}`),
    });
    expect(flood.statusCode).toBe(400);
    expect(flood.body).not.toMatch(/at .*\.ts:\d+/);
    const script = await app.inject({
      method: 'POST',
      url: `${HOME}/shelf/answer`,
      payload: new URLSearchParams({ _csrf: b.csrf, product: 'echo', inspired_by: 'qans-dune-plain-edp' }).toString(),
      headers: {
        cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': 'application/x-www-form-urlencoded',
      },
      remoteAddress: '10.0.47.4',
    });
    expect(script.statusCode).toBe(400);
    expect(script.json()).toMatchObject({ code: 'invalid_answer' });

    // the echo's notes fix: ticked, it is recommendable
    const ok = await b.post(`${HOME}/shelf/answer`, { product: 'echo', notes: ['rose', 'oud'] });
    expect(ok.statusCode).toBe(303);
    expect((await stored('echo')).quality).toBe('described');
  });

  it('refuses an answer without the CSRF token, and another merchant’s product is not found', async () => {
    const b = await signedIn('owner', '10.0.47.5');
    await b.get(`${HOME}/shelf`);
    const res = await b.post(`${HOME}/shelf/answer`, { product: 'mystery', notes: ['oud', 'rose'] }, { csrf: null });
    expect(res.statusCode).toBe(403);
    expect((await stored('mystery')).answer).toBeNull();
    const missing = await b.post(`${HOME}/shelf/answer`, { product: 'nothing-here', notes: ['oud'] });
    expect(missing.statusCode).toBe(404);
    // a product not recognised takes an answer too: a profile from its notes (partial)
    const partial = await b.post(`${HOME}/shelf/answer`, { product: 'mystery', notes: ['oud', 'rose'] });
    expect(partial.statusCode).toBe(303);
    expect((await stored('mystery')).quality).toBe('partial');
  });
});
