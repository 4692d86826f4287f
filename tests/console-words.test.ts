import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import type { CatalogPerfume } from '../catalog/types.ts';
import {
  eventName,
  feedKindName,
  formatDay,
  formatMoney,
  formatNumber,
  formatPercent,
  type Lang,
  notPerfumeName,
  t,
} from '../console/i18n.ts';
import { sightingsByVersion, widgetVersionLabel } from '../console/install-check.ts';
import {
  type CatalogNames,
  catalogNames,
  matchReason,
  perfumeLabel,
  type ShownMatch,
  whyText,
} from '../console/names.ts';
import { overviewPage, type PageContext, scaleTop } from '../console/views.ts';
import { MatchWhySchema } from '../contracts/admin.ts';
import { EVENT_TYPES } from '../events/validate.ts';
import { NOT_PERFUME_KINDS } from '../matching/parse.ts';
import { type MatchWhy, type ReasonPerfume, reasonText } from '../matching/reason.ts';

/**
 * The console's words beside the widget's rule for digits: every number as the page's
 * language writes it, every word of a page in that language — the matcher's reasons written from
 * its decision with the catalog's Arabic names, events and outcomes as words — and the chart.
 */

const perfume = (id: string, name: string, nameAr: string | null, concentration: string | null): CatalogPerfume =>
  ({ id, name, nameAr, house: 'Lattafa', houseAr: 'لطافة', concentration }) as CatalogPerfume;
const CATALOG = new Map([
  ['khamrah', perfume('khamrah', 'Khamrah', 'خمرة', 'edp')],
  ['qahwa', perfume('qahwa', 'Khamrah Qahwa', 'خمرة قهوة', 'edp')],
  ['yara', perfume('yara', 'Yara', 'يارا', 'edp')],
]);
const names: CatalogNames = {
  perfume: (id) => CATALOG.get(id),
  houseAr: (house) => (house === 'Lattafa' ? 'لطافة' : null),
};
const ref = (id: string): ReasonPerfume => {
  const p = CATALOG.get(id) as CatalogPerfume;
  return { id, name: p.name, house: p.house, concentration: p.concentration };
};
const LATIN = /[A-Za-z0-9]/;

describe('numbers', () => {
  it('are written with Arabic-Indic digits in Arabic and Latin ones in English, in sentences too', () => {
    expect(formatNumber('ar', 12345)).toBe('١٢٬٣٤٥');
    expect(formatNumber('en', 12345)).toBe('12,345');
    expect(formatNumber('ar', 2.5, 1)).toBe('٢٫٥');
    expect(formatPercent('ar', 0.5, 1)).toMatch(/^٥٠٫٠٪/);
    expect(formatPercent('en', 0.5)).toBe('50%');
    expect(
      formatMoney('ar', 145, 'SAR')
        .replace(/[\u200f\u00a0]/g, ' ')
        .trim(),
    ).toBe('١٤٥٫٠٠ ر.س.');
    expect(formatMoney('en', 145, 'SAR').replace(/\u00a0/g, ' ')).toBe('SAR 145.00');
    // a code Intl does not know: the amount, then the code
    expect(formatMoney('ar', 5, 'xx1')).toBe('٥٫٠٠ xx1');
    expect(formatDay('ar', '2026-11-27')).toBe('٢٧ نوفمبر ٢٠٢٦');
    expect(formatDay('en', '2026-11-27')).toBe('27 Nov 2026');
    expect(formatDay('en', '2026-11-27', true)).toBe('27 Nov');
    expect(t('ar', 'page', { n: 3, m: 1200 })).toBe('صفحة ٣ من ١٬٢٠٠');
    expect(t('en', 'page', { n: 3, m: 1200 })).toBe('Page 3 of 1,200');
    // text is left as it is given
    expect(t('ar', 'revokedUsed', { k: 'pk_live_1234…' })).toContain('pk_live_1234…');
  });
});

