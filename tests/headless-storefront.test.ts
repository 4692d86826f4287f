/**
 * The worked example of a headless storefront (examples/headless-storefront)
 * against the service: it type-checks against the client package's generated
 * declarations (and wrong calls do not), its server-rendered page shows the
 * recommendations of a real score made on the server, its page finds the
 * perfumes a shopper loves as they type, and it reports the impression and a
 * click from a real browser in the session the server scored with.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { and, eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events } from '../schema/activity.ts';
import { sessionOfKey } from '../services/sessions.ts';
import { buildClientPackage, CLIENT_PACKAGE } from '../widget/build-client-package.ts';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples', 'headless-storefront');
if (!CHROMIUM) {
  process.stdout.write(
    '\nheadless storefront browser test skipped: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n',
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

/** What `npm install` does in the example for its `file:` dependency: a link to packages/client. */
function linkPackage() {
  const scope = join(EXAMPLE, 'node_modules', '@sillage');
  const link = join(scope, 'client');
  if (existsSync(link) || lstatSync(link, { throwIfNoEntry: false })) return;
  mkdirSync(scope, { recursive: true });
  symlinkSync(relative(scope, CLIENT_PACKAGE), link, 'dir');
}

/**
 * Calls the declarations must refuse: each line under its @ts-expect-error
 * compiles only if the types loosened (an unused @ts-expect-error is an error).
 */
const WRONG_CALLS = `
import { createPerfumeSuggester, createSillageClient, type Recommendation } from '@sillage/client';

const s = createSillageClient({ baseUrl: 'https://reco.example', apiKey: 'pk_test_x' });

export async function wrongCalls(r: Recommendation): Promise<string> {
  // @ts-expect-error a misspelt quiz field
  await s.score({ quiz: { familes: ['oud'] } });
  // @ts-expect-error limit is a number
  await s.score({ quiz: { families: ['oud'] }, limit: '6' });
  // @ts-expect-error locale is ar or en
  await s.score({ quiz: { families: ['oud'] }, locale: 'fr' });
  // @ts-expect-error an inline product needs its name (its house may be left out: it is read from the name)
  await s.score({ quiz: {}, catalog_mode: 'inline', inline_catalog: [{ merchant_product_id: 'p', house: 'Lattafa' }] });
  // @ts-expect-error a click needs its position
  s.track({ type: 'recommendation_clicked', merchant_product_id: 'p' });
  // @ts-expect-error an event type the service does not record
  s.track({ type: 'product_impression', merchant_product_id: 'p', position: 1 });
  // @ts-expect-error a lead needs consent: true
  await s.event({ type: 'lead_submitted', email: 'a@b.co', consent: false, consent_version: 'v1' });
  // @ts-expect-error an order's total is a number
  await s.trackPurchase({ order_id: 'o', total: '10', currency: 'SAR', items: [] });
  // @ts-expect-error match_score is a number
  const text: string = r.match_score;
  const res = await s.score({ quiz: { families: ['oud'] } });
  // @ts-expect-error the data is there only when the call succeeded
  void res.data.recommendations;
  // @ts-expect-error no such option
  createSillageClient({ baseUrl: 'https://reco.example', apiKey: 'pk_test_x', timeout: 5 });
  // @ts-expect-error a type-ahead needs somewhere to send its answers
  createPerfumeSuggester(s, { minChars: 3 });
  // @ts-expect-error loved perfumes are ids, not names
  await s.score({ quiz: { loved_perfumes: [{ name: 'Khamrah' }] } });
  return text;
}
`;

let app: TestApp;
let sillageUrl: string;
let store: Server | undefined;
let storeUrl: string;
let key: string;
let keyId: string;
let merchantId: string;
/**
 * The example's own factory. Imported by its path at run time, not by a static import: the
 * repository's type check must not follow into the example, whose '@sillage/client' exists only
 * once the package is built and linked (the first test checks its types, against the package).
 */
let createStorefront: (opts: { sillageUrl: string; apiKey: string; timeoutMs?: number }) => Server;

