/**
 * The merchant console in a real browser (Debian's Chromium through playwright-core, as
 * tests/browser.test.ts drives the widget): signed in with the form, driven by clicks and typing,
 * its CSP left on. Every console page is checked with axe-core in Arabic and English, on a phone's
 * width, from the keyboard, and for requests to any origin but the service's own.
 * (tests/console.test.ts covers the same pages through HTTP alone.) Skipped with a printed line
 * where no Chromium can be had.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, type Lang, t } from '../console/i18n.ts';
import { createConsoleUser } from '../services/console-users.ts';
import { syncProducts } from '../services/products.ts';
import {
  ADMIN_TOKEN,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  scoredSession,
  type TestApp,
} from './helper.ts';

const require = createRequire(import.meta.url);

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);

if (!CHROMIUM) {
  process.stdout.write(
    '\nconsole browser tests skipped: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n',
  );
}

/** the page's own objects, inside page.evaluate (this file is type-checked without the DOM library) */
declare const document: {
  scrollingElement: { scrollWidth: number };
  activeElement: { id: string; tagName: string; className: string; getAttribute(n: string): string | null } | null;
};
declare const window: { innerWidth: number };

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

const PASSWORD = 'correct horse battery';
const SHOP_ORIGIN = 'https://shop.example';
/** generous: the machine running these may be busy */
const WAIT = { timeout: 15_000 };

