import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MESSAGES, platformName, t } from '../console/i18n.ts';
import { type InstallFacts, installProblems } from '../console/install-check.ts';
import {
  type InstallData,
  installPage,
  layout,
  mayOpen,
  type PageContext,
  type ProductData,
  productPage,
  qualityLabel,
  signInPage,
} from '../console/views.ts';
import { html } from '../lib/html.ts';

const NOW = new Date('2026-11-27T12:00:00Z');
const HOUR = 3600_000;
const healthy: InstallFacts = {
  keys: [{ prefix: 'pk_live_abcd', mode: 'live', revoked: false }],
  sightings: [
    {
      prefix: 'pk_live_abcd',
      origin: 'https://shop.example',
      outcome: 'ok',
      lastSeenAt: new Date(NOW.getTime() - HOUR),
    },
  ],
  lastEventAt: new Date(NOW.getTime() - HOUR),
  products: { total: 100, unmatched: 5 },
  now: NOW,
};

describe('console words', () => {
  it('exist in Arabic and English for every key, with the same placeholders', () => {
    const keys = Object.keys(MESSAGES.en);
    expect(Object.keys(MESSAGES.ar).sort()).toEqual([...keys].sort());
    for (const k of keys as (keyof typeof MESSAGES.en)[]) {
      const vars = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(vars(MESSAGES.ar[k]), k).toEqual(vars(MESSAGES.en[k]));
      expect(MESSAGES.ar[k].trim(), k).not.toBe('');
    }
    expect(t('en', 'throttled', { s: 30 })).toBe('Too many attempts. Try again in 30 seconds.');
  });
});