const FEED = (JSON.parse(readFileSync(join(ROOT, 'catalog', 'data', 'demo-feed.json'), 'utf8')) as object[]).map(
  (p) => ({
    ...p,
    product_url: `https://shop.example/p/${(p as { merchant_product_id: string }).merchant_product_id}`,
  }),
);

beforeAll(async () => {
  await buildClientPackage();
  linkPackage();
  const port = await freePort();
  sillageUrl = `http://127.0.0.1:${port}`;
  // its public address is where it listens: the pictures it makes for products are served from there
  app = await buildTestApp({ PORT: String(port), PUBLIC_BASE_URL: sillageUrl });
  await app.listen({ port, host: '127.0.0.1' });
  const storePort = await freePort();
  storeUrl = `http://127.0.0.1:${storePort}`;
  // the storefront's origin, for the page's events; the server's own calls send none
  const made = await createMerchantWithKey(app, { origins: [storeUrl] });
  key = made.key;
  keyId = made.keyId;
  merchantId = made.merchant.id;
  const sync = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${merchantId}/products`,
    headers: adminHeaders,
    payload: { products: FEED },
  });
  expect(sync.statusCode).toBe(200);
  ({ createStorefront } = await import(pathToFileURL(join(EXAMPLE, 'server.ts')).href));
  store = createStorefront({ sillageUrl, apiKey: key });
  await new Promise<void>((resolve) => store?.listen(storePort, '127.0.0.1', resolve));
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => (store ? store.close(resolve) : resolve(undefined)));
  await closeTestApp(app);
});

const productIds = (html: string, kind: string) =>
  [...html.matchAll(new RegExp(`data-product-id="([^"]+)" data-position="(\\d+)" data-kind="${kind}"`, 'g'))].map(
    (m) => m[1],
  );
const sessionOfPage = (html: string) => /data-session="([^"]+)"/.exec(html)?.[1];