describe('words', () => {
  it('name every widget event, every kind of non-perfume and every feed, in both languages', () => {
    for (const lang of ['ar', 'en'] as const) {
      for (const type of EVENT_TYPES) expect(eventName(lang, type), type).not.toMatch(/_/);
      for (const what of NOT_PERFUME_KINDS) expect(notPerfumeName(lang, what), what).not.toBe(what);
      for (const kind of ['shopify', 'shopify_admin', 'shopify_graphql', 'google', 'csv', 'json']) {
        expect(feedKindName(lang, kind), kind).not.toBe(kind);
      }
    }
    for (const type of EVENT_TYPES) expect(eventName('ar', type), type).not.toMatch(/[A-Za-z]/);
    expect(eventName('en', 'purchase_completed')).toBe('Purchase');
    expect(feedKindName('ar', 'salla')).toBe('سلة');
    // a word the console does not know yet is shown as it came, not dropped
    expect(eventName('ar', 'new_event')).toBe('new_event');
  });
});

describe('the matcher’s reasons', () => {
  /** one decision of each kind; `house` and `listing` are the merchant's own text, shown as written */
  const every = (house: string, listing: string): MatchWhy[] => [
    { kind: 'not_perfume', what: 'body care' },
    { kind: 'house_unknown', house },
    { kind: 'house_unknown_no_name', house },
    { kind: 'name_alone_unsure', house, closest: ref('khamrah') },
    { kind: 'house_only' },
    { kind: 'none_in_house', house: 'Lattafa' },
    { kind: 'concentration_missing', perfume: ref('yara'), held: ['edp', null], stated: 'elixir' },
    { kind: 'elixir_only', perfume: ref('yara') },
    { kind: 'oil_only', perfume: ref('yara') },
    { kind: 'too_far', perfume: ref('khamrah'), listing },
    { kind: 'ambiguous', perfume: ref('khamrah'), rival: ref('qahwa') },
    {
      kind: 'matched',
      perfume: ref('khamrah'),
      houseInName: true,
      nameAlone: true,
      lineOriginal: true,
      siblingOf: 'parfum',
    },
  ];

  it('are written in Arabic with the catalog’s Arabic names and the concentrations as words', () => {
    for (const why of every('لوريفا', 'خمره مميزه')) expect(whyText('ar', names, why), why.kind).not.toMatch(LATIN);
    expect(
      whyText('ar', names, { kind: 'concentration_missing', perfume: ref('yara'), held: ['edp'], stated: 'elixir' }),
    ).toBe('يوجد يارا من لطافة بتركيز أو دو بارفان، وليس إليكسير.');
    expect(whyText('ar', names, { kind: 'ambiguous', perfume: ref('khamrah'), rival: ref('qahwa') })).toBe(
      'قد يكون خمرة (أو دو بارفان) من لطافة أو خمرة قهوة (أو دو بارفان) من لطافة: تقاربا فلم نجزم بأحدهما.',
    );
  });

  it('are written in English with the concentrations as words, each qualifier of a match said', () => {
    for (const why of every('Loriva', 'Khamrah special')) {
      expect(whyText('en', names, why), why.kind).not.toMatch(/[\u0600-\u06ff]/);
    }
    expect(whyText('en', names, every('Loriva', '').at(-1) as MatchWhy)).toBe(
      'Matched to Khamrah (Eau de Parfum) by Lattafa. The house was found in the name. No house was given: recognised by its name alone. No concentration is listed: the line’s original. Listed as Parfum, which our catalog lacks: recommended as a close version.',
    );
    expect(
      whyText('en', names, {
        kind: 'concentration_missing',
        perfume: ref('yara'),
        held: ['edp', 'edt'],
        stated: 'elixir',
      }),
    ).toBe('Yara by Lattafa exists as Eau de Parfum, Eau de Toilette, not as Elixir.');
    expect(every('Loriva', 'Khamrah special').map((why) => whyText('en', names, why))).toEqual([
      'Not a perfume: a body care product.',
      'The house “Loriva” is not in our catalog.',
      'The house “Loriva” is not in our catalog, and no perfume of ours has this name.',
      'The house “Loriva” is not in our catalog, and the name alone does not say which perfume it is (the closest: Khamrah (Eau de Parfum) by Lattafa).',
      'The listing names a house but no perfume.',
      'No perfume of Lattafa has this name.',
      'Yara by Lattafa exists as Eau de Parfum, not as Elixir.',
      'We hold Yara by Lattafa as an Elixir only, and the listing names no Elixir.',
      'We hold Yara by Lattafa as a perfume oil only, and the listing is a spray.',
      'The closest is Khamrah (Eau de Parfum) by Lattafa, too far from “Khamrah special”.',
      'It could be Khamrah (Eau de Parfum) by Lattafa or Khamrah Qahwa (Eau de Parfum) by Lattafa: too close to tell apart.',
      'Matched to Khamrah (Eau de Parfum) by Lattafa. The house was found in the name. No house was given: recognised by its name alone. No concentration is listed: the line’s original. Listed as Parfum, which our catalog lacks: recommended as a close version.',
    ]);
    expect(whyText('ar', names, { kind: 'none_in_house', house: 'Lattafa' })).toBe(
      'لا يحمل أي عطر من لطافة هذا الاسم.',
    );
    expect(whyText('en', names, { kind: 'not_perfume', what: 'deodorant' })).toBe('Not a perfume: a deodorant.');
    const plainMatch: MatchWhy = {
      kind: 'matched',
      perfume: ref('yara'),
      houseInName: false,
      nameAlone: false,
      lineOriginal: false,
      siblingOf: null,
    };
    expect(whyText('en', names, plainMatch)).toBe('Matched to Yara (Eau de Parfum) by Lattafa.');
  });

  it('a listing given with no house is said to have none, not a house named ""', () => {
    const none: MatchWhy[] = [
      { kind: 'house_unknown', house: '' },
      { kind: 'house_unknown_no_name', house: '' },
      { kind: 'name_alone_unsure', house: '', closest: ref('khamrah') },
    ];
    expect(none.map((why) => whyText('en', names, why))).toEqual([
      'No house was given, and the listing names no perfume.',
      'No house was given, and no perfume of ours has this name.',
      'No house was given, and the name alone does not say which perfume it is (the closest: Khamrah (Eau de Parfum) by Lattafa).',
    ]);
    expect(none.map((why) => whyText('ar', names, why))).toEqual([
      'لم تُذكر الدار، ولا يذكر المنتج عطرًا.',
      'لم تُذكر الدار، ولا يحمل أي عطر لدينا هذا الاسم.',
      'لم تُذكر الدار، والاسم وحده لا يحدد العطر (الأقرب: خمرة (أو دو بارفان) من لطافة).',
    ]);
    expect(none.map(reasonText)).toEqual([
      'no house given, and the listing names no perfume',
      'no house given, and no perfume of ours is named like this',
      'no house given; the name alone does not say which perfume (closest: Khamrah by Lattafa)',
    ]);
  });

  it('in English, as the admin API gives them, name every concentration a line holds', () => {
    expect(
      reasonText({ kind: 'concentration_missing', perfume: ref('yara'), held: ['edt', 'edp'], stated: 'elixir' }),
    ).toBe('Yara by Lattafa exists as edt, edp, not elixir');
  });

  it('are each of a shape the admin API declares', () => {
    for (const w of every('Loriva', 'Khamrah special')) expect(Value.Check(MatchWhySchema, w), w.kind).toBe(true);
    expect(Value.Check(MatchWhySchema, { kind: 'matched', perfume: ref('yara') })).toBe(false);
  });

  it('read the catalog’s names from its snapshot', () => {
    const fromSnapshot = catalogNames({
      byId: CATALOG,
      houseByName: new Map([
        ['Lattafa', { nameAr: 'لطافة' }],
        ['Creed', { nameAr: null }],
      ]),
    });
    expect(fromSnapshot.perfume('yara')?.nameAr).toBe('يارا');
    expect(fromSnapshot.houseAr('Lattafa')).toBe('لطافة');
    expect(fromSnapshot.houseAr('Creed')).toBeNull();
    expect(fromSnapshot.houseAr('Nobody')).toBeNull();
  });

  it('name a perfume the catalog no longer holds by the names the decision kept', () => {
    const gone: ReasonPerfume = { id: 'gone', name: 'Old Oud', house: 'Lattafa', concentration: 'edt' };
    expect(whyText('ar', names, { kind: 'elixir_only', perfume: gone })).toBe(
      'لدينا Old Oud من لطافة بتركيز إليكسير فقط، والمنتج لا يذكر الإليكسير.',
    );
    expect(perfumeLabel('ar', { ...gone, nameAr: null, houseAr: null })).toBe('Old Oud (أو دو تواليت) من Lattafa');
  });

  const stored: ShownMatch = {
    status: 'matched',
    pinned: false,
    perfumeId: 'khamrah',
    reason: 'Khamrah edp by Lattafa, no concentration listed: the line original',
    previousPerfumeId: null,
    matcher: {
      reason: 'Khamrah edp by Lattafa, no concentration listed: the line original',
      why: {
        kind: 'matched',
        perfume: ref('khamrah'),
        houseInName: false,
        nameAlone: false,
        lineOriginal: true,
        siblingOf: null,
      },
    },
  };
  const reason = (lang: Lang, m: Partial<ShownMatch>) => matchReason(lang, names, { ...stored, ...m });

  it('of a product: the pin, the matcher’s decision when it is the one stored, else what the stored status says', () => {
    expect(reason('ar', {})).toBe(
      'طابقناه مع خمرة (أو دو بارفان) من لطافة. لم يُذكر التركيز: اعتمدنا الإصدار الأصلي من السلسلة.',
    );
    expect(reason('ar', { pinned: true, perfumeId: 'yara' })).toBe('ثُبّت يدويًا على يارا (أو دو بارفان) من لطافة.');
    // a pin to a perfume the catalog no longer has: what the matcher says
    expect(reason('en', { pinned: true, perfumeId: 'gone' })).toBe(
      'Matched to Khamrah (Eau de Parfum) by Lattafa. No concentration is listed: the line’s original.',
    );
    // stored before the matcher read it otherwise: the stored decision, not today's reading, is explained
    const stale: ShownMatch['matcher'] = {
      reason: 'ambiguous between Khamrah and Khamrah Qahwa',
      why: { kind: 'ambiguous', perfume: ref('khamrah'), rival: ref('qahwa') },
    };
    expect(reason('ar', { matcher: stale })).toBe('طابقناه مع خمرة (أو دو بارفان) من لطافة.');
    expect(reason('en', { matcher: stale, status: 'partial', perfumeId: null })).toBe(
      'Not matched to a perfume of ours: profiled from what its listing says.',
    );
    expect(reason('en', { matcher: stale, status: 'unmatched', perfumeId: null })).toBe('Not recognised.');
    expect(reason('en', { matcher: null, reason: null, status: 'unmatched', perfumeId: null })).toBe('Not recognised.');
    expect(reason('en', { matcher: stale, status: 'pending', perfumeId: null })).toBe('Waiting to be matched.');
    expect(reason('ar', { matcher: stale, status: 'pending', perfumeId: null, previousPerfumeId: 'withdrawn-1' })).toBe(
      'سحب دليلنا العطر الذي طوبق معه: ينتظر مطابقة جديدة.',
    );
  });
});

