/**
 * What the widget's results and launcher look like, measured in a real browser (Debian's Chromium
 * through playwright-core, as tests/browser.test.ts drives the widget), on the demo storefront and
 * on a page with the quiz inline, in Arabic and English, at a phone's width (390 px) and a
 * laptop's (1366 px) (issue 45):
 *
 * - a product's picture is shown whole, never cropped: a tall bottle keeps its cap and its base;
 *   the picture the service draws of a product without one keeps its house and name inside it;
 * - "for whom" is a badge like the fit and the score, after them; cards of one row keep their
 *   badges on one line across the row, whatever each card has or lacks above them;
 * - the launcher floats clear of the page's last content once scrolled to the end;
 * - the intro says the quiz's title once.
 *
 * Skipped with a printed line where no Chromium can be had.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledCatalog } from '../catalog/bundled.ts';
import { scentImageSvg } from '../scoring/scent-image.ts';
import { CHROMIUM, launchChromium } from './chromium.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';

const require = createRequire(import.meta.url);

if (!CHROMIUM) {
  process.stdout.write(
    '\nwidget layout browser tests skipped: no Chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)\n',
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

type Lang = 'ar' | 'en';
type Box = { x: number; y: number; width: number; height: number };
const WAIT = { timeout: 15_000 };

/** A tall bottle (200 × 500): a red cap on top, a white label in the middle, a blue base below. */
const BOTTLE = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="500" viewBox="0 0 200 500">
<rect width="200" height="500" fill="#eeeeee"/>
<rect x="60" y="0" width="80" height="70" fill="#dd0000"/>
<rect x="20" y="70" width="160" height="360" rx="20" fill="#99cccc"/>
<rect x="30" y="200" width="140" height="100" fill="#ffffff"/>
<text x="100" y="262" font-size="30" text-anchor="middle" font-family="sans-serif">LABEL</text>
<rect x="0" y="430" width="200" height="70" fill="#0000dd"/>
</svg>`;
const BOTTLE_URL = 'https://images.shop.example/bottle.svg';

/** The pixels of a PNG that are mostly red and mostly blue, counted in a page of no CSP of its own. */
const COUNT_COLOURS = `async (b64) => {
  const blob = await (await fetch('data:image/png;base64,' + b64)).blob();
  const bitmap = await createImageBitmap(blob);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  const d = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
  let red = 0, blue = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] > 180 && d[i + 1] < 70 && d[i + 2] < 70) red++;
    if (d[i + 2] > 180 && d[i] < 70 && d[i + 1] < 70) blue++;
  }
  return { red, blue };
}`;

const intersects = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe.skipIf(!CHROMIUM)("the widget's cards, launcher and intro in Chromium (issue 45)", () => {
  let app: TestApp;
  let browser: Browser;
  let base: string;
  let key: string;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await buildTestApp({ SEED_DEMO: 'true', PORT: String(port), PUBLIC_BASE_URL: base });
    await app.listen({ port, host: '127.0.0.1' });
    const info = app.demo.info();
    if (!info) throw new Error('the demo was not seeded');
    key = info.key;
    browser = await launchChromium(['--disable-quic', '--disable-component-update', '--disable-sync']);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await closeTestApp(app);
  });

  /**
   * A page of the given width that fails on any uncaught error or CSP violation. The score answer
   * can be changed on its way (`edit`), and the bottle's picture is served as if from a shop's CDN.
   */
  async function open(width: number, edit?: (body: ScoreBody) => void) {
    const context = await browser.newContext({ viewport: { width, height: 844 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) errors.push(m.text());
    });
    await page.route(BOTTLE_URL, (route: Route) => route.fulfill({ contentType: 'image/svg+xml', body: BOTTLE }));
    if (edit) {
      await page.route('**/api/widget/score', async (route: Route) => {
        const real = await route.fetch();
        const body = (await real.json()) as ScoreBody;
        edit(body);
        await route.fulfill({ response: real, json: body });
      });
    }
    return { page, context, errors };
  }

  /** A page of the shop's own with the quiz inline, full width (up to 1,200 px), no CSP. */
  async function inlinePage(page: Page, lang: Lang) {
    await page.route(`${base}/shop/inline`, (route: Route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}"><body>
          <main style="max-width:1200px;margin:0 auto"><sillage-quiz key="${key}" locale="${lang}"></sillage-quiz></main>
          <script src="/widget/v1/sillage.js" data-mount="none" async></script></body></html>`,
      }),
    );
    await page.goto(`${base}/shop/inline`);
    await page.locator('sillage-quiz .mode-inline .panel').waitFor(WAIT);
  }

  /** From the intro: a loved perfume typed and picked, then straight to the results. */
  async function lovedKhamrah(page: Page, lang: Lang) {
    await page.locator('sillage-quiz .panel .primary').click(WAIT); // start
    await page.locator('sillage-quiz .actions .primary').click(WAIT); // for whom: no preference
    const field = page.locator('sillage-quiz [role=combobox]');
    await field.pressSequentially(lang === 'ar' ? 'خمرة' : 'khamrah');
    await page.locator('sillage-quiz [role=option]').first().waitFor(WAIT);
    await field.press('ArrowDown');
    await field.press('Enter');
    await page
      .locator('sillage-quiz .actions .secondary')
      .getByText(lang === 'ar' ? 'اعرض ما يناسبني' : 'See my matches')
      .click();
    await page.locator('sillage-quiz .cards .card').first().waitFor(WAIT);
  }

  /** The demo shop's launcher, then the quiz to its results. */
  async function demoResults(page: Page, lang: Lang) {
    await page.goto(`${base}/demo${lang === 'en' ? '?lang=en' : ''}`);
    await page.locator('sillage-quiz .launcher').click(WAIT);
    await lovedKhamrah(page, lang);
  }

  /** Whether a thumbnail shows its picture whole: both the bottle's red cap and its blue base are on screen. */
  async function bottleShownWhole(page: Page, thumb: ReturnType<Page['locator']>) {
    await expect
      .poll(() => thumb.evaluate((img) => (img as unknown as { complete: boolean }).complete), WAIT)
      .toBe(true);
    const png = await thumb.screenshot();
    const blank = await page.context().newPage();
    const colours = (await blank.evaluate(`(${COUNT_COLOURS})(${JSON.stringify(png.toString('base64'))})`)) as {
      red: number;
      blue: number;
    };
    await blank.close();
    return colours;
  }

  for (const [lang, width] of [
    ['ar', 390],
    ['en', 1366],
  ] as const) {
    it(`a tall bottle's picture is shown whole in its card, cap and base, in the launcher's dialog (${lang}, ${width} px)`, async () => {
      const { page, context, errors } = await open(width, (body) => {
        (body.recommendations[0] as Card).image_url = BOTTLE_URL;
      });
      await demoResults(page, lang);
      const thumb = page.locator('sillage-quiz .cards .card').first().locator('img.thumb');
      expect(await thumb.getAttribute('src')).toBe(BOTTLE_URL);
      // the box is fixed (84 × 84) whatever the picture's shape; the picture is fitted inside it
      const box = await thumb.boundingBox();
      expect(box && [Math.round(box.width), Math.round(box.height)]).toEqual([84, 84]);
      const { red, blue } = await bottleShownWhole(page, thumb);
      // cropped to fill the square (object-fit: cover), the top and the bottom 30% of the bottle were cut away
      expect(red).toBeGreaterThan(20);
      expect(blue).toBeGreaterThan(20);
      // and no wider than it must be: the bottle is 2/5 as wide as it is tall
      const shown = await thumb.evaluate((img) => {
        const i = img as unknown as { naturalWidth: number; naturalHeight: number };
        return i.naturalWidth / i.naturalHeight;
      });
      expect(shown).toBeCloseTo(0.4, 2);
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  it('a tall bottle is shown whole on a wide card too (the quiz inline, several cards a row)', async () => {
    const { page, context, errors } = await open(1366, (body) => {
      (body.recommendations[1] as Card).image_url = BOTTLE_URL;
    });
    await inlinePage(page, 'en');
    await lovedKhamrah(page, 'en');
    const thumb = page.locator('sillage-quiz .cards .card').nth(1).locator('img.thumb');
    const { red, blue } = await bottleShownWhole(page, thumb);
    expect(red).toBeGreaterThan(20);
    expect(blue).toBeGreaterThan(20);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  for (const lang of ['en', 'ar'] as const) {
    it(`"for whom" is a badge like the others, after them; cards of one row keep their badges on one line (${lang}, 1366 px)`, async () => {
      const { page, context, errors } = await open(1366, (body) => {
        // the second card says for whom it is made and is like no loved perfume; the third has a long name
        const [, second, third] = body.recommendations as Card[];
        if (second) {
          second.gender = null;
          delete second.similar_to;
        }
        if (third) third.name = `${third.name} — Limited Edition Gift Set with Travel Spray`;
      });
      await inlinePage(page, lang);
      await lovedKhamrah(page, lang);
      const cards = page.locator('sillage-quiz .cards').first().locator('.card');
      expect(await cards.count()).toBeGreaterThanOrEqual(3);

      // the badges of a card: fit, score, then for whom (when known), each in the same badge style
      const badges = (await cards.evaluateAll((els) =>
        els.map((card) =>
          Array.from(
            (card as unknown as { querySelectorAll(s: string): ArrayLike<{ className: string }> }).querySelectorAll(
              '.tags > *',
            ),
          ).map((b) => b.className),
        ),
      )) as string[][];
      expect(badges[1]).toEqual([expect.stringMatching(/^tag fit /), 'tag score']);
      for (const b of badges) {
        expect(b.slice(0, 2)).toEqual([expect.stringMatching(/^tag fit (strong|good|weak)$/), 'tag score']);
        expect(b.slice(2)).toEqual(b.length > 2 ? ['tag wearer'] : []);
      }
      const wearer = cards.first().locator('.tag.wearer');
      expect(await wearer.textContent()).toBe(lang === 'ar' ? 'للجنسين' : 'Unisex');
      const style = (sel: string) =>
        cards
          .first()
          .locator(sel)
          .evaluate((el) => {
            const s = (
              globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }
            ).getComputedStyle(el);
            return {
              font: `${s.fontSize} ${s.fontWeight}`,
              radius: s.borderRadius,
              padding: s.padding,
              display: s.display,
              background: s.backgroundColor,
            };
          });
      const [fit, who] = [await style('.tag.fit'), await style('.tag.wearer')];
      expect({ ...who, background: '' }).toEqual({ ...fit, background: '' });
      // a filled badge, not plain text
      expect(who.background).not.toMatch(/^rgba\(0, 0, 0, 0\)$|^rgb\(255, 255, 255\)$/);

      // several cards a row; in each row, every card's badges start at the same height (CSS subgrid)
      const boxes = (await cards.evaluateAll((els) =>
        els.map((card) => {
          const c = card as unknown as {
            getBoundingClientRect(): { top: number; left: number };
            querySelector(s: string): { getBoundingClientRect(): { top: number } };
          };
          return { top: c.getBoundingClientRect().top, tags: c.querySelector('.tags').getBoundingClientRect().top };
        }),
      )) as { top: number; tags: number }[];
      const rows = new Map<number, number[]>();
      for (const b of boxes) rows.set(Math.round(b.top), [...(rows.get(Math.round(b.top)) ?? []), b.tags]);
      const first = [...rows.values()][0] ?? [];
      expect(first.length).toBeGreaterThanOrEqual(3);
      for (const tops of rows.values()) {
        for (const t of tops) expect(t).toBeCloseTo(tops[0] as number, 0);
      }
      // the row is uneven above the badges: one card lacks the loved-perfume line, one name wraps
      expect(await cards.nth(1).locator('.like').count()).toBe(0);
      expect(await cards.first().locator('.like').count()).toBe(1);
      await page.screenshot({ path: join(process.cwd(), 'test-results', `widget-cards-inline-${lang}.png`) });
      expect(errors).toEqual([]);
      await context.close();
    }, 90_000);
  }

  it('axe finds no violation in the results laid out several cards a row, in English and Arabic', async () => {
    const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    const seen: string[] = [];
    for (const lang of ['en', 'ar'] as const) {
      const { page, context } = await open(1366, (body) => {
        (body.recommendations[0] as Card).image_url = BOTTLE_URL;
        if (body.recommendations[1]) (body.recommendations[1] as Card).gender = null;
      });
      await inlinePage(page, lang);
      await lovedKhamrah(page, lang);
      await page.addScriptTag({ content: axeSource });
      const r = (await page.evaluate(
        "axe.run(document.querySelector('sillage-quiz'), { resultTypes: ['violations'] })",
      )) as { violations: { id: string; nodes: { target: unknown }[] }[] };
      for (const v of r.violations) seen.push(`${lang}: ${v.id} ${JSON.stringify(v.nodes.map((n) => n.target))}`);
      await context.close();
    }
    expect(seen).toEqual([]);
  }, 120_000);

  for (const [lang, width] of [
    ['ar', 390],
    ['en', 390],
    ['ar', 1366],
  ] as const) {
    it(`scrolled to the end of the page, the launcher covers none of the footer (${lang}, ${width} px)`, async () => {
      const { page, context, errors } = await open(width);
      await page.goto(`${base}/demo${lang === 'en' ? '?lang=en' : ''}`);
      const launcher = page.locator('sillage-quiz .launcher');
      await launcher.waitFor(WAIT);
      const atEnd = async () => {
        await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
        await page.waitForTimeout(100);
        const [l, f] = [await launcher.boundingBox(), await page.locator('footer.site-footer').boundingBox()];
        if (!l || !f) throw new Error('launcher or footer not laid out');
        return { launcher: l, footer: f };
      };
      const end = await atEnd();
      expect(intersects(end.launcher, end.footer)).toBe(false);
      // the room is the widget element's own, at the end of the page: the launcher's height and its margins
      const room = await page.locator('sillage-quiz').boundingBox();
      expect(room && Math.round(room.height)).toBe(88);
      expect(end.launcher.y).toBeGreaterThanOrEqual(end.footer.y + end.footer.height);
      // it is all that keeps the footer clear: a page that gives the room back has its footer under the launcher
      await page
        .locator('sillage-quiz')
        .evaluate((el) =>
          (el as unknown as { setAttribute(n: string, v: string): void }).setAttribute('reserve', 'none'),
        );
      const without = await atEnd();
      expect(intersects(without.launcher, without.footer)).toBe(true);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it('the launcher takes no room while the widget is hidden (a refused key)', async () => {
    const { page, context } = await open(390);
    await page.route('**/api/widget/verify', (route: Route) =>
      route.fulfill({ status: 401, json: { error: 'nope', code: 'invalid_key' } }),
    );
    await page.goto(`${base}/demo`);
    await expect.poll(() => page.locator('sillage-quiz[hidden]').count(), WAIT).toBe(1);
    expect(await page.locator('sillage-quiz').boundingBox()).toBeNull();
    await context.close();
  }, 60_000);

  for (const lang of ['ar', 'en'] as const) {
    it(`the intro says the quiz's title once, and the dialog is still named by it (${lang})`, async () => {
      const { page, context, errors } = await open(390);
      await page.goto(`${base}/demo${lang === 'en' ? '?lang=en' : ''}`);
      await page.locator('sillage-quiz .launcher').click(WAIT);
      const dialog = page.locator('sillage-quiz [role=dialog]');
      await dialog.waitFor(WAIT);
      const title = lang === 'ar' ? 'اختبار العطر' : 'Fragrance quiz';
      const text = (await dialog.innerText()).split(title).length - 1;
      expect(text).toBe(1);
      const named = await dialog.getAttribute('aria-labelledby');
      expect(await page.locator(`sillage-quiz #${named}`).textContent()).toBe(title);
      // what takes focus is the intro's sentence, so Tab reaches Start next
      expect(await page.evaluate("document.querySelector('sillage-quiz').shadowRoot.activeElement?.className")).toBe(
        'lead',
      );
      await page.keyboard.press('Tab');
      expect(await page.evaluate("document.querySelector('sillage-quiz').shadowRoot.activeElement?.textContent")).toBe(
        lang === 'ar' ? 'ابدأ' : 'Start',
      );
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it('the picture drawn of a product without one keeps every house and name of the catalog and the demo shop inside it', async () => {
    const catalog = loadBundledCatalog();
    const feed = JSON.parse(readFileSync(join(process.cwd(), 'catalog', 'data', 'demo-feed.json'), 'utf8')) as {
      name: string;
      house: string;
    }[];
    const houseAr = new Map(catalog.houses.map((h) => [h.name, h.name_ar ?? h.name]));
    const products = [
      ...catalog.perfumes.map((p) => ({ house: p.house, name: p.name })),
      ...catalog.perfumes.map((p) => ({ house: houseAr.get(p.house) ?? p.house, name: p.name_ar ?? p.name })),
      ...feed.map((f) => ({ house: f.house, name: f.name })),
      { house: 'Sillage Demo Atelier', name: 'Oud Al Layl Special Blend' },
    ];
    const svgs = products.map((p) => scentImageSvg({ accords: [{ name: 'oud', weight: 1 }], ...p }));
    const page = await browser.newPage();
    // each picture laid out as the browser draws it, and each line of its text measured
    const lines = (await page.evaluate(`((svgs) => {
      const out = [];
      for (const s of svgs) {
        const doc = new DOMParser().parseFromString(s, 'image/svg+xml');
        const svg = document.importNode(doc.documentElement, true);
        document.body.append(svg);
        for (const t of svg.querySelectorAll('text')) {
          const b = t.getBBox();
          out.push({ text: t.textContent, left: b.x, right: b.x + b.width });
        }
        svg.remove();
      }
      return out;
    })(${JSON.stringify(svgs)})`)) as { text: string; left: number; right: number }[];
    await page.close();
    expect(lines.length).toBe(products.length * 2);
    // the picture is 240 wide; before the words were fitted to it, 42 of these lines ran past its edges
    const outside = lines.filter((l) => l.left < 0 || l.right > 240).map((l) => l.text);
    expect(outside).toEqual([]);
    expect(lines.find((l) => l.text === 'Sillage Demo Atelier')).toBeDefined();
  }, 60_000);
});

interface Card {
  image_url: string | null;
  gender: string | null;
  name: string;
  similar_to?: unknown;
}
interface ScoreBody {
  recommendations: Card[];
}