describe('the install check', () => {
  it('finds nothing wrong with a live key seen lately, events today and a recognised shelf', () => {
    expect(installProblems('en', healthy)).toEqual([]);
    // a test key beside the live one is no problem; nor is an event 24 hours old to the minute
    expect(
      installProblems('en', {
        ...healthy,
        keys: [...healthy.keys, { prefix: 'pk_test_x', mode: 'test', revoked: false }],
      }),
    ).toEqual([]);
    expect(installProblems('en', { ...healthy, lastEventAt: new Date(NOW.getTime() - 24 * HOUR) })).toEqual([]);
    expect(installProblems('en', { ...healthy, products: { total: 100, unmatched: 24 } })).toEqual([]);
    expect(installProblems('en', { ...healthy, products: { total: 100, unmatched: 5, withoutProfile: 24 } })).toEqual(
      [],
    );
  });

  it('a quarter or more of the shelf known without its notes: said, with what to do', () => {
    expect(installProblems('en', { ...healthy, products: { total: 100, unmatched: 0, withoutProfile: 25 } })).toEqual([
      t('en', 'noProfileShare', { n: 25, m: 100 }),
    ]);
    expect(installProblems('ar', { ...healthy, products: { total: 4, unmatched: 0, withoutProfile: 4 } })).toEqual([
      t('ar', 'noProfileShare', { n: 4, m: 4 }),
    ]);
    expect(installProblems('en', { ...healthy, products: { total: 100, unmatched: 0, withoutProfile: 0 } })).toEqual(
      [],
    );
  });

  it('names each problem a merchant can act on', () => {
    expect(
      installProblems('en', { ...healthy, keys: [{ prefix: 'pk_test_x', mode: 'test', revoked: false }] }),
    ).toEqual([t('en', 'noLiveKey')]);
    expect(
      installProblems('en', { ...healthy, keys: [{ ...healthy.keys[0], revoked: true } as InstallFacts['keys'][0]] }),
    ).toContain(t('en', 'noLiveKey'));
    expect(installProblems('en', { ...healthy, products: { total: 0, unmatched: 0 } })).toEqual([
      t('en', 'noProducts'),
    ]);
    expect(installProblems('en', { ...healthy, sightings: [], lastEventAt: null })).toEqual([t('en', 'notSeen')]);
    const refused = installProblems('en', {
      ...healthy,
      sightings: [
        ...healthy.sightings,
        {
          prefix: 'pk_live_abcd',
          origin: 'https://www.shop.example',
          outcome: 'origin_not_allowed',
          lastSeenAt: new Date(NOW.getTime() - 6 * 24 * HOUR),
        },
        {
          prefix: 'pk_live_abcd',
          origin: '',
          outcome: 'origin_not_allowed',
          lastSeenAt: new Date(NOW.getTime() - HOUR),
        },
      ],
    });
    expect(refused).toEqual([
      t('en', 'refusedOrigin', { o: 'https://www.shop.example' }),
      t('en', 'refusedOrigin', { o: '—' }),
    ]);
    const sevenRevoked = installProblems('en', {
      ...healthy,
      sightings: [
        ...healthy.sightings,
        ...Array.from({ length: 7 }, (_, i) => ({
          prefix: `pk_live_old${i}`,
          origin: 'https://shop.example',
          outcome: 'revoked_api_key',
          lastSeenAt: NOW,
        })),
      ],
    });
    expect(sevenRevoked).toHaveLength(5);
    const revoked = installProblems('en', {
      ...healthy,
      sightings: [
        ...healthy.sightings,
        { prefix: 'pk_live_old0', origin: 'https://shop.example', outcome: 'revoked_api_key', lastSeenAt: NOW },
      ],
    });
    expect(revoked).toEqual([t('en', 'revokedUsed', { k: 'pk_live_old0…' })]);
    expect(installProblems('en', { ...healthy, lastEventAt: new Date(NOW.getTime() - 25 * HOUR) })).toEqual([
      t('en', 'noEvents'),
    ]);
    expect(installProblems('en', { ...healthy, products: { total: 100, unmatched: 25 } })).toEqual([
      t('en', 'unmatchedShare', { n: 25, m: 100 }),
    ]);
  });

  it('forgets refusals older than a week, and lists at most five refused origins however many there were', () => {
    const old = {
      prefix: 'pk_live_abcd',
      origin: 'https://gone.example',
      outcome: 'origin_not_allowed',
      lastSeenAt: new Date(NOW.getTime() - 7 * 24 * HOUR),
    };
    expect(installProblems('en', { ...healthy, sightings: [...healthy.sightings, old] })).toEqual([]);
    fc.assert(
      fc.property(fc.array(fc.webUrl(), { maxLength: 40 }), (origins) => {
        const out = installProblems('en', {
          ...healthy,
          sightings: [
            ...healthy.sightings,
            ...origins.map((o) => ({
              prefix: 'pk_live_abcd',
              origin: o,
              outcome: 'origin_not_allowed',
              lastSeenAt: NOW,
            })),
          ],
        });
        return out.length <= 5 && out.length === Math.min(5, new Set(origins).size);
      }),
    );
  });
});

describe('console pages', () => {
  const ctx: PageContext = { lang: 'ar', path: '/console/sign-in', csrf: 'tok"en', viewer: null };
  it('are right-to-left in Arabic and left-to-right in English, with a link to the other language', () => {
    expect(signInPage(ctx).value).toContain('<html lang="ar" dir="rtl">');
    expect(signInPage(ctx).value).toContain('href="/console/sign-in?lang=en"');
    expect(signInPage({ ...ctx, lang: 'en' }).value).toContain('<html lang="en" dir="ltr">');
  });

  it('escape every value, the CSRF token and a merchant name included', () => {
    const page = layout(
      {
        ...ctx,
        viewer: { email: 'a@b.co', role: 'owner' },
        merchant: { slug: 's', name: '<img src=x onerror=alert(1)>' },
      },
      'T',
      html`<p>x</p>`,
    ).value;
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(signInPage(ctx).value).toContain('value="tok&quot;en"');
  });

  it('keep staff out of keys, leads and the team only', () => {
    const staff = { email: 's@x.co', role: 'staff' as const };
    expect(['overview', 'asks', 'shelf'].every((s) => mayOpen(staff, s as never))).toBe(true);
    expect(['install', 'leads', 'team'].some((s) => mayOpen(staff, s as never))).toBe(false);
    expect(['install', 'leads', 'team'].every((s) => mayOpen({ ...staff, role: 'owner' }, s as never))).toBe(true);
  });
});