describe('the headless storefront example', () => {
  it('type-checks against the package declarations, and the declarations refuse thirteen wrong calls', () => {
    const dir = join(ROOT, 'reports', 'headless-storefront');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'wrong-calls.ts'), WRONG_CALLS);
    expect(WRONG_CALLS.match(/@ts-expect-error/g)).toHaveLength(13);
    const config = ts.getParsedCommandLineOfConfigFile(
      join(EXAMPLE, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('no tsconfig for the example');
    expect(config.fileNames.map((f) => relative(EXAMPLE, f)).sort()).toEqual(['public/storefront.js', 'server.ts']);
    const program = ts.createProgram([...config.fileNames, join(dir, 'wrong-calls.ts')], {
      ...config.options,
      // the package as a storefront installs it: its generated declarations, nothing of the repository
      paths: { '@sillage/client': [join(CLIENT_PACKAGE, 'dist', 'index.d.ts')] },
    });
    const used = program.getSourceFiles().map((f) => relative(ROOT, f.fileName));
    expect(used).toContain('packages/client/dist/index.d.ts');
    expect(used.filter((f) => /^(contracts|events|widget)\//.test(f))).toEqual([]);
    const problems = ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
      return `${d.file ? relative(ROOT, d.file.fileName) : ''}:${at}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`;
    });
    expect(problems).toEqual([]);
  }, 60_000);

  it('renders, in English, the recommendations of a real score made on the server, in their order', async () => {
    const res = await fetch(`${storeUrl}/?lang=en&for=men&family=oud&family=amber&love=saffron&avoid=citrus`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain('<a href="/?lang=ar" lang="ar">العربية</a>');
    const direct = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: {
        api_key: key,
        locale: 'en',
        limit: 6,
        quiz: { gender: 'men', families: ['oud', 'amber'], accord_ratings: { saffron: 'love', citrus: 'avoid' } },
      },
    });
    expect(direct.statusCode).toBe(200);
    const scored = direct.json() as {
      recommendations: {
        merchant_product_id: string;
        name: string;
        match_score: number;
        fit: string;
        gender: string | null;
      }[];
      also_explore: { merchant_product_id: string; reason: string }[];
    };
    expect(scored.recommendations.length).toBeGreaterThan(0);
    expect(productIds(html, 'recommendation')).toEqual(scored.recommendations.map((r) => r.merchant_product_id));
    // beside them, grouped by why each is shown, each group in the service's order
    const grouped = ['other_family', 'weaker_fit', 'closest'].flatMap((reason) =>
      scored.also_explore.filter((a) => a.reason === reason).map((a) => a.merchant_product_id),
    );
    expect(productIds(html, 'also_explore')).toEqual(grouped);
    const first = scored.recommendations[0];
    const band = { strong: 'Strong match', good: 'Good match', weak: 'Weaker match' }[first?.fit as string];
    expect(band).toBeDefined();
    expect(html).toContain(`${band} · ${first?.match_score}%`);
    // for men: no product made for women, and each card says for whom when the service knows
    expect(scored.recommendations.some((r) => r.gender === 'women')).toBe(false);
    const wearers = [...html.matchAll(/<p class="house">[^<]*? · (For men|For women|Unisex)<\/p>/g)].map((m) => m[1]);
    expect(wearers).not.toContain('For women');
    expect(wearers.length).toBe(
      [...scored.recommendations, ...scored.also_explore].filter((r) => (r as { gender?: string | null }).gender)
        .length,
    );
    expect(html).toContain('<input type="radio" name="for" value="men" checked>');
    expect(html).toMatch(/SAR\s?[\d,]+/);

    // the session the server scored with is the page's, the cookie's, and one the service recorded for this key
    const session = sessionOfPage(html);
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('set-cookie')).toContain(`sillage_session=${session};`);
    await app.sessions.flush();
    expect(await sessionOfKey(app.db, session as string, { id: keyId, merchantId, test: false })).not.toBeNull();
    // the page's policy lets its own script and the service's origin in, nothing inline but the import map
    expect(res.headers.get('content-security-policy')).toContain(`connect-src 'self' ${sillageUrl}`);
  });

  it('renders Arabic right to left by default, and keeps the shopper in one session across pages', async () => {
    const first = await fetch(`${storeUrl}/?family=oud`);
    const html = await first.text();
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain('مقترحاتنا لك');
    expect(html).toContain('<a href="/?lang=en" lang="en">English</a>');
    expect(productIds(html, 'recommendation').length).toBeGreaterThan(0);
    expect(html).toMatch(/[٠-٩]/); // prices in Arabic-Indic digits
    const session = sessionOfPage(html);
    const again = await fetch(`${storeUrl}/?family=woody`, { headers: { cookie: `sillage_session=${session}` } });
    expect(sessionOfPage(await again.text())).toBe(session);
  });

  it('scores the perfumes the shopper loves, fetched by id: named on the page, said on each card like them, an unknown id left out', async () => {
    const res = await fetch(`${storeUrl}/?lang=en&perfume=lattafa-khamrah-edp&perfume=not-in-the-catalog`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const direct = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: key, locale: 'en', limit: 6, quiz: { loved_perfumes: ['lattafa-khamrah-edp'] } },
    });
    expect(direct.statusCode).toBe(200);
    const scored = direct.json() as {
      recommendations: { merchant_product_id: string; similar_to?: { relation: string } }[];
    };
    expect(productIds(html, 'recommendation')).toEqual(scored.recommendations.map((r) => r.merchant_product_id));
    // the loved perfume is a box the shopper can untick; the unknown id is not on the page
    expect(html).toContain(
      '<input type="checkbox" name="perfume" value="lattafa-khamrah-edp" checked> Khamrah</label>',
    );
    expect(html).not.toContain('not-in-the-catalog');
    const likes = [...html.matchAll(/<p class="like">([^<]+)<\/p>/g)].map((m) => m[1]);
    expect(likes[0]).toBe('The perfume you love');
    expect(likes).toContain('Because you love Khamrah');
    expect(likes).toHaveLength(scored.recommendations.filter((r) => r.similar_to).length);
    // in Arabic, by its Arabic name
    const ar = await (await fetch(`${storeUrl}/?perfume=lattafa-khamrah-edp`)).text();
    expect(ar).toContain('<p class="like">لأنك تحب خمرة</p>');
  });

  it('shows the form alone without answers, and its fallback (never an error page) when the service refuses', async () => {
    const form = await (await fetch(`${storeUrl}/?lang=en`)).text();
    expect(form).toContain('<form method="get" action="/">');
    expect(form).not.toContain('id="sillage-results"');

    const refused = createStorefront({ sillageUrl, apiKey: 'pk_live_notakeyofours' });
    await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
    try {
      const addr = refused.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      const res = await fetch(`http://127.0.0.1:${port}/?lang=en&family=oud`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('Suggestions are unavailable right now.');
      expect(html).not.toContain('id="sillage-results"');
    } finally {
      await new Promise((resolve) => refused.close(resolve));
    }
  });

  describe.skipIf(!CHROMIUM)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    async function eventsOf(session: string, type: string) {
      return app.db
        .select({ data: events.data })
        .from(events)
        .where(and(eq(events.sessionId, session), eq(events.type, type), eq(events.merchantId, merchantId)));
    }

    it('finds a perfume the shopper loves as they type in Arabic, picked by keyboard, and scores it', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => {
        // the browser's own request for a favicon, after the form's navigation, is the example's 404 and no problem of the page
        if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) problems.push(m.text());
      });
      try {
        await page.goto(`${storeUrl}/`);
        const field = page.locator('#sillage-perfumes [role=combobox]');
        await field.pressSequentially('خمرة', { delay: 30 });
        const options = page.locator('#sillage-options [role=option]');
        await options.first().waitFor({ timeout: 10_000 });
        expect(await field.getAttribute('aria-expanded')).toBe('true');
        expect(await options.first().textContent()).toBe('خمرة — لطافة · EDP');
        expect(await page.locator('#sillage-perfumes [role=status]').textContent()).toMatch(/عطور|عطران|عطر واحد/);
        await field.press('ArrowDown');
        expect(await field.getAttribute('aria-activedescendant')).toBe(await options.first().getAttribute('id'));
        await field.press('Enter');
        expect(await page.locator('input[name=perfume]:checked').getAttribute('value')).toBe('lattafa-khamrah-edp');
        await Promise.all([
          page.waitForURL(/perfume=lattafa-khamrah-edp/),
          page.locator('form button[type=submit]').click(),
        ]);
        expect(await page.locator('.card .like').first().textContent()).toBe('العطر الذي تحبه');
        expect(await page.locator('.card .like').allTextContents()).toContain('لأنك تحب خمرة');
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);

    it('reports the impression and a click from the page, in the session the server scored with', async () => {
      const context = await browser.newContext();
      // the shop's product pages are elsewhere; the click only has to leave
      await context.route('https://shop.example/**', (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>product</title>' }),
      );
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      try {
        await page.goto(`${storeUrl}/?lang=en&family=oud&love=saffron`);
        const session = await page.locator('#sillage-results').getAttribute('data-session');
        expect(session).toMatch(/^[0-9a-f-]{36}$/);
        const link = page.locator('a[data-kind="recommendation"]').first();
        const productId = await link.getAttribute('data-product-id');

        // the impression: queued by the page, sent within the client's flush delay
        await expect
          .poll(async () => (await eventsOf(session as string, 'results_viewed')).length, { timeout: 15_000 })
          .toBe(1);
        const [viewed] = await eventsOf(session as string, 'results_viewed');
        const shown = await page.locator('a[data-kind="recommendation"]').count();
        expect(viewed?.data).toMatchObject({ data: { count: shown, rendered: 'server' } });

        // every card has its picture: the shop's, or the one the service makes of the perfume's scent
        const pictures = page.locator('.card img');
        expect(await pictures.count()).toBe(await page.locator('.card').count());
        await expect
          .poll(() => pictures.first().evaluate((img) => (img as { naturalWidth: number }).naturalWidth))
          .toBeGreaterThan(0);

        await link.click();
        await page.waitForURL(/shop\.example\/p\//);
        await expect
          .poll(async () => (await eventsOf(session as string, 'recommendation_clicked')).length, { timeout: 15_000 })
          .toBe(1);
        const [clicked] = await eventsOf(session as string, 'recommendation_clicked');
        expect(clicked?.data).toMatchObject({ merchant_product_id: productId, position: 1 });
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  });
});