describe.skipIf(!CHROMIUM)('the merchant console in Chromium', () => {
  let app: TestApp;
  let browser: Browser;
  let base: string;
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ PORT: String(port), PUBLIC_BASE_URL: base });
    await app.listen({ port, host: '127.0.0.1' });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      // no sandbox as root in CI; no background traffic on a machine without internet
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeTestApp(app);
  });

  /** A merchant with a live key for SHOP_ORIGIN and an owner who signs in with PASSWORD. */
  async function shop(slug: string) {
    const { merchant, key } = await createMerchantWithKey(app, { slug, origins: [SHOP_ORIGIN] });
    const email = `owner@${slug}.example`;
    await createConsoleUser(app.db, { email, password: PASSWORD, role: 'owner', merchant: merchant.id });
    return { merchant, key, email, home: `/console/m/${slug}` };
  }

  const sendEvents = async (key: string, session: string, events: object[]) => {
    const r = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: { api_key: key, session_id: session, events },
      headers: { origin: SHOP_ORIGIN },
    });
    expect(r.statusCode, r.body).toBe(202);
  };

  const lead = async (key: string, email: string) => {
    const r = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: {
        api_key: key,
        session_id: await scoredSession(app, key, SHOP_ORIGIN),
        type: 'lead_submitted',
        email,
        consent: true,
        consent_version: 'v1',
      },
      headers: { origin: SHOP_ORIGIN },
    });
    expect(r.statusCode, r.body).toBe(202);
  };

  /**
   * A fresh browser context and page that collect uncaught errors, CSP refusals, and every request
   * made to an origin other than the service's (the console must make none).
   */
  async function open(opts: { width?: number; height?: number } = {}) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const errors: string[] = [];
    const foreign: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) errors.push(m.text());
    });
    page.on('request', (r) => {
      if (!r.url().startsWith(`${base}/`)) foreign.push(r.url());
    });
    const done = async () => {
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
      await context.close();
    };
    return { page, context, errors, foreign, done };
  }

  /** Signs in through the form and waits for the first page behind it. */
  async function signIn(page: Page, email: string, password = PASSWORD) {
    await page.goto(`${base}/console/sign-in`);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.endsWith('/sign-in'), WAIT),
      page.locator('main form button[type=submit]').click(),
    ]);
  }

  /**
   * axe's violations on the page as it stands, one line each. Its default rules (WCAG 2.0–2.1 A and
   * AA, and best practices) and four it leaves off: target sizes (WCAG 2.2 AA), contrast at AAA
   * (7:1; the console's text is read at a glance, often on a phone in daylight), links of the same
   * text going to the same place, and unique ids.
   */
  async function axe(page: Page, where: string): Promise<string[]> {
    // evaluated through the browser's debugging protocol, not as a page script: the CSP stays on
    if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(axeSource);
    const r = (await page.evaluate(`axe.run(document, {
      resultTypes: ['violations'],
      rules: {
        'target-size': { enabled: true },
        'color-contrast-enhanced': { enabled: true },
        'identical-links-same-purpose': { enabled: true },
        'duplicate-id': { enabled: true },
      },
    })`)) as {
      violations: { id: string; nodes: { target: unknown; failureSummary?: string }[] }[];
    };
    return r.violations.map(
      (v) => `${where}: ${v.id} ${JSON.stringify(v.nodes.map((n) => n.target))} ${v.nodes[0]?.failureSummary ?? ''}`,
    );
  }

  /** the text of a figure of the overview, by its data-figure */
  const figure = (page: Page, id: string) => page.locator(`[data-figure="${id}"]`).textContent();

  it('signs in with the form and shows the figures of the events sent, revenue in SAR', async () => {
    const s = await shop('figures-shop');
    await syncProducts(app.db, app.catalog.current(), s.merchant.id, [
      { merchant_product_id: 'K1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
      { merchant_product_id: 'X1', name: 'Gift bag', house: 'Our shop', price: 50 },
    ]);
    // a shopper who takes the quiz, clicks Khamrah and buys it with a gift bag: 145 SAR attributed of 195
    const buyer = await scoredSession(app, s.key, SHOP_ORIGIN);
    await sendEvents(s.key, buyer, [
      { type: 'widget_loaded' },
      { type: 'quiz_started' },
      { type: 'quiz_completed' },
      { type: 'recommendation_clicked', merchant_product_id: 'K1', position: 1 },
    ]);
    await sendEvents(s.key, buyer, [
      {
        type: 'purchase_completed',
        order_id: `o-${randomUUID()}`,
        total: 195,
        currency: 'SAR',
        items: [
          { merchant_product_id: 'K1', quantity: 1, price: 145 },
          { merchant_product_id: 'X1', quantity: 1, price: 50 },
        ],
      },
    ]);
    // one who starts and leaves, one who only sees the launcher
    await sendEvents(s.key, randomUUID(), [{ type: 'widget_loaded' }, { type: 'quiz_started' }]);
    await sendEvents(s.key, randomUUID(), [{ type: 'widget_loaded' }]);

    const { page, done } = await open();
    await signIn(page, s.email);
    expect(new URL(page.url()).pathname).toBe(`${s.home}/`);
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    expect(await page.locator('h1').textContent()).toBe(t('ar', 'overview'));
    // Arabic-Indic digits, as the widget writes them in Arabic
    expect(await figure(page, 'views')).toBe('٣');
    expect(await figure(page, 'starts')).toBe('٢');
    expect(await figure(page, 'completions')).toBe('١');
    expect(await figure(page, 'clicks')).toBe('١');
    expect(await figure(page, 'orders')).toBe('١');
    const arRevenue = (await figure(page, 'revenue')) ?? '';
    expect(arRevenue).toContain('١٤٥٫٠٠');
    expect(arRevenue).toContain('ر.س');
    // the language link, then the period form: the same figures in English
    await Promise.all([page.waitForURL(/lang=en/, WAIT), page.locator('.who a[hreflang=en]').click()]);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await figure(page, 'revenue')).toMatch(/^SAR\s145\.00$/);
    await page.locator('select[name=traffic]').selectOption('test');
    await Promise.all([page.waitForURL(/traffic=test/, WAIT), page.locator('form.period button').click()]);
    expect(await figure(page, 'views')).toBe('0');
    await done();
  }, 90_000);

  it('draws the day-by-day chart with round dots, a scale and dates, and says each day’s figures on hover and from the keyboard', async () => {
    const s = await shop('chart-shop');
    await syncProducts(app.db, app.catalog.current(), s.merchant.id, [
      { merchant_product_id: 'C1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
    ]);
    const DAY = 86_400_000;
    const dayOf = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);
    // three quizzes and an order two days ago, one quiz yesterday
    for (const [ago, quizzes, orders] of [
      [2, 3, 1],
      [1, 1, 0],
    ] as const) {
      for (let i = 0; i < quizzes; i++) {
        const session = await scoredSession(app, s.key, SHOP_ORIGIN);
        const at = new Date(Date.now() - ago * DAY).toISOString();
        await sendEvents(s.key, session, [
          { type: 'quiz_completed', occurred_at: at },
          { type: 'recommendation_clicked', merchant_product_id: 'C1', position: 1, occurred_at: at },
          ...(i < orders
            ? [
                {
                  type: 'purchase_completed',
                  order_id: `o-${randomUUID()}`,
                  total: 145,
                  currency: 'SAR',
                  items: [{ merchant_product_id: 'C1', quantity: 1, price: 145 }],
                  occurred_at: at,
                },
              ]
            : []),
        ]);
      }
    }
    for (const [lang, width] of [
      ['ar', 390],
      ['en', 1280],
    ] as const) {
      const { page, done } = await open({ width });
      await signIn(page, s.email);
      await page.goto(`${base}${s.home}/?lang=${lang}`);
      // a dot is a circle on the screen, whatever the chart's width
      const dot = await page.locator('.plot circle.dot').first().boundingBox();
      expect(dot, lang).not.toBeNull();
      expect(Math.abs((dot?.width ?? 0) - (dot?.height ?? 1)), `${lang}: ${JSON.stringify(dot)}`).toBeLessThan(0.5);
      expect(dot?.width).toBeGreaterThanOrEqual(7);
      // a scale and dates, in the page's digits
      const scale = await page.locator('.plot text.scale').allTextContents();
      expect(scale).toEqual(lang === 'ar' ? ['٠', '٢', '٤'] : ['0', '2', '4']);
      expect(await page.locator('.plot text.date').count()).toBeGreaterThanOrEqual(5);
      // hover over the day two days ago: its date and figures appear
      const day = page.locator(`.plot .day[data-day="${dayOf(2)}"]`);
      const tip = day.locator('text.tip');
      expect(await tip.isVisible()).toBe(false);
      await day.locator('rect.bar').hover();
      expect(await tip.isVisible()).toBe(true);
      expect(await tip.textContent()).toBe(
        `${formatDay(lang, dayOf(2))}${t(lang, 'completions')}: ${lang === 'ar' ? '٣' : '3'} · ${t(lang, 'purchases')}: ${lang === 'ar' ? '١' : '1'}`,
      );
      expect(await day.getAttribute('aria-label')).toBe(
        t(lang, 'chartDay', { d: formatDay(lang, dayOf(2)), q: 3, o: 1 }),
      );
      // from the keyboard: the last day is in the tab order, the arrow towards the past moves to the day before
      await page.mouse.move(0, 0);
      const last = page.locator(`.plot .day[data-day="${dayOf(0)}"]`);
      await last.focus();
      expect(await last.locator('text.tip').isVisible()).toBe(true);
      await page.keyboard.press(lang === 'ar' ? 'ArrowRight' : 'ArrowLeft');
      const yesterday = page.locator(`.plot .day[data-day="${dayOf(1)}"]`);
      expect(
        await yesterday.evaluate(
          (el) => el === (el as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
        ),
      ).toBe(true);
      expect(await yesterday.locator('text.tip').isVisible()).toBe(true);
      expect(await yesterday.getAttribute('tabindex')).toBe('0');
      expect(await last.getAttribute('tabindex')).toBe('-1');
      expect(await last.locator('text.tip').isVisible()).toBe(false);
      await page.keyboard.press('Home');
      expect(await page.locator('.plot .day').first().getAttribute('tabindex')).toBe('0');
      // the revenue stays on one line with its currency, on a phone too
      const revenue = page.locator('[data-figure="revenue"] .amount');
      // (an inline box is one rectangle per run of one direction: all of them on one line)
      const lines = await revenue.evaluate((el) => {
        const rects = (el as unknown as { getClientRects(): ArrayLike<{ top: number }> }).getClientRects();
        return new Set(Array.from(rects, (r) => Math.round(r.top))).size;
      });
      expect(lines).toBe(1);
      await done();
    }
  }, 120_000);

  it('pins an unrecognised product to a perfume found by an Arabic search; the next score recommends it as that perfume', async () => {
    const s = await shop('shelf-shop');
    await syncProducts(app.db, app.catalog.current(), s.merchant.id, [
      { merchant_product_id: 'S1', name: 'عطر المساء الخاص 100 مل', house: 'متجرنا', price: 180 },
    ]);
    const score = async () => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: { api_key: s.key, quiz: { families: ['oriental', 'gourmand'] }, limit: 6 },
        headers: { origin: SHOP_ORIGIN },
      });
      expect(r.statusCode).toBe(200);
      const body = r.json() as {
        recommendations: { merchant_product_id: string; sillage_perfume_id?: string | null }[];
      };
      return body.recommendations.find((x) => x.merchant_product_id === 'S1');
    };
    expect((await score())?.sillage_perfume_id ?? null).toBeNull();

    const { page, done } = await open();
    await signIn(page, s.email);
    await Promise.all([
      page.waitForURL(/\/shelf$/, WAIT),
      page.locator('nav .tabs a', { hasText: t('ar', 'shelf') }).click(),
    ]);
    await Promise.all([
      page.waitForURL(/filter=unmatched/, WAIT),
      page.locator('ul.filters a', { hasText: t('ar', 'unmatched') }).click(),
    ]);
    await Promise.all([
      page.waitForURL(/\/shelf\/product\?id=S1/, WAIT),
      page.locator('tr[data-product="S1"] td a', { hasText: 'عطر المساء الخاص' }).click(),
    ]);
    await page.locator('#perfume-q').fill('خمرة لطافة');
    await Promise.all([page.waitForURL(/q=/, WAIT), page.locator('form:has(#perfume-q) button[type=submit]').click()]);
    const pin = page.locator('ul.results form:has(input[name=perfume][value="lattafa-khamrah-edp"]) button');
    expect(await pin.textContent()).toBe(t('ar', 'pin'));
    await Promise.all([page.waitForURL(/done=pinned/, WAIT), pin.click()]);
    expect(await page.locator('[data-perfume]').getAttribute('data-perfume')).toBe('lattafa-khamrah-edp');
    expect(await page.locator('p.flash.ok').isVisible()).toBe(true);
    expect((await score())?.sillage_perfume_id).toBe('lattafa-khamrah-edp');
    await done();
  }, 90_000);

  it('says what a product known without a profile smells like: two notes ticked, saved, and it is recommended', async () => {
    const s = await shop('answer-shop');
    await syncProducts(app.db, app.catalog.current(), s.merchant.id, [
      { merchant_product_id: 'N1', name: 'Afnan Turathi Electric EDP 100ml', house: 'Afnan', price: 220 },
    ]);
    const recommended = async () => {
      const r = await app.inject({
        method: 'POST',
        url: '/api/widget/score',
        payload: { api_key: s.key, quiz: { families: ['oud', 'spicy'] }, limit: 6 },
        headers: { origin: SHOP_ORIGIN },
      });
      expect(r.statusCode).toBe(200);
      const body = r.json() as Record<'recommendations' | 'also_explore', { merchant_product_id: string }[]>;
      return [...body.recommendations, ...(body.also_explore ?? [])].some((x) => x.merchant_product_id === 'N1');
    };
    expect(await recommended()).toBe(false);

    const { page, done } = await open();
    await signIn(page, s.email);
    await page.goto(`${base}${s.home}/shelf?filter=no_profile`);
    const fix = page.locator('tr[data-product="N1"] a[data-fix]');
    expect(await fix.textContent()).toBe(t('ar', 'fixAnswer'));
    await Promise.all([page.waitForURL(/\/shelf\/product\?id=N1#answer/, WAIT), fix.click()]);
    await page.locator('input[name=notes][value="oud"]').check();
    await page.locator('label:has(input[name=notes][value="saffron"])', { hasText: 'زعفران' }).click();
    await Promise.all([
      page.waitForURL(/done=answered/, WAIT),
      page.locator('button', { hasText: t('ar', 'answerSave') }).click(),
    ]);
    expect(await page.locator('p.flash.ok').textContent()).toBe(t('ar', 'answerSaved'));
    expect(await page.locator('[data-quality]').getAttribute('data-quality')).toBe('described');
    expect(await page.locator('input[name=notes][value="saffron"]').isChecked()).toBe(true);
    expect(await recommended()).toBe(true);
    expect(await axe(page, 'ar product, answered')).toEqual([]);
    await done();
  }, 90_000);

  it('creates a test key with an allowed origin, shows it once, revokes it after a confirmation, and verify refuses it', async () => {
    const s = await shop('install-shop');
    const { page, done } = await open();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await signIn(page, s.email);
    await Promise.all([
      page.waitForURL(/\/install$/, WAIT),
      page.locator('nav .tabs a', { hasText: t('ar', 'install') }).click(),
    ]);
    const form = page.locator('form[action$="/keys"]');
    await form.locator('input[name=mode][value=live]').check();
    await form.getByLabel(t('ar', 'test'), { exact: true }).check();
    expect(await form.locator('input[name=mode][value=test]').isChecked()).toBe(true);
    await form.locator('#origins').fill('https://new.shop.example');
    await Promise.all([page.waitForURL(/\/keys$/, WAIT), form.locator('button[type=submit]').click()]);
    const plain = ((await page.locator('#new-key').textContent()) ?? '').trim();
    expect(plain).toMatch(/^pk_test_\w+$/);
    expect(await page.locator('#script-tag').textContent()).toContain(`data-key="${plain}"`);
    const ok = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: plain },
      headers: { origin: 'https://new.shop.example' },
    });
    expect(ok.statusCode).toBe(200);
    // shown once: the install page opened again has only its prefix
    await Promise.all([
      page.waitForURL(/\/install$/, WAIT),
      page.locator('nav .tabs a', { hasText: t('ar', 'install') }).click(),
    ]);
    expect(await page.content()).not.toContain(plain);
    const row = page.locator('tr[data-key]', { hasText: 'https://new.shop.example' });
    await Promise.all([page.waitForURL(/done=revoked/, WAIT), row.locator('button.danger').click()]);
    expect(dialogs).toHaveLength(1);
    expect(await row.textContent()).toContain(t('ar', 'revoked'));
    const refused = await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: plain },
      headers: { origin: 'https://new.shop.example' },
    });
    expect(refused.statusCode).toBe(403);
    await done();
  }, 90_000);

  it('exports the leads as CSV and erases one after a confirmation', async () => {
    const s = await shop('leads-shop');
    for (const email of ['noura@example.com', 'fahad@example.com']) await lead(s.key, email);
    const { page, done } = await open();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.accept();
    });
    await signIn(page, s.email);
    await Promise.all([
      page.waitForURL(/\/leads$/, WAIT),
      page.locator('nav .tabs a', { hasText: t('ar', 'leads') }).click(),
    ]);
    expect(await page.locator('tr[data-lead]').count()).toBe(2);
    const [download] = await Promise.all([
      page.waitForEvent('download', WAIT),
      page.locator('main a', { hasText: t('ar', 'exportCsv') }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('leads-leads-shop.csv');
    const csv = readFileSync(await download.path(), 'utf8');
    expect(csv).toContain('noura@example.com');
    expect(csv).toContain('fahad@example.com');
    expect(csv.split(/\r?\n/)[0]).toMatch(/email/);
    const row = page.locator('tr[data-lead]', { hasText: 'noura@example.com' });
    await Promise.all([page.waitForURL(/done=erased/, WAIT), row.locator('button.danger').click()]);
    expect(dialogs).toEqual([t('ar', 'confirmErase')]);
    expect(await page.locator('tr[data-lead]').count()).toBe(1);
    expect(await page.locator('main').textContent()).not.toContain('noura@example.com');
    expect(await page.locator('main').textContent()).toContain('fahad@example.com');
    await done();
  }, 90_000);

  it('a dismissed confirmation erases nothing', async () => {
    const s = await shop('keep-shop');
    await lead(s.key, 'mariam@example.com');
    const { page, done } = await open();
    page.on('dialog', (d) => void d.dismiss());
    await signIn(page, s.email);
    await page.locator('nav .tabs a', { hasText: t('ar', 'leads') }).click();
    await page.waitForURL(/\/leads$/, WAIT);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(`${r.method()} ${r.url()}`));
    await page.locator('tr[data-lead] button.danger').click();
    await page.waitForTimeout(500);
    expect(requests.filter((r) => r.startsWith('POST'))).toEqual([]);
    expect(await page.locator('tr[data-lead]').count()).toBe(1);
    await done();
  }, 60_000);

  it('signs out with the button; a page behind sign-in then goes to the sign-in page', async () => {
    const s = await shop('signout-shop');
    const { page, done } = await open();
    await signIn(page, s.email);
    await Promise.all([
      page.waitForURL(/\/console\/sign-in$/, WAIT),
      page.locator('header form[action="/console/sign-out"] button').click(),
    ]);
    expect(await page.locator('#email').isVisible()).toBe(true);
    await page.goto(`${base}${s.home}/shelf`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await page.goBack();
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await done();
  }, 60_000);

  it('after 5 wrong passwords for one email, says so (429) even to the right one', async () => {
    const s = await shop('throttle-shop');
    const { page, done } = await open();
    await page.goto(`${base}/console/sign-in?lang=en`);
    const attempt = async (password: string) => {
      await page.locator('#email').fill(s.email);
      await page.locator('#password').fill(password);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/console/sign-in') && r.request().method() === 'POST', WAIT),
        page.locator('main form button[type=submit]').click(),
      ]);
      await page.waitForLoadState('domcontentloaded');
      return response.status();
    };
    for (let i = 0; i < 5; i++) {
      expect(await attempt(`wrong password ${i}`)).toBe(401);
      expect(await page.locator('[role=alert]').textContent()).toBe(t('en', 'signInFailed'));
    }
    expect(await attempt(PASSWORD)).toBe(429);
    expect(await page.locator('[role=alert]').textContent()).toMatch(
      /^Too many attempts\. Try again in \d+ seconds\.$/,
    );
    // the email typed stays in its field
    expect(await page.locator('#email').inputValue()).toBe(s.email);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    await done();
  }, 90_000);

  describe('axe-core on every page, in Arabic and English', () => {
    it('finds no violation on any console page', async () => {
      const s = await shop('axe-shop');
      await syncProducts(app.db, app.catalog.current(), s.merchant.id, [
        { merchant_product_id: 'A1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
        { merchant_product_id: 'A2', name: 'Khamrah Qahwa', house: 'Unknown House', price: 100 },
        { merchant_product_id: 'A3', name: 'عطر المساء الخاص 100 مل', house: 'متجرنا', price: 180 },
      ]);
      const buyer = await scoredSession(app, s.key, SHOP_ORIGIN);
      await sendEvents(s.key, buyer, [
        { type: 'widget_loaded' },
        { type: 'quiz_started' },
        { type: 'quiz_completed' },
        { type: 'recommendation_clicked', merchant_product_id: 'A1', position: 1 },
        {
          type: 'purchase_completed',
          order_id: `o-${randomUUID()}`,
          total: 145,
          currency: 'SAR',
          items: [{ merchant_product_id: 'A1', quantity: 1, price: 145 }],
        },
      ]);
      for (const email of ['noura@example.com', 'fahad@example.com']) await lead(s.key, email);

      const { page, done } = await open();
      const seen: string[] = [];
      const visit = async (path: string, lang: Lang) => {
        const res = await page.goto(`${base}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
        expect(res?.status(), path).toBe(200);
        expect(await page.locator('html').getAttribute('lang')).toBe(lang);
        seen.push(...(await axe(page, `${lang} ${path}`)));
      };
      const operator = 'operator@sillage.example';
      for (const lang of ['ar', 'en'] as const) {
        await visit('/console/sign-in', lang);
        await visit('/console/setup', lang);
        // a wrong token: the page with its error
        await page.locator('#token').fill('not the token');
        await page.locator('#email').fill(operator);
        await page.locator('#password').fill(PASSWORD);
        await page.locator('main form button[type=submit]').click();
        await page.locator('[role=alert]').waitFor(WAIT);
        seen.push(...(await axe(page, `${lang} setup, wrong token`)));
        // a wrong password on the sign-in page
        await page.goto(`${base}/console/sign-in?lang=${lang}`);
        await page.locator('#email').fill(`nobody-${lang}@sillage.example`);
        await page.locator('#password').fill('not the password');
        await page.locator('main form button[type=submit]').click();
        await page.locator('[role=alert]').waitFor(WAIT);
        seen.push(...(await axe(page, `${lang} sign-in, refused`)));
      }
      // the first operator, made in the setup form
      await page.goto(`${base}/console/setup`);
      await page.locator('#token').fill(ADMIN_TOKEN);
      await page.locator('#email').fill(operator);
      await page.locator('#password').fill(PASSWORD);
      await Promise.all([
        page.waitForURL((u) => u.pathname === '/console', WAIT),
        page.locator('main form button[type=submit]').click(),
      ]);
      for (const lang of ['ar', 'en'] as const) {
        await visit('/console', lang);
        await visit(`${s.home}/`, lang);
        await visit(`${s.home}/asks`, lang);
        await visit(`${s.home}/shelf`, lang);
        await visit(`${s.home}/shelf?filter=unmatched`, lang);
        await visit(`${s.home}/shelf/product?id=A3&q=${encodeURIComponent('خمرة لطافة')}`, lang);
        expect(await page.locator('ul.results li').count()).toBeGreaterThan(0);
        await visit(`${s.home}/shelf/product?id=A1&done=pinned`, lang);
        // the answer's search of the perfume it is inspired by, and an answer refused in words
        await visit(`${s.home}/shelf/product?id=A3&q=aventus&for=inspired`, lang);
        expect(await page.locator('[data-inspired-results] li').count()).toBeGreaterThan(0);
        await visit(`${s.home}/install`, lang);
        await page.locator('#origins').fill('https://axe.shop.example');
        await Promise.all([
          page.waitForURL(/\/keys$/, WAIT),
          page.locator('form[action$="/keys"] button[type=submit]').click(),
        ]);
        await page.locator('#new-key').waitFor(WAIT);
        seen.push(...(await axe(page, `${lang} install, a new key shown`)));
        await visit(`${s.home}/leads`, lang);
        expect(await page.locator('tr[data-lead]').count()).toBe(2);
        await visit(`${s.home}/team`, lang);
        const missing = await page.goto(`${base}${s.home}/shelf/product?id=nothing&lang=${lang}`);
        expect(missing?.status()).toBe(404);
        seen.push(...(await axe(page, `${lang} not found`)));
      }
      expect(seen).toEqual([]);
      await done();
    }, 240_000);
  });

  it('on a phone, every page fits the width, the nav works, and axe finds nothing', async () => {
    const s = await shop('phone-shop');
    await syncProducts(app.db, app.catalog.current(), s.merchant.id, [
      { merchant_product_id: 'P1', name: 'Khamrah EDP 100ml', house: 'Lattafa', price: 145 },
      {
        merchant_product_id: 'P2',
        name: 'عطر المساء الخاص بإصدار محدود جدا للمناسبات الكبيرة 100 مل',
        house: 'متجرنا',
        price: 180,
      },
      { merchant_product_id: 'P3', name: 'Khamrah Qahwa', house: 'Unknown House', price: 100 },
    ]);
    const buyer = await scoredSession(app, s.key, SHOP_ORIGIN);
    await sendEvents(s.key, buyer, [
      { type: 'widget_loaded' },
      { type: 'quiz_started' },
      { type: 'quiz_completed' },
      { type: 'recommendation_clicked', merchant_product_id: 'P1', position: 1 },
    ]);
    await lead(s.key, 'a.rather.long.address.for.a.phone@example.com');
    // what the install page reports: a key seen on an origin it does not allow
    await app.inject({
      method: 'POST',
      url: '/api/widget/verify',
      payload: { api_key: s.key },
      headers: { origin: 'https://a-long-subdomain.elsewhere.example' },
    });
    await app.keyStore.flush();
    const seen: string[] = [];
    // a common phone, and the 320 CSS pixels of WCAG's reflow
    for (const [width, height] of [
      [390, 844],
      [320, 640],
    ] as const) {
      const { page, done } = await open({ width, height });
      await signIn(page, s.email);
      const fits = async (where: string) => {
        const o = await page.evaluate(() => ({
          scroll: document.scrollingElement.scrollWidth,
          width: window.innerWidth,
        }));
        expect(o.scroll, `${width} ${where}: no sideways scrolling of the page`).toBeLessThanOrEqual(o.width);
        seen.push(...(await axe(page, `${width} ${where}`)));
      };
      for (const lang of ['ar', 'en'] as const) {
        await page.goto(`${base}${s.home}/?lang=${lang}`);
        await fits(`${lang} overview`);
        // every tab of the nav is on the screen, large enough to tap, and opens its page
        const tabs = page.locator('nav .tabs a');
        expect(await tabs.count()).toBe(6);
        const boxes = await tabs.evaluateAll((as) =>
          as.map((a) =>
            (
              a as unknown as { getBoundingClientRect(): { left: number; right: number; height: number } }
            ).getBoundingClientRect(),
          ),
        );
        for (const box of boxes) {
          expect(box.left).toBeGreaterThanOrEqual(0);
          expect(box.right).toBeLessThanOrEqual(width);
          expect(box.height).toBeGreaterThanOrEqual(24);
        }
        // a table wider than the screen scrolls in its own box, which a keyboard can focus and scroll
        const funnel = page.locator('.scroll[role=region]', { has: page.locator('th', { hasText: t(lang, 'step') }) });
        const sideways = () =>
          funnel.evaluate((el) => {
            const box = el as unknown as { scrollWidth: number; clientWidth: number; scrollLeft: number };
            return { wider: box.scrollWidth > box.clientWidth, at: Math.abs(box.scrollLeft) };
          });
        if ((await sideways()).wider) {
          await funnel.focus();
          await page.keyboard.press(lang === 'ar' ? 'ArrowLeft' : 'ArrowRight');
          await expect.poll(async () => (await sideways()).at, WAIT).toBeGreaterThan(0);
        }
        await Promise.all([page.waitForURL(/\/shelf$/, WAIT), tabs.filter({ hasText: t(lang, 'shelf') }).click()]);
        expect(await page.locator('h1').textContent()).toBe(t(lang, 'shelf'));
        expect(await page.locator('tr[data-product]').count()).toBe(3);
        await fits(`${lang} shelf`);
        for (const path of ['asks', 'shelf/product?id=P2&q=khamrah', 'install', 'leads', 'team']) {
          await page.goto(`${base}${s.home}/${path}`);
          await fits(`${lang} ${path}`);
        }
      }
      await done();
    }
    expect(seen).toEqual([]);
  }, 180_000);

  it('from the keyboard: Tab reaches the skip link first, then the fields and the button; Enter signs in', async () => {
    const s = await shop('keys-shop');
    const { page, done } = await open();
    await page.goto(`${base}/console/sign-in?lang=en`);
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return el ? el.id || el.className || el.tagName.toLowerCase() : null;
      });
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('skip');
    // the skip link shows itself when it has focus
    const skip = await page.locator('a.skip').boundingBox();
    expect(skip && skip.x >= 0 && skip.y >= 0).toBe(true);
    await page.keyboard.press('Enter');
    expect(await focused()).toBe('content');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('email');
    await page.keyboard.type(s.email);
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('submit');
    await Promise.all([page.waitForURL(`${base}${s.home}/`, WAIT), page.keyboard.press('Enter')]);
    expect(await page.locator('h1').textContent()).toBe(t('en', 'overview'));
    // without the skip link, the header's links come before the fields: from the password, Enter submits too
    await page.locator('header form[action="/console/sign-out"] button').click();
    await page.waitForURL(/\/sign-in$/, WAIT);
    await page.locator('#email').fill(s.email);
    await page.locator('#password').fill(PASSWORD);
    await Promise.all([page.waitForURL(`${base}${s.home}/`, WAIT), page.locator('#password').press('Enter')]);
    await done();
  }, 60_000);
});