describe('the install page of a store that installed a platform app', () => {
  const ctx = (lang: 'ar' | 'en'): PageContext => ({ lang, path: '/console/m/x/install', csrf: 'c', viewer: null });
  const data = (platform: Partial<NonNullable<InstallData['platform']>> & { name: string }): InstallData => ({
    feeds: [],
    keys: [],
    newKey: null,
    scriptTag: '<script src="https://sillage.example/widget/v1/sillage.js" data-key="YOUR_WIDGET_KEY" async></script>',
    keyHint: 'pk_live_YVoK',
    sightings: [],
    events: [],
    problems: [],
    platform: {
      storeId: '42',
      status: 'installed',
      installedAt: NOW,
      uninstalledAt: null,
      hasSetup: false,
      setupAt: null,
      setupError: null,
      ...platform,
    },
  });
  const page = (lang: 'ar' | 'en', d: InstallData) => installPage(ctx(lang), { slug: 'x', name: 'Shop' }, d).value;

  it('names the platform as the language does, and never says a setup the service does not do is under way', () => {
    const ar = page('ar', data({ name: platformName('ar', 'woocommerce') }));
    expect(ar).toContain('تطبيق ووكومرس');
    expect(ar).not.toContain(t('ar', 'platformSetupWaiting'));
    expect(page('ar', data({ name: platformName('ar', 'salla') }))).toContain('ثُبّت من سلة');
    expect(page('en', data({ name: platformName('en', 'zid'), hasSetup: true }))).toContain(
      t('en', 'platformSetupWaiting'),
    );
  });

  it('keeps the script tag out of the way when the app places the widget, and in plain view otherwise', () => {
    const installed = page('en', data({ name: 'Salla' }));
    expect(installed).toMatch(/<details><summary>[^<]*<\/summary>\s*<pre id="script-tag"/);
    const gone = page('en', data({ name: 'Salla', status: 'uninstalled', uninstalledAt: NOW }));
    expect(gone).not.toContain('<details>');
    expect(gone).toContain('<pre id="script-tag"');
  });

  it('puts a failed platform setup first, with its error, and only while the app is installed', () => {
    const failed = { name: 'Zid', status: 'installed', setupError: 'app-scripts: 403' };
    expect(installProblems('en', { ...healthy, platform: failed })).toEqual([
      t('en', 'platformSetupFailed', { p: 'Zid', e: 'app-scripts: 403' }),
    ]);
    expect(installProblems('en', { ...healthy, platform: { ...failed, status: 'uninstalled' } })).toEqual([]);
    expect(installProblems('en', { ...healthy, platform: { ...failed, setupError: null } })).toEqual([]);
  });

  it("tells a platform store its quiz was never seen in the store's own words, not the script tag's", () => {
    const platform = { name: platformName('ar', 'zid'), status: 'installed', setupError: null };
    expect(installProblems('ar', { ...healthy, sightings: [], lastEventAt: null, platform })).toEqual([
      t('ar', 'notSeenPlatform', { p: 'زد' }),
    ]);
  });
});