describe('where the widget was seen', () => {
  const at = (m: number) => new Date(Date.UTC(2026, 10, 27, 12, m));
  const row = (widgetVersion: string, requests: number, minute: number, origin = 'https://shop.example') => ({
    keyId: 'k1',
    origin,
    widgetVersion,
    outcome: 'ok',
    requests,
    lastSeenAt: at(minute),
  });

  it('is one row per version however the request named it, requests added and the later time kept', () => {
    expect(widgetVersionLabel('1')).toBe('v1');
    expect(widgetVersionLabel('v1')).toBe('v1');
    expect(widgetVersionLabel('V2')).toBe('v2');
    expect(widgetVersionLabel('2-dev')).toBe('v2-dev');
    expect(sightingsByVersion([row('v1', 3, 5), row('1', 4, 9), row('1', 1, 2, 'https://other.example')])).toEqual([
      row('v1', 7, 9),
      row('v1', 1, 2, 'https://other.example'),
    ]);
    expect(sightingsByVersion([row('1', 4, 9), row('v1', 3, 5)])).toEqual([row('v1', 7, 9)]);
    // another outcome, another key: rows of their own
    expect(sightingsByVersion([row('1', 1, 1), { ...row('1', 1, 1), outcome: 'origin_not_allowed' }])).toHaveLength(2);
    expect(sightingsByVersion([row('1', 1, 1), { ...row('1', 1, 1), keyId: 'k2' }])).toHaveLength(2);
  });
});

