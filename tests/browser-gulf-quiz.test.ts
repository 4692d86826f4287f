/**
 * The Gulf shopper's questions in the widget, in a real browser (Debian's Chromium through
 * playwright-core, as tests/browser.test.ts drives the widget), against a small shop of its own:
 * sprays, a perfume oil, bakhoor, a gift set and an alcohol-free spray (docs/gulf-shelf.md "In the
 * widget").
 *
 * - the gift path, in Arabic (right to left): the questions and the results speak of him, the
 *   occasions are the region's, the answers given (and only those) are sent, quiz_completed says
 *   it was a gift, the layering section shows a base then a spray in their order of use, each card
 *   says its kind when not a spray, alcohol-free, and how it lasts in heat as an estimate;
 * - kinds, alcohol-free and a budget, in English: the bands in the shop's currency, the answers
 *   sent, only what was asked for shown with its kind and alcohol-free;
 * - the alternatives to a loved perfume: inspired-by first, and the price difference.
 *
 * Skipped with a printed line where no Chromium can be had.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

const require = createRequire(import.meta.url);

if (!CHROMIUM) {
  process.stdout.write(
    '\nGulf quiz browser tests skipped: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n',
  );
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

const WAIT = { timeout: 15_000 };
const url = (id: string) => `https://shop.example/p/${id}`;
const SHELF = [
  { merchant_product_id: 'khamrah', name: 'لطافة خمرة او دو بارفان 100 مل', house: 'Lattafa', price: 145 },
  { merchant_product_id: 'black-aoud', name: 'Black Aoud EDP', house: 'Montale', price: 540 },
  { merchant_product_id: 'shaghaf', name: 'Shaghaf Oud 75ml', house: 'Swiss Arabian', price: 260 },
  {
    merchant_product_id: 'dehn',
    name: 'دهن عود ملكي 3 مل',
    house: 'Local Atelier',
    price: 450,
    accords: ['oud', 'woody', 'amber'],
  },
  {
    merchant_product_id: 'bakhoor',
    name: 'بخور معمول العود 50 جرام',
    house: 'Local Atelier',
    price: 240,
    accords: ['oud', 'amber', 'incense'],
  },
  {
    merchant_product_id: 'set',
    name: 'طقم هدية عود وعنبر 3 × 50 مل',
    house: 'Local Atelier',
    price: 390,
    accords: ['oud', 'amber'],
  },
  {
    merchant_product_id: 'af-spray',
    name: 'Oud Amber Spray 100ml alcohol free',
    house: 'Local Atelier',
    price: 180,
    accords: ['oud', 'amber'],
  },
].map((p) => ({ ...p, product_url: url(p.merchant_product_id) }));

interface Rec {
  merchant_product_id: string;
  name: string;
  product_kind: string;
  alcohol_free: boolean;
  product_url: string | null;
  heat?: { lasting: string; reasons: string[] };
}
interface ScoreBody {
  recommendations: Rec[];
  layering?: { base: Rec; top: Rec; steps: { merchant_product_id: string; how: string }[] }[];
  alternatives?: unknown[];
  [k: string]: unknown;
}

describe.skipIf(!CHROMIUM)("the Gulf shopper's questions in the widget, in Chromium", () => {
  let app: TestApp;
  let browser: Browser;
  let base: string;
  let key: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ PORT: String(port), PUBLIC_BASE_URL: base, REDIS_URL: undefined });
    await app.listen({ port, host: '127.0.0.1' });
    const m = await createMerchantWithKey(app, { mode: 'test', origins: [base] });
    key = m.key;
    const res = await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${m.merchant.id}/products`,
      payload: { products: SHELF },
      headers: adminHeaders,
    });
    expect(res.statusCode).toBe(200);
    browser = await launchChromium(['--disable-quic', '--disable-component-update', '--disable-sync']);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeTestApp(app);
  });

  /**
   * The shop's page with the quiz inline, failing on any uncaught error; the score's request and
   * answer and the events sent are kept, and the answer can be changed on its way (`edit`).
   */
  async function shop(lang: 'ar' | 'en', edit?: (body: ScoreBody) => void) {
    const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const sent: { quiz?: Record<string, unknown>; answer?: ScoreBody } = {};
    const events: { type: string; data?: Record<string, unknown> }[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/widget/event')) {
        const b = JSON.parse(r.postData() ?? '{}');
        events.push(...(b.events ?? [b]));
      }
    });
    await page.route('**/api/widget/score', async (route: Route) => {
      sent.quiz = JSON.parse(route.request().postData() ?? '{}').quiz;
      const real = await route.fetch();
      const body = (await real.json()) as ScoreBody;
      edit?.(body);
      sent.answer = body;
      await route.fulfill({ response: real, json: body });
    });
    await page.route(`${base}/shop/quiz`, (route: Route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"><body>
          <sillage-quiz key="${key}" locale="${lang}"></sillage-quiz>
          <script src="/widget/v1/sillage.js" data-mount="none" async></script></body></html>`,
      }),
    );
    await page.goto(`${base}/shop/quiz`);
    await page.locator('sillage-quiz .panel').waitFor(WAIT);
    await page.locator('sillage-quiz .panel .primary').click(); // start
    return { page, context, errors, sent, events };
  }

  const heading = (page: Page) => page.locator('sillage-quiz .body h3').first().textContent();
  const pick = async (page: Page, labels: string[]) => {
    for (const l of labels) await page.locator('sillage-quiz .chip').getByText(l, { exact: true }).click();
  };
  const next = (page: Page) => page.locator('sillage-quiz .actions .primary').click();
  /** axe on the widget as it stands: no violation */
  const axe = async (page: Page) => {
    await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
    const r = (await page.evaluate(
      "axe.run(document.querySelector('sillage-quiz'), { resultTypes: ['violations'] })",
    )) as { violations: { id: string; nodes: { target: unknown }[] }[] };
    return r.violations.map((v) => `${v.id} ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  };
  const cardOf = (page: Page, id: string) =>
    page
      .locator('sillage-quiz .cards')
      .first()
      .locator('.card', { has: page.locator(`a[href="${url(id)}"]`) });

  it('the gift path, in Arabic: questions and results speak of him, the region’s occasions, layering base then spray, kind, alcohol-free and heat as an estimate', async () => {
    const { page, context, errors, sent, events } = await shop('ar');
    expect(await page.locator('sillage-quiz .root').getAttribute('dir')).toBe('rtl');
    expect(await heading(page)).toBe('لمن هذا العطر؟');
    await pick(page, ['هدية له']);
    await next(page);
    // the following questions speak of the one the gift is for
    expect(await heading(page)).toBe('ما العطور التي يحبها؟');
    await next(page);
    expect(await heading(page)).toBe('ماذا يحب؟');
    await pick(page, ['عود', 'عنبري']);
    await next(page);
    expect(await heading(page)).toBe('ما النفحات التي يعشقها؟');
    await next(page);
    expect(await heading(page)).toBe('ما النفحات التي يتجنبها؟');
    await next(page);
    await next(page); // any season
    // a gift's occasions: the region's set, from the vocabulary's labels
    expect(await heading(page)).toBe('لأي مناسبة الهدية؟');
    expect(await page.locator('sillage-quiz .chip span').allTextContents()).toEqual([
      'أي مناسبة',
      'الاستخدام اليومي',
      'العمل',
      'السهرات',
      'المجالس والتجمعات',
      'الأعراس',
      'العيد',
      'ليالي رمضان',
      'السفر',
    ]);
    await pick(page, ['ليالي رمضان']);
    await next(page);
    await next(page); // any kind
    await next(page); // any price
    expect(await heading(page)).toBe('ما الذي يهمك أيضاً؟');
    await pick(page, ['يدوم في الحر', 'أطبّق العطور معاً']);
    await next(page);
    await page.locator('sillage-quiz .cards .card').first().waitFor(WAIT);

    // what was sent: the answers given, and only those
    expect(sent.quiz).toEqual({
      families: ['oud', 'amber'],
      accord_ratings: {},
      occasion: 'ramadan-nights',
      gender: 'men',
      gift: true,
      lasts_in_heat: true,
      layering: true,
    });
    expect(await heading(page)).toBe('اختيارات له');

    // layering: the base first (bakhoor's smoke or an oil on the skin), then the spray over it, each linked
    const answer = sent.answer as ScoreBody;
    const pair = answer.layering?.[0];
    expect(pair).toBeDefined();
    if (!pair) return;
    expect(['oil', 'bakhoor', 'oud_wood']).toContain(pair.base.product_kind);
    expect(pair.top.product_kind).toBe('spray');
    const section = page.locator('sillage-quiz section.layering');
    expect(await section.locator('h3').textContent()).toBe('طبّقها معاً');
    const steps = section.locator('ol').first().locator('li');
    expect(await steps.count()).toBe(2);
    const first = pair.base.product_kind === 'oil' ? 'ضع الدهن على بشرتك أولاً:' : 'بخّر ملابسك به أولاً:';
    expect(await steps.nth(0).textContent()).toBe(`${first} ${pair.base.name}`);
    expect(await steps.nth(0).locator('a').getAttribute('href')).toBe(pair.base.product_url);
    expect(await steps.nth(1).textContent()).toBe(`ثم رشّ فوقه: ${pair.top.name}`);
    expect(await steps.nth(1).locator('a').getAttribute('href')).toBe(pair.top.product_url);

    // each card: its kind when not a spray, alcohol-free, and heat said as an estimate
    const tags = async (id: string) => cardOf(page, id).locator('.tags .tag').allTextContents();
    const ids = answer.recommendations.map((r) => r.merchant_product_id);
    expect(ids).toEqual(expect.arrayContaining(['bakhoor', 'dehn', 'set', 'shaghaf']));
    expect(await tags('bakhoor')).toEqual(expect.arrayContaining(['بخور', 'بدون كحول']));
    expect(await tags('dehn')).toEqual(expect.arrayContaining(['دهن عطري', 'بدون كحول']));
    expect(await tags('set')).toContain('طقم هدية');
    const sprayTags = await tags('shaghaf');
    expect(sprayTags).not.toContain('بدون كحول');
    expect(sprayTags.some((t) => /عطور|بخاخ/.test(t))).toBe(false);
    const heat = { long: 'يدوم طويلاً في الحر — تقدير', moderate: 'يدوم باعتدال في الحر — تقدير' } as Record<
      string,
      string
    >;
    for (const r of answer.recommendations) {
      expect(r.heat).toBeDefined();
      // how it lasts, said as an estimate, and why in a few words
      const line = (await cardOf(page, r.merchant_product_id).locator('.heat').textContent()) ?? '';
      expect(line.startsWith(`${heat[r.heat?.lasting ?? '']}: `), line).toBe(true);
      expect(line.split(': ')[1]?.split('، ')).toHaveLength(r.heat?.reasons.length ?? 0);
    }
    const dehn = answer.recommendations.find((r) => r.merchant_product_id === 'dehn');
    expect(dehn).toBeDefined();
    expect(await cardOf(page, 'dehn').locator('.heat').textContent()).toContain('دهن على البشرة');

    expect(await axe(page)).toEqual([]);

    // the console counts the gift quizzes
    await expect
      .poll(() => events.find((e) => e.type === 'quiz_completed')?.data, { timeout: 10_000 })
      .toMatchObject({ gift: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('kinds, alcohol-free and a budget, in English: bands in SAR, the answers sent, only what was asked for with its kind', async () => {
    const { page, context, errors, sent, events } = await shop('en');
    await next(page); // for whom: no preference
    expect(await heading(page)).toBe('Which perfumes do you love?');
    await next(page);
    await pick(page, ['Oud']);
    for (let i = 0; i < 5; i++) await next(page); // notes, season, occasion: skipped
    expect(await heading(page)).toBe('What kind?');
    await pick(page, ['Perfume oils', 'Bakhoor and incense', 'Alcohol-free only']);
    await next(page);
    expect(await heading(page)).toBe('What is your budget?');
    expect(await axe(page)).toEqual([]);
    // the bands, in the shop's currency (no currency attribute: SAR)
    const bands = await page.locator('sillage-quiz .chip span').allTextContents();
    expect(bands.map((b) => b.replace(/\s/g, ' '))).toEqual([
      'Any price',
      'Up to SAR 200',
      'SAR 200 – SAR 500',
      'SAR 500 and over',
    ]);
    await pick(page, ['SAR 200 – SAR 500']);
    await next(page);
    await next(page); // no toggle
    await page.locator('sillage-quiz .cards .card').first().waitFor(WAIT);
    expect(sent.quiz).toEqual({
      families: ['oud'],
      accord_ratings: {},
      kinds: ['oil', 'bakhoor'],
      alcohol_free: true,
      budget: { min: 200, max: 500 },
    });
    expect(await heading(page)).toBe('Perfumes for your taste');
    const ids = (sent.answer as ScoreBody).recommendations.map((r) => r.merchant_product_id).sort();
    expect(ids).toEqual(['bakhoor', 'dehn']);
    expect(await cardOf(page, 'dehn').locator('.tag').allTextContents()).toEqual(
      expect.arrayContaining(['Perfume oil', 'Alcohol-free']),
    );
    expect(await cardOf(page, 'bakhoor').locator('.tag').allTextContents()).toEqual(
      expect.arrayContaining(['Bakhoor', 'Alcohol-free']),
    );
    // heat was not asked: no estimate; no layering asked: no section
    expect(await page.locator('sillage-quiz .heat').count()).toBe(0);
    expect(await page.locator('sillage-quiz section.layering').count()).toBe(0);
    await expect.poll(() => events.some((e) => e.type === 'quiz_completed'), { timeout: 10_000 }).toBe(true);
    expect(events.find((e) => e.type === 'quiz_completed')?.data).not.toHaveProperty('gift');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('the alternatives to a loved perfume: inspired-by first, and the price difference when known', async () => {
    const { page, context, errors } = await shop('ar', (body) => {
      const [a, b, c] = body.recommendations;
      body.alternatives = [
        {
          to: { sillage_perfume_id: 'lattafa-khamrah-edp', name: 'خمرة', house: 'لطافة' },
          shop_price: 145,
          products: [
            { ...a, declared_inspired_by: true, price_difference: -120 },
            { ...b, declared_inspired_by: false, price_difference: 35 },
            { ...c, declared_inspired_by: false, price_difference: null },
          ],
        },
      ];
      // the same product as a close alternative for less: shown among the alternatives only
      body.also_explore = [
        {
          ...b,
          reason: 'for_less',
          similar_to: {
            sillage_perfume_id: 'lattafa-khamrah-edp',
            name: 'Khamrah',
            house: 'Lattafa',
            relation: 'similar',
            similarity: 80,
            shared_accords: [],
          },
        },
      ];
    });
    await next(page);
    await next(page);
    await pick(page, ['عود']);
    for (let i = 0; i < 8; i++) await next(page);
    const section = page.locator('sillage-quiz section', { has: page.locator('h3', { hasText: 'بدائل لعطر خمرة' }) });
    await section.waitFor(WAIT);
    const cards = section.locator('.card');
    expect(await cards.count()).toBe(3);
    expect(await cards.nth(0).locator('.like').textContent()).toBe('مستوحى من خمرة');
    expect(await cards.nth(0).locator('.price').textContent()).toMatch(/ · أرخص بـ \S?١٢٠\s?ر\.س\./);
    expect(await cards.nth(1).locator('.like').count()).toBe(0);
    expect(await cards.nth(1).locator('.price').textContent()).toMatch(/ · أغلى بـ \S?٣٥\s?ر\.س\./);
    expect(await cards.nth(2).locator('.price').textContent()).not.toContain('·');
    // no "for less" group repeats it
    expect(await page.locator('sillage-quiz h3', { hasText: 'بسعر أقل' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