describe('what a product’s profile rests on, in the shelf and on its page', () => {
  const ctx = (lang: 'ar' | 'en'): PageContext => ({
    lang,
    path: '/console/m/x/shelf/product',
    csrf: 'c',
    viewer: null,
  });
  const product = (over: Partial<ProductData> = {}): ProductData => ({
    id: 'P1',
    name: 'Sahara Plain EDP',
    house: 'Qtest House',
    status: 'matched',
    quality: null,
    perfume: { id: 'qtest-sahara-plain-edp', label: 'Sahara Plain' },
    confidence: 1,
    reason: 'matched',
    pinned: false,
    parsed: {
      words: ['sahara', 'plain'],
      concentration: 'edp',
      house: 'Qtest House',
      kind: 'gift_set',
      alcoholFree: true,
      contents: ['spray', 'oil'],
    },
    candidates: [],
    profile: null,
    record: { grade: null, inspiredBy: null, sources: [] },
    inspiredBy: null,
    toRecommend: ['description', 'inspired_by'],
    answerable: true,
    answer: null,
    q: '',
    searchFor: 'pin',
    results: [],
    ...over,
  });
  const page = (lang: 'ar' | 'en', d: ProductData) => productPage(ctx(lang), { slug: 'x', name: 'Shop' }, d).value;

  it('a word for every quality in both languages, and for a recognised product with none', () => {
    const qualities = ['full', 'unreviewed', 'sibling', 'described', 'partial', 'inspired', 'guessed'] as const;
    for (const lang of ['ar', 'en'] as const) {
      const words = qualities.map((q) => qualityLabel(lang, q, 'matched'));
      expect(new Set(words).size).toBe(qualities.length);
      expect(qualityLabel(lang, null, 'matched')).toBe(t(lang, 'qualityNone'));
      expect(qualityLabel(lang, null, 'unmatched')).toBe(t(lang, 'none'));
      expect(words).not.toContain(t(lang, 'qualityNone'));
    }
  });

  it('says what kind of product it is, what a set holds and that it is alcohol-free, in both languages', () => {
    expect(page('en', product())).toContain(
      '<dd class="product-kind">Gift set: Spray, Perfume oil · alcohol-free, as the listing says</dd>',
    );
    expect(page('ar', product())).toContain(
      '<dd class="product-kind">طقم هدية: عطر بخاخ، دهن أو زيت عطري · بدون كحول، كما يذكر المنتج</dd>',
    );
    const spray = page(
      'en',
      product({
        parsed: { words: ['x'], concentration: null, house: null, kind: 'spray', alcoholFree: false, contents: [] },
      }),
    );
    expect(spray).toContain('<dd class="product-kind">Spray</dd>');
  });

  it('a recognised product with no profile says so, and what would give it one', () => {
    const en = page('en', product());
    expect(en).toContain(t('en', 'qualityNone'));
    expect(en).toContain(t('en', 'gradeNone'));
    expect(en).toContain(t('en', 'toRecommend'));
    expect(en).toContain(t('en', 'toRecommendDescription'));
    expect(en).toContain(t('en', 'toRecommendInspired'));
    expect(en).not.toContain(t('en', 'toRecommendMatch'));
    const ar = page(
      'ar',
      product({ toRecommend: ['match', 'description'], perfume: null, record: null, status: 'unmatched' }),
    );
    expect(ar).toContain(t('ar', 'toRecommendMatch'));
    expect(ar).not.toContain(t('ar', 'grade'));
    // with a profile: no advice
    expect(page('en', product({ quality: 'described', toRecommend: null, answerable: false }))).not.toContain(
      t('en', 'toRecommend'),
    );
  });

  it('the record’s grade, the perfume it is inspired by and its sources, each in the page’s language', () => {
    const d = product({
      quality: 'inspired',
      inspiredBy: 'Aventus',
      toRecommend: null,
      record: {
        grade: 'referenced',
        inspiredBy: 'Aventus',
        sources: [
          {
            source: 'https://shop-one.example/p/1',
            kind: 'shop',
            gave: 'Sahara <b>Answer</b>',
            supports: ['identity', 'inspired_by'],
          },
        ],
      },
    });
    const ar = page('ar', d);
    expect(ar).toContain(t('ar', 'qualityInspired'));
    expect(ar).toContain(t('ar', 'gradeReferenced'));
    expect(ar).toContain(t('ar', 'sources'));
    expect(ar).toContain('https://shop-one.example/p/1');
    expect(ar).toContain('الدار والاسم والتركيز، مستوحى من');
    // what a source gave is escaped
    expect(ar).toContain('Sahara &lt;b&gt;Answer&lt;/b&gt;');
    const en = page('en', {
      ...d,
      record: { ...(d.record as NonNullable<ProductData['record']>), grade: 'confirmed' },
    });
    expect(en).toContain(t('en', 'gradeConfirmed'));
    expect(en).toContain('a shop');
    expect(
      page('en', { ...d, record: { ...(d.record as NonNullable<ProductData['record']>), grade: 'unreviewed' } }),
    ).toContain(t('en', 'gradeUnreviewed'));
    // no sources: no section
    expect(page('en', product({ record: { grade: null, inspiredBy: null, sources: [] } }))).not.toContain(
      `<h2>${t('en', 'sources')}</h2>`,
    );
  });
});