describe('the day-by-day chart', () => {
  const ctx = (lang: Lang): PageContext => ({ lang, path: '/console/m/x/', csrf: 'c', viewer: null });
  const days = [
    { day: '2026-11-26', quizzes: 3, clicks: 1, orders: 0, revenue: 0 },
    { day: '2026-11-27', quizzes: 7, clicks: 2, orders: 2, revenue: 290 },
  ];
  const page = (lang: Lang) =>
    overviewPage(ctx(lang), {
      from: '2026-11-26',
      to: '2026-11-27',
      traffic: 'live',
      funnel: [],
      leads: 0,
      revenue: [],
      days,
      attributionWindowDays: 30,
    }).value;

  it('has a scale whose top is a round number with a whole half', () => {
    expect([0, 1, 2, 3, 7, 9, 10, 11, 45, 81, 101, 999].map(scaleTop)).toEqual([
      1, 1, 2, 4, 8, 10, 10, 20, 60, 100, 200, 1000,
    ]);
  });

  it('draws without stretching, with dates, a scale, and each day named by its date and figures', () => {
    const ar = page('ar');
    expect(ar).not.toContain('preserveAspectRatio');
    expect(ar).not.toContain('viewBox');
    expect([...ar.matchAll(/<text class="scale"[^>]*>([^<]*)</g)].map((m) => m[1])).toEqual(['٠', '٤', '٨']);
    expect([...ar.matchAll(/<text class="date"[^>]*>([^<]*)</g)].map((m) => m[1])).toEqual(['٢٦ نوفمبر', '٢٧ نوفمبر']);
    expect(ar).toContain('aria-label="٢٧ نوفمبر ٢٠٢٦ — اختبارات مكتملة: ٧؛ طلبات: ٢"');
    // the last day is the one in the tab order; a dot has one radius, in pixels
    expect([...ar.matchAll(/<g class="day"[^>]*tabindex="(-?\d)"/g)].map((m) => m[1])).toEqual(['-1', '0']);
    expect(ar).toMatch(/<circle class="dot" cx="[\d.]+%" cy="[\d.]+" r="4">/);
    // right to left in Arabic: the first day at the right
    expect(/data-day="2026-11-26"[\s\S]*?<rect class="hit" x="([\d.]+)%"/.exec(ar)?.[1]).toBe('50.000');
    expect(/data-day="2026-11-26"[\s\S]*?<rect class="hit" x="([\d.]+)%"/.exec(page('en'))?.[1]).toBe('0.000');
    expect(page('en')).toContain('aria-label="27 Nov 2026 — quizzes completed: 7; orders: 2"');
  });
});
