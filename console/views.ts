import type { ProfileGrade, ProfileQuality } from '../catalog/types.ts';
import { type Html, html } from '../lib/html.ts';
import { MAX_ANSWER_ACCORDS, MAX_ANSWER_NOTES } from '../matching/answers.ts';
import { PRODUCT_KINDS, type ProductKind } from '../matching/kind.ts';
import { labelOf, type VocabularyKind } from '../vocabulary/index.ts';
import { accordChoices, noteChoices, noteLabel } from './answer-choices.ts';
import {
  eventName,
  evidenceWord,
  feedKindName,
  formatDateTime,
  formatDay,
  formatMoney,
  formatNumber,
  formatPercent,
  formatPlain,
  type Lang,
  listSeparator,
  type MessageKey,
  t,
} from './i18n.ts';
import { concentrationName, houseName, type PerfumeNames, perfumeLabel, perfumeName } from './names.ts';

/**
 * The merchant console's pages, rendered on the server from plain data: no script is needed to use
 * them (one small script of our own adds copy buttons and a confirmation), nothing is loaded from
 * another origin, every value is escaped (lib/html.ts), and every form carries its CSRF token.
 */

export interface Viewer {
  email: string;
  role: 'operator' | 'owner' | 'staff';
}

export interface MerchantRef {
  slug: string;
  name: string;
}

export type Section = 'overview' | 'asks' | 'shelf' | 'install' | 'leads' | 'team';

export interface PageContext {
  lang: Lang;
  /** the path of this page, without its query: the language link returns here */
  path: string;
  /** the query to keep when the language changes */
  query?: string;
  csrf: string;
  viewer: Viewer | null;
  merchant?: MerchantRef;
  section?: Section;
  /** a one-line confirmation or problem shown above the page */
  flash?: { kind: 'ok' | 'error'; text: string } | null;
}

const SECTIONS: { id: Section; label: MessageKey; owner?: boolean }[] = [
  { id: 'overview', label: 'overview' },
  { id: 'asks', label: 'asks' },
  { id: 'shelf', label: 'shelf' },
  { id: 'install', label: 'install', owner: true },
  { id: 'leads', label: 'leads', owner: true },
  { id: 'team', label: 'team', owner: true },
];

/** Whether a viewer may see a section: staff see the figures and the shelf; owners and operators all. */
export const mayOpen = (viewer: Viewer, section: Section) =>
  viewer.role !== 'staff' || !SECTIONS.find((s) => s.id === section)?.owner;

export const base = (m: MerchantRef) => `/console/m/${encodeURIComponent(m.slug)}`;

const csrfField = (ctx: PageContext) => html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;

/**
 * A data table in a box of its own that scrolls sideways on a narrow screen, so the page does not.
 * A box with nothing focusable inside is made a named region that takes focus, so that a keyboard
 * can scroll it too; one whose rows hold links or buttons is reached through them.
 */
function tableBox(table: Html, region: { label: string } | null): Html {
  return region
    ? html`<div class="scroll" role="region" aria-label="${region.label}" tabindex="0">${table}</div>`
    : html`<div class="scroll">${table}</div>`;
}

function withLang(ctx: PageContext, lang: Lang) {
  const q = new URLSearchParams(ctx.query ?? '');
  q.set('lang', lang);
  return `${ctx.path}?${q}`;
}

export function layout(ctx: PageContext, title: string, body: Html | Html[]): Html {
  const { lang } = ctx;
  const other: Lang = lang === 'ar' ? 'en' : 'ar';
  const nav =
    ctx.viewer && ctx.merchant
      ? html`<nav aria-label="${ctx.merchant.name}"><ul class="tabs">${SECTIONS.filter((s) =>
          mayOpen(ctx.viewer as Viewer, s.id),
        ).map(
          (s) =>
            html`<li><a href="${base(ctx.merchant as MerchantRef)}/${s.id === 'overview' ? '' : s.id}"${
              ctx.section === s.id ? html` aria-current="page"` : ''
            }>${t(lang, s.label)}</a></li>`,
        )}</ul></nav>`
      : '';
  return html`<!doctype html>
<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${t(lang, 'console')}</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#content">${t(lang, 'skip')}</a>
<header class="top">
  <p class="brand"><a href="/console">${t(lang, 'console')}</a>${ctx.merchant ? html` · <span>${ctx.merchant.name}</span>` : ''}</p>
  <div class="who">
    <a href="${withLang(ctx, other)}" lang="${other}" hreflang="${other}">${t(lang, 'language')}</a>
    ${
      ctx.viewer
        ? html`<span class="email">${ctx.viewer.email}</span>
    <form method="post" action="/console/sign-out" class="inline">${csrfField(ctx)}<button type="submit" class="link">${t(lang, 'signOut')}</button></form>`
        : ''
    }
  </div>
</header>
${nav}
<main id="content" tabindex="-1">
<h1>${title}</h1>
${ctx.flash ? html`<p class="flash ${ctx.flash.kind}" role="${ctx.flash.kind === 'error' ? 'alert' : 'status'}">${ctx.flash.text}</p>` : ''}
${body}
</main>
</body>
</html>`;
}

// ---------- sign-in and first operator ----------

export function signInPage(ctx: PageContext, email = ''): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'signIn'),
    html`<form method="post" action="/console/sign-in" class="card narrow">
${csrfField(ctx)}
<label for="email">${t(lang, 'email')}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${email}" dir="ltr">
<label for="password">${t(lang, 'password')}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" dir="ltr">
<button type="submit">${t(lang, 'signIn')}</button>
</form>`,
  );
}

export function setupPage(ctx: PageContext): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'setup'),
    html`<p>${t(lang, 'setupIntro')}</p>
<form method="post" action="/console/setup" class="card narrow">
${csrfField(ctx)}
<label for="token">${t(lang, 'adminToken')}</label>
<input id="token" name="token" type="password" autocomplete="off" required maxlength="500" dir="ltr">
<label for="email">${t(lang, 'email')}</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" dir="ltr">
<label for="password">${t(lang, 'password')}</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200" dir="ltr">
<button type="submit">${t(lang, 'create')}</button>
</form>`,
  );
}

export function merchantsPage(ctx: PageContext, merchants: MerchantRef[]): Html {
  return layout(
    ctx,
    t(ctx.lang, 'merchants'),
    html`<ul class="list">${merchants.map((m) => html`<li><a href="${base(m)}/">${m.name}</a> <span class="muted" dir="ltr">${m.slug}</span></li>`)}</ul>`,
  );
}

/** An error as a page: its title, what went wrong when that says more than the title, its status, the way back. */
export function errorPage(ctx: PageContext, status: number, message: string): Html {
  const title =
    status === 404 ? t(ctx.lang, 'notFound') : status === 403 ? t(ctx.lang, 'forbidden') : t(ctx.lang, 'error');
  return layout(
    ctx,
    title,
    html`${message && message !== title ? html`<p>${message}</p>` : ''}<p class="muted">${formatPlain(ctx.lang, status)}</p><p><a href="/console">${t(ctx.lang, 'home')}</a></p>`,
  );
}

// ---------- the app's page in Salla's dashboard ----------

export type DashboardView =
  | {
      state: 'ok';
      store: string;
      /** products, those matched to a catalogue perfume with a scent profile, and those profiled from their listing alone */
      shelf: { total: number; matched: number; partial: number };
      /** the one-time link into the console and whom it signs in, or why there is none */
      enter: { href: string; email: string } | { refused: 'not_installer' | 'no_account' };
    }
  | { state: 'refresh' | 'error'; message: string };

/**
 * The app's page inside a Salla store's dashboard (an iframe): the store's shelf in one line and a
 * button into the console. Not the console's layout: no navigation, no forms, nothing to sign out
 * of; its script (`/console/salla/dashboard.js`) tells Salla's dashboard the page is ready, and
 * asks it for a fresh token when the page says `refresh`.
 */
export function sallaDashboardPage(lang: Lang, d: DashboardView): Html {
  const body =
    d.state === 'ok'
      ? html`<p>${t(lang, 'dashboardStore', { s: d.store })}</p>
<p>${d.shelf.total === 0 ? t(lang, 'dashboardImporting') : t(lang, 'dashboardShelf', { n: d.shelf.total, m: d.shelf.matched, p: d.shelf.partial })}</p>
${
  'href' in d.enter
    ? html`<p><a class="button" data-open href="${d.enter.href}" target="_blank" rel="noopener noreferrer">${t(lang, 'dashboardOpen')}</a></p>
<p class="muted">${t(lang, 'dashboardOpenHint', { e: d.enter.email })}</p>`
    : html`<p class="problem">${t(lang, d.enter.refused === 'not_installer' ? 'dashboardNotInstaller' : 'dashboardNoOwner')}</p>`
}`
      : html`<p class="problem" role="alert">${d.message}</p>${
          d.state === 'refresh'
            ? html`<p><button type="button" data-refresh>${t(lang, 'dashboardRetry')}</button></p>`
            : ''
        }`;
  return html`<!doctype html>
<html lang="${lang}" dir="${lang === 'ar' ? 'rtl' : 'ltr'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t(lang, 'dashboardTitle')}</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/salla/dashboard.js" defer></script>
</head>
<body data-embedded="${d.state}">
<main id="content">
<h1>${t(lang, 'dashboardTitle')}</h1>
${body}
</main>
</body>
</html>`;
}

/** The one-time link's page: who is about to be signed in, to which store, and a button that does it. */
export function enterPage(ctx: PageContext, d: { store: string; email: string; ticket: string }): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'dashboardTitle'),
    html`<form method="post" action="/console/salla/enter" class="card narrow">
${csrfField(ctx)}
<input type="hidden" name="ticket" value="${d.ticket}">
<p>${t(lang, 'enterConfirm', { s: d.store, e: d.email })}</p>
<button type="submit">${t(lang, 'enterContinue')}</button>
</form>`,
  );
}

/**
 * The WooCommerce connection's last step: the store is connected; the admin opens its console, as
 * the email the plugin sent, with the button (a form, with its CSRF token), or goes back to the
 * store without signing in. A link alone signs nobody in.
 */
export function wooConnectedPage(
  ctx: PageContext,
  d: { store: string; email: string; token: string; back: string },
): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'dashboardTitle'),
    html`<form method="post" action="/console/woocommerce/return" class="card narrow">
${csrfField(ctx)}
<input type="hidden" name="user_id" value="${d.token}">
<p>${t(lang, 'wooConnected', { s: d.store })}</p>
<p>${t(lang, 'enterConfirm', { s: d.store, e: d.email })}</p>
<button type="submit">${t(lang, 'enterContinue')}</button>
<p><a href="${d.back}">${t(lang, 'wooBackToStore')}</a></p>
</form>`,
  );
}

// ---------- overview ----------

export interface OverviewData {
  from: string;
  to: string;
  traffic: 'live' | 'test';
  funnel: { key: MessageKey; count: number }[];
  leads: number;
  revenue: { currency: string; orders: number; revenue: number }[];
  days: { day: string; quizzes: number; clicks: number; orders: number; revenue: number }[];
  attributionWindowDays: number;
}

function periodForm(ctx: PageContext, d: { from: string; to: string; traffic: 'live' | 'test' }): Html {
  const { lang } = ctx;
  return html`<form method="get" action="${ctx.path}" class="period">
<label>${t(lang, 'from')} <input type="date" name="from" value="${d.from}" required></label>
<label>${t(lang, 'to')} <input type="date" name="to" value="${d.to}" required></label>
<label>${t(lang, 'traffic')} <select name="traffic">
  <option value="live"${d.traffic === 'live' ? html` selected` : ''}>${t(lang, 'live')}</option>
  <option value="test"${d.traffic === 'test' ? html` selected` : ''}>${t(lang, 'test')}</option>
</select></label>
<button type="submit">${t(lang, 'show')}</button>
</form>`;
}

/** The top of a chart's scale: 1, or the smallest of 2, 4, 6, 8 × 10ⁿ at or above `max` (its half is a whole number too). */
export function scaleTop(max: number): number {
  if (max <= 1) return 1;
  for (let unit = 1; ; unit *= 10) {
    for (const k of [2, 4, 6, 8, 10]) if (k * unit >= max) return k * unit;
  }
}

/** At most this many dates under the chart, the last day's always among them. */
const CHART_DATES = 6;

/**
 * Quizzes completed per day as bars, orders as dots, drawn on the server. Horizontal positions are
 * shares of the width and vertical ones pixels, so the chart fills any width without stretching
 * (a dot stays round); the scale's figures stand in the box's margin at the start, the dates under
 * the bars. Each day says its date and figures on hover and on focus (one day in the tab order, the
 * arrow keys move between days: console.js), and is named by them for a screen reader; the table
 * under the chart repeats every figure.
 */
function chart(lang: Lang, days: OverviewData['days']): Html {
  const H = 200;
  /** a band above the bars for the day's readout, two lines */
  const TOP = 40;
  /** a band under them for the dates */
  const BOTTOM = 22;
  const plot = H - TOP - BOTTOM;
  const n = Math.max(1, days.length);
  const top = scaleTop(Math.max(0, ...days.map((d) => Math.max(d.quizzes, d.orders))));
  const y = (v: number) => TOP + plot - (v / top) * plot;
  const step = 100 / n;
  // right to left in Arabic: the first day at the right edge
  const start = (i: number) => (lang === 'ar' ? 100 - (i + 1) * step : i * step);
  const pct = (x: number) => `${x.toFixed(3)}%`;
  const ticks = top === 1 ? [0, 1] : [0, top / 2, top];
  const every = Math.ceil(n / CHART_DATES);
  const edge = lang === 'ar' ? '100%' : '0';
  return html`<figure class="chart">
<div class="plot-box">
<svg class="plot" width="100%" height="${H}" role="group" aria-labelledby="chart-title">
<title id="chart-title">${t(lang, 'chart')}</title>
${ticks.map(
  (v) =>
    html`<line class="grid" x1="0" x2="100%" y1="${y(v)}" y2="${y(v)}"></line><text class="scale" x="${edge}" dx="${lang === 'ar' ? 6 : -6}" y="${y(v)}" dy="4" text-anchor="end">${formatNumber(lang, v)}</text>`,
)}
${days.map((d, i) => {
  const x = start(i);
  const label = t(lang, 'chartDay', { d: formatDay(lang, d.day), q: d.quizzes, o: d.orders });
  return html`<g class="day" data-day="${d.day}" role="img" aria-label="${label}" tabindex="${i === days.length - 1 ? 0 : -1}">
<rect class="hit" x="${pct(x)}" y="${TOP}" width="${pct(step)}" height="${plot}"></rect>
<rect class="bar" x="${pct(x + step * 0.15)}" y="${y(d.quizzes).toFixed(1)}" width="${pct(step * 0.7)}" height="${(TOP + plot - y(d.quizzes)).toFixed(1)}"></rect>${
    d.orders > 0
      ? html`<circle class="dot" cx="${pct(x + step / 2)}" cy="${y(d.orders).toFixed(1)}" r="4"></circle>`
      : ''
  }${
    (n - 1 - i) % every === 0
      ? html`<text class="date" x="${pct(x + step / 2)}" y="${H - 6}" text-anchor="middle">${formatDay(lang, d.day, true)}</text>`
      : ''
  }
<text class="tip" x="${edge}" y="15" text-anchor="start"><tspan x="${edge}">${formatDay(lang, d.day)}</tspan><tspan x="${edge}" dy="18">${t(lang, 'completions')}: ${formatNumber(lang, d.quizzes)} · ${t(lang, 'purchases')}: ${formatNumber(lang, d.orders)}</tspan></text>
</g>`;
})}
</svg>
</div>
<figcaption><span class="key bar-key"></span> ${t(lang, 'completions')} <span class="key dot-key"></span> ${t(lang, 'purchases')}</figcaption>
</figure>`;
}

export function overviewPage(ctx: PageContext, d: OverviewData): Html {
  const { lang } = ctx;
  // an amount and its currency stay on one line ("١٤٥٫٠٠ ر.س." is never cut before its dot)
  const revenue =
    d.revenue.length === 0
      ? t(lang, 'noRevenue')
      : d.revenue.map(
          (r, i) => html`${i > 0 ? ' · ' : ''}<span class="amount">${formatMoney(lang, r.revenue, r.currency)}</span>`,
        );
  const orders = d.revenue.reduce((a, r) => a + r.orders, 0);
  const figure = (key: MessageKey, value: string | Html | Html[], id: string) =>
    html`<div class="figure"><dt>${t(lang, key)}</dt><dd data-figure="${id}">${value}</dd></div>`;
  const count = (key: MessageKey) => d.funnel.find((f) => f.key === key)?.count ?? 0;
  return layout(
    ctx,
    t(lang, 'overview'),
    html`${periodForm(ctx, d)}
<dl class="figures">
${figure('views', formatNumber(lang, count('views')), 'views')}
${figure('starts', formatNumber(lang, count('starts')), 'starts')}
${figure('completions', formatNumber(lang, count('completions')), 'completions')}
${figure('clicks', formatNumber(lang, count('clicks')), 'clicks')}
${figure('leadsCount', formatNumber(lang, d.leads), 'leads')}
${figure('purchases', formatNumber(lang, orders), 'orders')}
${figure('revenue', revenue, 'revenue')}
</dl>
<p class="muted">${t(lang, 'attributionRule', { d: d.attributionWindowDays })}</p>
<h2>${t(lang, 'funnel')}</h2>
${tableBox(
  html`<table class="data">
<thead><tr><th scope="col">${t(lang, 'step')}</th><th scope="col">${t(lang, 'count')}</th><th scope="col">${t(lang, 'ofPrevious')}</th></tr></thead>
<tbody>${d.funnel.map((f, i) => {
    const prev = i > 0 ? (d.funnel[i - 1] as { count: number }).count : 0;
    return html`<tr><th scope="row">${t(lang, f.key)}</th><td>${formatNumber(lang, f.count)}</td><td>${
      i > 0 && prev > 0 ? formatPercent(lang, f.count / prev, 1) : '—'
    }</td></tr>`;
  })}</tbody>
</table>`,
  { label: t(lang, 'funnel') },
)}
<h2>${t(lang, 'overTime')}</h2>
${chart(lang, d.days)}
<details><summary>${t(lang, 'overTime')}</summary>
${tableBox(
  html`<table class="data">
<thead><tr><th scope="col">${t(lang, 'day')}</th><th scope="col">${t(lang, 'completions')}</th><th scope="col">${t(lang, 'clicks')}</th><th scope="col">${t(lang, 'purchases')}</th></tr></thead>
<tbody>${d.days.map((x) => html`<tr><th scope="row">${formatDay(lang, x.day)}</th><td>${formatNumber(lang, x.quizzes)}</td><td>${formatNumber(lang, x.clicks)}</td><td>${formatNumber(lang, x.orders)}</td></tr>`)}</tbody>
</table>`,
  { label: t(lang, 'overTime') },
)}</details>`,
  );
}

// ---------- what shoppers ask for ----------

export interface Counted {
  label: string;
  n: number;
}

export interface AsksData {
  from: string;
  to: string;
  traffic: 'live' | 'test';
  families: Counted[];
  loved: Counted[];
  avoided: Counted[];
  seasons: Counted[];
  occasions: Counted[];
  lovedPerfumes: Counted[];
  recommended: Counted[];
  clicked: Counted[];
  bought: Counted[];
  /** quizzes the service scored in the period (what the tables count), and the widget's completion events */
  scored: number;
  completed: number;
  /** of the scored quizzes, the gift path's (quiz.gift), by recipient */
  gifts: { total: number; him: number; her: number; anyone: number };
}

/** A vocabulary slug in the page's language. */
export const term = (lang: Lang, kind: VocabularyKind, slug: string) => labelOf(kind, slug, lang) ?? slug;

function countedTable(lang: Lang, title: MessageKey, head: MessageKey, unit: MessageKey, rows: Counted[]): Html {
  return html`<section class="card">
<h2>${t(lang, title)}</h2>
${
  rows.length === 0
    ? html`<p class="muted">${t(lang, 'nothingYet')}</p>`
    : tableBox(
        html`<table class="data"><thead><tr><th scope="col">${t(lang, head)}</th><th scope="col">${t(lang, unit)}</th></tr></thead>
<tbody>${rows.map((r) => html`<tr><td>${r.label}</td><td>${formatNumber(lang, r.n)}</td></tr>`)}</tbody></table>`,
        { label: t(lang, title) },
      )
}
</section>`;
}

export function asksPage(ctx: PageContext, d: AsksData): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'asks'),
    html`${periodForm(ctx, d)}
<dl class="figures"><div class="figure"><dt>${t(lang, 'scoredQuizzes')}</dt><dd data-figure="scored">${formatNumber(lang, d.scored)}</dd></div><div class="figure"><dt>${t(lang, 'giftQuizzes')}</dt><dd data-figure="gifts">${formatNumber(lang, d.gifts.total)}</dd></div></dl>
<p class="muted" data-note="scored">${t(lang, 'scoredNote', { n: d.scored, m: d.completed })}</p>
<p class="muted" data-note="gifts">${t(lang, 'giftNote', { him: formatNumber(lang, d.gifts.him), her: formatNumber(lang, d.gifts.her), anyone: formatNumber(lang, d.gifts.anyone) })}</p>
<div class="grid">
${countedTable(lang, 'families', 'name', 'sessions', d.families)}
${countedTable(lang, 'lovedAccords', 'name', 'sessions', d.loved)}
${countedTable(lang, 'avoidedAccords', 'name', 'sessions', d.avoided)}
${countedTable(lang, 'seasons', 'name', 'sessions', d.seasons)}
${countedTable(lang, 'occasions', 'name', 'sessions', d.occasions)}
${countedTable(lang, 'lovedPerfumes', 'perfume', 'sessions', d.lovedPerfumes)}
${countedTable(lang, 'topRecommended', 'product', 'times', d.recommended)}
${countedTable(lang, 'topClicked', 'product', 'clicks', d.clicked)}
${countedTable(lang, 'topBought', 'product', 'quantity', d.bought)}
</div>`,
  );
}

// ---------- the shelf ----------

export type ShelfFilter = 'all' | 'unmatched' | 'no_profile' | 'partial' | 'sibling' | 'low' | 'pinned';
export const SHELF_FILTERS: { id: ShelfFilter; label: MessageKey }[] = [
  { id: 'all', label: 'allProducts' },
  { id: 'unmatched', label: 'unmatched' },
  { id: 'no_profile', label: 'noProfile' },
  { id: 'partial', label: 'partial' },
  { id: 'sibling', label: 'sibling' },
  { id: 'low', label: 'lowConfidence' },
  { id: 'pinned', label: 'pinnedFilter' },
];

export interface ShelfRow {
  id: string;
  name: string;
  house: string;
  status: string;
  /** what its profile rests on; null: none (a matched one is then recognised, not recommended) */
  quality: ProfileQuality | null;
  perfume: string | null;
  confidence: number | null;
  reason: string | null;
  pinned: boolean;
  /** the matcher's closest candidate, for a product not matched in full */
  suggestion: { id: string; name: string; score: number } | null;
  /** with no profile, the one thing that would make it recommendable (shelfFix); null with one */
  fix: ShelfFix | null;
}

/**
 * What the shelf offers to make a product without a profile recommendable: match one not recognised;
 * for a perfume we know, say what it is inspired by or tick its notes — only its notes when our
 * catalog already names its original (that one has no profile to lend).
 */
export type ShelfFix = 'match' | 'answer' | 'notes';
const FIX_WORDS: Record<ShelfFix, MessageKey> = { match: 'fixMatch', answer: 'fixAnswer', notes: 'fixNotes' };
/** Where on the product's page each fix is made. */
const FIX_ANCHOR: Record<ShelfFix, string> = { match: 'find', answer: 'answer', notes: 'notes' };

/** The fix for a product, from what would give it a profile (services/products.ts toRecommend). */
export function shelfFix(
  toRecommend: readonly ('description' | 'inspired_by' | 'match')[] | null,
  catalogNamesOriginal: boolean,
): ShelfFix | null {
  if (!toRecommend) return null;
  if (toRecommend.includes('match')) return 'match';
  return catalogNamesOriginal ? 'notes' : 'answer';
}

export interface ShelfData {
  filter: ShelfFilter;
  q: string;
  counts: Record<ShelfFilter, number>;
  rows: ShelfRow[];
  page: number;
  pages: number;
}

const QUALITY_WORDS: Record<ProfileQuality, MessageKey> = {
  full: 'qualityFull',
  unreviewed: 'qualityUnreviewed',
  sibling: 'qualitySibling',
  shops: 'qualityShops',
  described: 'qualityDescribed',
  partial: 'qualityPartial',
  inspired: 'qualityInspired',
  guessed: 'qualityGuessed',
};
/** What a product's profile rests on, in words; a product recognised without one says it is not recommended. */
export const qualityLabel = (lang: Lang, q: ShelfRow['quality'], status: string) =>
  t(lang, q ? QUALITY_WORDS[q] : status === 'matched' ? 'qualityNone' : 'none');

const GRADE_WORDS: Record<ProfileGrade, MessageKey> = {
  confirmed: 'gradeConfirmed',
  referenced: 'gradeReferenced',
  unreviewed: 'gradeUnreviewed',
};

const pct = (lang: Lang, x: number | null) => (x === null ? '—' : formatPercent(lang, x));

export function shelfPage(ctx: PageContext, m: MerchantRef, d: ShelfData): Html {
  const { lang } = ctx;
  const link = (filter: ShelfFilter, page = 1) => {
    const q = new URLSearchParams();
    if (filter !== 'all') q.set('filter', filter);
    if (d.q) q.set('q', d.q);
    if (page > 1) q.set('page', String(page));
    const s = q.toString();
    return `${base(m)}/shelf${s ? `?${s}` : ''}`;
  };
  const suggestions = d.rows.filter((r) => r.suggestion && !r.pinned);
  return layout(
    ctx,
    t(lang, 'shelf'),
    html`<nav aria-label="${t(lang, 'shelf')}"><ul class="filters">${SHELF_FILTERS.map(
      (f) =>
        html`<li><a href="${link(f.id)}"${d.filter === f.id ? html` aria-current="page"` : ''}>${t(lang, f.label)} <span class="badge">${formatNumber(lang, d.counts[f.id])}</span></a></li>`,
    )}</ul></nav>
<form method="get" action="${base(m)}/shelf" class="search" role="search">
${d.filter !== 'all' ? html`<input type="hidden" name="filter" value="${d.filter}">` : ''}
<label for="shelf-q">${t(lang, 'searchShelf')}</label>
<input id="shelf-q" name="q" type="search" value="${d.q}" maxlength="200">
<button type="submit">${t(lang, 'search')}</button>
</form>
<form method="post" action="${base(m)}/shelf/accept">
${csrfField(ctx)}
<div class="scroll"><table class="data shelf">
<thead><tr>${suggestions.length > 0 ? html`<th scope="col"><span class="sr">${t(lang, 'accept')}</span></th>` : ''}<th scope="col">${t(lang, 'product')}</th><th scope="col">${t(lang, 'perfume')}</th><th scope="col">${t(lang, 'quality')}</th><th scope="col">${t(lang, 'confidence')}</th><th scope="col">${t(lang, 'why')}</th><th scope="col">${t(lang, 'suggestion')}</th></tr></thead>
<tbody>${d.rows.map((r) => {
      const href = `${base(m)}/shelf/product?id=${encodeURIComponent(r.id)}`;
      const offer = r.suggestion && !r.pinned ? r.suggestion : null;
      return html`<tr data-product="${r.id}">${
        suggestions.length > 0
          ? html`<td>${
              offer
                ? html`<input type="checkbox" name="accept" value="${r.id}" id="acc-${r.id}" aria-label="${t(lang, 'accept')}: ${offer.name} → ${r.name}">`
                : ''
            }</td>`
          : ''
      }<td><a href="${href}">${r.name}</a><br><span class="muted">${r.house}</span></td>
<td>${r.perfume ?? html`<span class="muted">${t(lang, 'none')}</span>`}${r.pinned ? html` <span class="badge">${t(lang, 'pinned')}</span>` : ''}</td>
<td>${qualityLabel(lang, r.quality, r.status)}</td><td>${pct(lang, r.confidence)}</td><td class="why">${r.reason ?? ''}</td>
<td>${offer ? html`${offer.name} <span class="muted">${pct(lang, offer.score)}</span>` : ''} ${
        r.fix
          ? html`<a href="${href}#${FIX_ANCHOR[r.fix]}" data-fix="${r.fix}">${t(lang, FIX_WORDS[r.fix])}</a>`
          : html`<a href="${href}">${t(lang, 'fix')}</a>`
      }</td></tr>`;
    })}</tbody></table></div>
${suggestions.length > 0 ? html`<button type="submit">${t(lang, 'acceptSelected')}</button>` : ''}
</form>
<nav aria-label="${t(lang, 'page', { n: d.page, m: d.pages })}" class="pager">
${d.page > 1 ? html`<a href="${link(d.filter, d.page - 1)}" rel="prev">${t(lang, 'previous')}</a>` : ''}
<span>${t(lang, 'page', { n: d.page, m: d.pages })}</span>
${d.page < d.pages ? html`<a href="${link(d.filter, d.page + 1)}" rel="next">${t(lang, 'next')}</a>` : ''}
</nav>`,
  );
}

export interface ProductData {
  id: string;
  name: string;
  house: string;
  status: string;
  quality: ShelfRow['quality'];
  /** the perfume it is matched or pinned to, named in the page's language */
  perfume: { id: string; label: string } | null;
  confidence: number | null;
  /** why, in the page's language */
  reason: string | null;
  pinned: boolean;
  /** the listing's words as read; the house found (named in the page's language) and the concentration's slug */
  parsed: {
    words: string[];
    concentration: string | null;
    house: string | null;
    /** the kind as the listing reads */
    kind: ProductKind;
    /** the merchant's correction of the kind (the kind in force when set); null or absent: as read */
    kindOverride?: ProductKind | null;
    alcoholFree: boolean;
    contents: ProductKind[];
  };
  candidates: { id: string; name: string; score: number }[];
  profile: { accords: string[]; families: string[] } | null;
  /** the matched perfume's record: its profile's grade, the perfume it is inspired by and its sources */
  record: {
    grade: ProfileGrade | null;
    inspiredBy: string | null;
    sources: { source: string; kind: string; gave: string; supports: string[] }[];
  } | null;
  /** for quality inspired: the perfume whose profile it takes, named in the page's language */
  inspiredBy: string | null;
  /** with no profile: what would give it one (services/products.ts toRecommend) */
  toRecommend: ('description' | 'inspired_by' | 'match')[] | null;
  /** whether the merchant may say what it smells like here: it has no profile, or its answer gives it one */
  answerable: boolean;
  /** the merchant's own answer, its perfume named in the page's language */
  answer: { inspiredBy: { id: string; label: string } | null; notes: string[]; accords: string[] } | null;
  /** the boxes ticked in a form refused (shown ticked again), instead of the answer's */
  ticked?: { notes: string[]; accords: string[] };
  q: string;
  /** what the search is for: pinning the perfume it is, or naming the one it is inspired by */
  searchFor: 'pin' | 'inspired';
  /** the catalog's perfumes found; grade null: an identity without a profile of its own */
  results: (PerfumeNames & { id: string; year: number | null; grade: ProfileGrade | null })[];
}

export function productPage(ctx: PageContext, m: MerchantRef, d: ProductData): Html {
  const { lang } = ctx;
  const pinForm = (id: string, label: string) =>
    html`<form method="post" action="${base(m)}/shelf/pin" class="inline">${csrfField(ctx)}<input type="hidden" name="product" value="${d.id}"><input type="hidden" name="perfume" value="${id}"><button type="submit" aria-label="${t(lang, 'pin')}: ${label}">${t(lang, 'pin')}</button></form>`;
  const pinResults = d.searchFor === 'pin' || !d.answerable;
  return layout(
    ctx,
    d.name,
    html`<p><a href="${base(m)}/shelf">${t(lang, 'back')}</a></p>
<dl class="facts">
<dt>${t(lang, 'house')}</dt><dd>${d.house || '—'}</dd>
<dt>${t(lang, 'perfume')}</dt><dd data-perfume="${d.perfume?.id ?? ''}">${d.perfume ? d.perfume.label : t(lang, 'none')}${d.pinned ? html` <span class="badge">${t(lang, 'pinned')}</span>` : ''}</dd>
<dt>${t(lang, 'quality')}</dt><dd data-quality="${d.quality ?? ''}">${qualityLabel(lang, d.quality, d.status)}${d.inspiredBy ? html` (${d.inspiredBy})` : ''}</dd>
<dt>${t(lang, 'confidence')}</dt><dd>${pct(lang, d.confidence)}</dd>
<dt>${t(lang, 'why')}</dt><dd data-reason>${d.reason ?? '—'}</dd>
${d.profile ? html`<dt>${t(lang, 'profile')}</dt><dd>${d.profile.accords.map((a) => term(lang, 'accord', a)).join(listSeparator(lang))}</dd>` : ''}
${d.record ? html`<dt>${t(lang, 'grade')}</dt><dd data-grade="${d.record.grade ?? ''}">${t(lang, d.record.grade ? GRADE_WORDS[d.record.grade] : 'gradeNone')}</dd>` : ''}
${d.record?.inspiredBy ? html`<dt>${t(lang, 'inspiredBy')}</dt><dd>${d.record.inspiredBy}</dd>` : ''}
</dl>
${
  d.toRecommend
    ? html`<section class="card" data-to-recommend><p>${t(lang, 'toRecommend')}</p><ul class="list">${d.toRecommend.map(
        (k) =>
          html`<li>${t(lang, k === 'description' ? 'toRecommendDescription' : k === 'inspired_by' ? 'toRecommendInspired' : 'toRecommendMatch')}</li>`,
      )}${d.answerable ? html`<li>${t(lang, 'toRecommendAnswer')}</li>` : ''}</ul></section>`
    : ''
}
${
  d.record && d.record.sources.length > 0
    ? html`<section class="card"><h2>${t(lang, 'sources')}</h2><ul class="list sources">${d.record.sources.map(
        (e) =>
          html`<li><span>${evidenceWord(lang, e.kind)}</span>: <q dir="auto">${e.gave}</q> <span class="muted">${t(lang, 'sourceSupports', { f: e.supports.map((f) => evidenceWord(lang, f)).join(listSeparator(lang)) })}</span><br><span class="muted source" dir="ltr">${e.source}</span></li>`,
      )}</ul></section>`
    : ''
}
${d.answerable ? answerSection(ctx, m, d) : ''}
${d.pinned ? html`<form method="post" action="${base(m)}/shelf/unpin">${csrfField(ctx)}<input type="hidden" name="product" value="${d.id}"><button type="submit">${t(lang, 'unpin')}</button></form>` : ''}
<section class="card"><h2>${t(lang, 'readAs')}</h2>
<dl class="facts"><dt>${t(lang, 'words')}</dt><dd dir="auto">${d.parsed.words.join(' ')}</dd>
<dt>${t(lang, 'house')}</dt><dd>${d.parsed.house ?? '—'}</dd>
<dt>${t(lang, 'concentration')}</dt><dd>${d.parsed.concentration ? concentrationName(lang, d.parsed.concentration) : '—'}</dd>
<dt>${t(lang, 'productKind')}</dt>${kindFacts(lang, d.parsed)}</dl>
${kindForm(ctx, m, d)}
${
  d.candidates.length > 0
    ? html`<h3>${t(lang, 'candidates')}</h3><ul class="list">${d.candidates.map(
        (c) => html`<li>${c.name} <span class="muted">${pct(lang, c.score)}</span> ${pinForm(c.id, c.name)}</li>`,
      )}</ul>`
    : ''
}
</section>
<section class="card"><h2 id="find">${t(lang, 'findPerfume')}</h2>
<form method="get" action="${base(m)}/shelf/product#find" role="search">
<input type="hidden" name="id" value="${d.id}">
<label for="perfume-q" class="sr">${t(lang, 'findPerfume')}</label>
<input id="perfume-q" name="q" type="search" value="${d.q}" maxlength="200" dir="auto">
<button type="submit">${t(lang, 'search')}</button>
</form>
${
  d.q && pinResults
    ? d.results.length === 0
      ? html`<p>${t(lang, 'noResults')}</p>`
      : html`<ul class="list results">${d.results.map(
          (r) =>
            html`<li><span>${perfumeName(lang, r)}</span> <span class="muted">${houseName(lang, r)}${r.concentration ? ` · ${concentrationName(lang, r.concentration)}` : ''}${r.year ? ` · ${formatPlain(lang, r.year)}` : ''}</span> ${pinForm(r.id, perfumeLabel(lang, r))}</li>`,
        )}</ul>`
    : ''
}
</section>`,
  );
}

/**
 * A product's kind: the merchant's correction when there is one, else as its listing reads (a set
 * with the kinds its listing names), and whether its listing says it is alcohol-free; then which of
 * the two the kind is (data-kind-from: shop, listing), with what was read beside a correction.
 */
function kindFacts(lang: Lang, p: ProductData['parsed']): Html {
  const corrected = p.kindOverride ?? null;
  const kind = corrected ?? p.kind;
  const contents =
    kind === 'gift_set' && p.contents.length > 0
      ? `: ${p.contents.map((k) => t(lang, `kind_${k}`)).join(listSeparator(lang))}`
      : '';
  const from = corrected
    ? `${t(lang, 'kindCorrected')} (${t(lang, 'kindReadWas', { k: t(lang, `kind_${p.kind}`) })})`
    : t(lang, 'kindRead');
  return html`<dd class="product-kind">${t(lang, `kind_${kind}`)}${contents}${p.alcoholFree ? ` · ${t(lang, 'alcoholFree')}` : ''}</dd><dd class="muted" data-kind="${kind}" data-kind-from="${corrected ? 'shop' : 'listing'}">${from}</dd>`;
}

/**
 * The merchant's correction of a product's kind (POST /shelf/kind): every kind, the one in force
 * selected, and the kind as the listing reads it, which clears the correction.
 */
function kindForm(ctx: PageContext, m: MerchantRef, d: ProductData): Html {
  const { lang } = ctx;
  const corrected = d.parsed.kindOverride ?? null;
  const option = (value: string, label: string, selected: boolean) =>
    html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
  return html`<form method="post" action="${base(m)}/shelf/kind" id="kind" class="kind">${csrfField(ctx)}<input type="hidden" name="product" value="${d.id}">
<label for="product-kind">${t(lang, 'kindChange')}</label>
<select id="product-kind" name="kind">${option('', t(lang, 'kindFromListing', { k: t(lang, `kind_${d.parsed.kind}`) }), corrected === null)}${PRODUCT_KINDS.map((k) => option(k, t(lang, `kind_${k}`), corrected === k))}</select>
<button type="submit">${t(lang, 'kindSave')}</button>
</form>`;
}

/**
 * The merchant's answer for a product without a profile (POST /shelf/answer): the perfume it is
 * inspired by, found by a search of our catalog, or its main notes and accords ticked; what becomes
 * of the answer; the answer now, and clearing it. Each form keeps the rest of the answer as it is.
 */
function answerSection(ctx: PageContext, m: MerchantRef, d: ProductData): Html {
  const { lang } = ctx;
  const a = d.answer;
  const action = `${base(m)}/shelf/answer`;
  const field = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`;
  const product = field('product', d.id);
  const keepItems = a ? [...a.notes.map((n) => field('notes', n)), ...a.accords.map((x) => field('accords', x))] : [];
  const keepOriginal = a?.inspiredBy ? field('inspired_by', a.inspiredBy.id) : '';
  const sep = listSeparator(lang);
  const tickedNotes = d.ticked?.notes ?? a?.notes ?? [];
  const tickedAccords = d.ticked?.accords ?? a?.accords ?? [];
  const now = a
    ? [
        a.inspiredBy ? t(lang, 'answerInspiredNow', { p: a.inspiredBy.label }) : null,
        a.notes.length > 0 ? t(lang, 'answerNotesNow', { l: a.notes.map((n) => noteLabel(lang, n)).join(sep) }) : null,
        a.accords.length > 0
          ? t(lang, 'answerAccordsNow', { l: a.accords.map((x) => term(lang, 'accord', x)).join(sep) })
          : null,
      ].filter((x) => x !== null)
    : [];
  const box = (name: 'notes' | 'accords', c: { slug: string; label: string }, ticked: readonly string[]) =>
    html`<label><input type="checkbox" name="${name}" value="${c.slug}"${ticked.includes(c.slug) ? html` checked` : ''}> ${c.label}</label>`;
  const inspiredResults =
    d.q && d.searchFor === 'inspired'
      ? d.results.length === 0
        ? html`<p>${t(lang, 'noResults')}</p>`
        : html`<ul class="list results" data-inspired-results>${d.results.map((r) => {
            const label = perfumeLabel(lang, r);
            return html`<li><span>${perfumeName(lang, r)}</span> <span class="muted">${houseName(lang, r)}${r.concentration ? ` · ${concentrationName(lang, r.concentration)}` : ''}${r.year ? ` · ${formatPlain(lang, r.year)}` : ''}</span> ${
              r.grade
                ? html`<form method="post" action="${action}" class="inline">${csrfField(ctx)}${product}${keepItems}${field('inspired_by', r.id)}<button type="submit" aria-label="${t(lang, 'answerInspiredThis')}: ${label}">${t(lang, 'answerInspiredThis')}</button></form>`
                : html`<span class="muted" data-no-profile>${t(lang, 'answerNoProfileToLend')}</span>`
            }</li>`;
          })}</ul>`
      : '';
  return html`<section class="card answer" id="answer" aria-labelledby="answer-title">
<h2 id="answer-title">${t(lang, 'answerTitle')}</h2>
<p>${t(lang, 'answerIntro')}</p>
<p class="muted" data-answer-fate>${t(lang, 'answerFate')}</p>
${
  a
    ? html`<div data-answer><p><strong>${t(lang, 'answerNow')}</strong></p><ul class="list">${now.map((x) => html`<li>${x}</li>`)}</ul>
<form method="post" action="${action}">${csrfField(ctx)}${product}<button type="submit" class="danger">${t(lang, 'answerClear')}</button></form></div>`
    : ''
}
<h3 id="inspired">${t(lang, 'answerInspiredTitle')}</h3>
<form method="get" action="${base(m)}/shelf/product#inspired" class="search" role="search" aria-labelledby="inspired">
${field('id', d.id)}${field('for', 'inspired')}
<label for="inspired-q">${t(lang, 'answerInspiredSearch')}</label>
<input id="inspired-q" name="q" type="search" value="${d.searchFor === 'inspired' ? d.q : ''}" maxlength="200" dir="auto">
<button type="submit">${t(lang, 'search')}</button>
</form>
${inspiredResults}
<h3 id="notes">${t(lang, 'answerNotesTitle')}</h3>
<form method="post" action="${action}">${csrfField(ctx)}${product}${keepOriginal}
<fieldset><legend>${t(lang, 'answerNotes', { n: MAX_ANSWER_NOTES })}</legend><div class="choices">${noteChoices(lang, tickedNotes).map((c) => box('notes', c, tickedNotes))}</div></fieldset>
<fieldset><legend>${t(lang, 'answerAccords', { n: MAX_ANSWER_ACCORDS })}</legend><div class="choices">${accordChoices(lang).map((c) => box('accords', c, tickedAccords))}</div></fieldset>
<button type="submit">${t(lang, 'answerSave')}</button>
</form>
</section>`;
}

// ---------- install ----------

export interface KeyView {
  id: string;
  prefix: string;
  mode: 'test' | 'live';
  origins: string[];
  revoked: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface FeedView {
  id: string;
  kind: string;
  url: string;
  intervalMinutes: number;
  paused: boolean;
  lastPull: {
    status: 'applied' | 'not_modified' | 'held' | 'failed' | 'running';
    startedAt: Date;
    added: number;
    changed: number;
    removed: number;
    rejected: number;
    error: string | null;
  } | null;
}

const PULL_WORDS: Record<NonNullable<FeedView['lastPull']>['status'], MessageKey> = {
  applied: 'pullApplied',
  not_modified: 'pullNotModified',
  held: 'pullHeld',
  failed: 'pullFailed',
  running: 'pullRunning',
};
export const pullWords = (lang: Lang, status: NonNullable<FeedView['lastPull']>['status']) =>
  t(lang, PULL_WORDS[status]);

export interface InstallData {
  feeds: FeedView[];
  keys: KeyView[];
  /** the plaintext of a key just created: shown once */
  newKey: string | null;
  scriptTag: string;
  /** with no key just created: the start of the live key (or null when there is none), to say which to put in */
  keyHint: string | null;
  sightings: {
    prefix: string;
    mode: string;
    origin: string;
    widgetVersion: string;
    outcome: string;
    requests: number;
    lastSeenAt: Date;
  }[];
  events: { type: string; test: boolean; occurredAt: Date }[];
  problems: string[];
  /** the platform store the merchant installed the app from (Salla, Zid), when it did */
  platform: {
    name: string;
    storeId: string;
    status: string;
    installedAt: Date;
    uninstalledAt: Date | null;
    /** whether the app sets up webhooks and a script on the platform (Zid), and how that went */
    hasSetup: boolean;
    setupAt: Date | null;
    setupError: string | null;
    /** where the merchant switches the storefront script on (Shopify's theme editor, app embeds) */
    activateUrl?: string | null;
  } | null;
}

/** The platform app's card: where the shop installed it from, and how its setup went. */
function platformCard(lang: Lang, p: NonNullable<InstallData['platform']>): Html {
  const setup =
    !p.hasSetup || p.status !== 'installed'
      ? ''
      : p.setupError
        ? html`<p class="problem">${t(lang, 'platformSetupFailed', { p: p.name, e: p.setupError })}</p>`
        : p.setupAt
          ? html`<p>${t(lang, 'platformSetupDone', { d: formatDateTime(lang, p.setupAt) })}</p>`
          : html`<p class="muted">${t(lang, 'platformSetupWaiting')}</p>`;
  return html`<section class="card" data-platform="${p.status}"><h2>${t(lang, 'platformApp', { p: p.name })}</h2>${
    p.status === 'installed'
      ? html`<p>${t(lang, 'platformInstalled', { p: p.name, s: p.storeId, d: formatDateTime(lang, p.installedAt) })}</p>${setup}${
          p.activateUrl
            ? html`<p>${t(lang, 'platformActivateHint')}</p><p><a class="button" data-activate href="${p.activateUrl}" target="_blank" rel="noopener">${t(lang, 'platformActivate')}</a></p>`
            : ''
        }`
      : html`<p class="problem">${t(lang, 'platformUninstalled', { p: p.name, d: formatDateTime(lang, p.uninstalledAt ?? p.installedAt) })}</p>`
  }</section>
`;
}

const OUTCOMES: Record<string, MessageKey> = {
  ok: 'outcomeOk',
  origin_not_allowed: 'outcomeOriginNotAllowed',
  revoked_api_key: 'outcomeRevoked',
};
/** Whether a request with the key was let in, or why it was refused, in words. */
const outcomeWords = (lang: Lang, outcome: string) => {
  const key = OUTCOMES[outcome];
  return key ? t(lang, key) : outcome;
};

/** Under a tag without the key in it: what to put in its place, and where it is. */
function keyHint(lang: Lang, d: InstallData): Html | string {
  if (d.newKey) return '';
  return html`<p class="muted">${
    d.keyHint ? t(lang, 'scriptTagKeyHint', { k: `${d.keyHint}…` }) : t(lang, 'scriptTagNoKey')
  }</p>`;
}

export function installPage(ctx: PageContext, m: MerchantRef, d: InstallData): Html {
  const { lang } = ctx;
  const when = (x: Date | null) => (x ? formatDateTime(lang, x) : t(lang, 'never'));
  return layout(
    ctx,
    t(lang, 'install'),
    html`${
      d.newKey
        ? html`<section class="card new-key"><h2>${t(lang, 'keyCreated')}</h2><p><code id="new-key" dir="ltr">${d.newKey}</code> <button type="button" class="copy" data-copy="new-key" data-copied="${t(lang, 'copied')}">${t(lang, 'copy')}</button></p></section>`
        : ''
    }
${d.platform ? platformCard(lang, d.platform) : ''}${
  d.platform?.status === 'installed'
    ? html`<section class="card"><h2>${t(lang, 'scriptTag')}</h2><p class="muted">${t(lang, 'platformScript')}</p>
<details><summary>${t(lang, 'scriptTagManual')}</summary>
<pre id="script-tag" dir="ltr" tabindex="0">${d.scriptTag}</pre>${keyHint(lang, d)}
<button type="button" class="copy" data-copy="script-tag" data-copied="${t(lang, 'copied')}">${t(lang, 'copy')}</button>
</details></section>`
    : html`<section class="card"><h2>${t(lang, 'scriptTag')}</h2>
<pre id="script-tag" dir="ltr" tabindex="0">${d.scriptTag}</pre>${keyHint(lang, d)}
<button type="button" class="copy" data-copy="script-tag" data-copied="${t(lang, 'copied')}">${t(lang, 'copy')}</button>
</section>`
}
<section class="card"><h2>${t(lang, 'check')}</h2>
${
  d.problems.length === 0
    ? html`<p class="flash ok">${t(lang, 'allGood')}</p>`
    : html`<h3>${t(lang, 'problems')}</h3><ul class="problems">${d.problems.map((p) => html`<li>${p}</li>`)}</ul>`
}
<h3>${t(lang, 'seen')}</h3>
${
  d.sightings.length === 0
    ? html`<p class="muted">${t(lang, 'nothingYet')}</p>`
    : tableBox(
        html`<table class="data"><thead><tr><th scope="col">${t(lang, 'origin')}</th><th scope="col">${t(lang, 'prefix')}</th><th scope="col">${t(lang, 'widgetVersion')}</th><th scope="col">${t(lang, 'outcome')}</th><th scope="col">${t(lang, 'requests')}</th><th scope="col">${t(lang, 'lastSeen')}</th></tr></thead>
<tbody>${d.sightings.map((s) => html`<tr><td dir="ltr">${s.origin || '—'}</td><td><span dir="ltr">${s.prefix}…</span> (${t(lang, s.mode === 'live' ? 'live' : 'test')})</td><td dir="ltr">${s.widgetVersion}</td><td data-outcome="${s.outcome}">${outcomeWords(lang, s.outcome)}</td><td>${formatNumber(lang, s.requests)}</td><td>${when(s.lastSeenAt)}</td></tr>`)}</tbody></table>`,
        { label: t(lang, 'seen') },
      )
}
<h3>${t(lang, 'lastEvents')}</h3>
${
  d.events.length === 0
    ? html`<p class="muted">${t(lang, 'nothingYet')}</p>`
    : tableBox(
        html`<table class="data"><thead><tr><th scope="col">${t(lang, 'event')}</th><th scope="col">${t(lang, 'mode')}</th><th scope="col">${t(lang, 'at')}</th></tr></thead>
<tbody>${d.events.map((e) => html`<tr><td data-event="${e.type}">${eventName(lang, e.type)}</td><td>${t(lang, e.test ? 'test' : 'live')}</td><td>${when(e.occurredAt)}</td></tr>`)}</tbody></table>`,
        { label: t(lang, 'lastEvents') },
      )
}
</section>
<section class="card"><h2>${t(lang, 'feedsTitle')}</h2>
<p class="muted">${t(lang, 'feedsIntro')}</p>
${
  d.feeds.length === 0
    ? html`<p>${t(lang, 'noFeeds')}</p>`
    : tableBox(
        html`<table class="data"><thead><tr><th scope="col">${t(lang, 'kind')}</th><th scope="col">URL</th><th scope="col">${t(lang, 'every')}</th><th scope="col">${t(lang, 'lastPull')}</th><th scope="col"><span class="sr">${t(lang, 'pullNow')}</span></th></tr></thead>
<tbody>${d.feeds.map(
          (f) =>
            html`<tr data-feed="${f.id}"><td>${feedKindName(lang, f.kind)}</td><td dir="ltr" class="why">${f.url}</td><td>${t(lang, 'minutes', { n: f.intervalMinutes })}${f.paused ? html` <span class="badge">${t(lang, 'feedPaused')}</span>` : ''}</td><td>${
              f.lastPull
                ? html`<span data-pull="${f.lastPull.status}">${pullWords(lang, f.lastPull.status)}</span> · ${formatDateTime(lang, f.lastPull.startedAt)}<br><span class="muted">${t(lang, 'pullCounts', { a: f.lastPull.added, c: f.lastPull.changed, r: f.lastPull.removed, x: f.lastPull.rejected })}</span>${f.lastPull.error ? html`<br><span class="problem">${f.lastPull.error}</span>` : ''}`
                : t(lang, 'never')
            }</td><td><form method="post" action="${base(m)}/feeds/pull" class="inline">${csrfField(ctx)}<input type="hidden" name="feed" value="${f.id}">${
              f.lastPull?.status === 'held' ? html`<input type="hidden" name="confirm" value="1">` : ''
            }<button type="submit"${f.lastPull?.status === 'held' ? html` class="danger"` : ''}>${t(lang, f.lastPull?.status === 'held' ? 'applyHeld' : 'pullNow')}</button></form></td></tr>`,
        )}</tbody></table>`,
        null,
      )
}
</section>
<section class="card"><h2>${t(lang, 'keys')}</h2>
<div class="scroll"><table class="data"><thead><tr><th scope="col">${t(lang, 'prefix')}</th><th scope="col">${t(lang, 'mode')}</th><th scope="col">${t(lang, 'origins')}</th><th scope="col">${t(lang, 'lastUsed')}</th><th scope="col">${t(lang, 'status')}</th><th scope="col"><span class="sr">${t(lang, 'revoke')}</span></th></tr></thead>
<tbody>${d.keys.map(
      (k) =>
        html`<tr data-key="${k.id}"><td dir="ltr"><code>${k.prefix}…</code></td><td>${t(lang, k.mode === 'live' ? 'live' : 'test')}</td><td><span dir="ltr">${k.origins.length ? k.origins.join(', ') : t(lang, 'anyOrigin')}</span>${
          k.revoked
            ? ''
            : html`<details><summary>${t(lang, 'editOrigins')}<span class="sr"> ${k.prefix}</span></summary><form method="post" action="${base(m)}/keys/origins" class="stack">${csrfField(ctx)}<input type="hidden" name="key" value="${k.id}"><label for="origins-${k.id}">${t(lang, 'origins')}</label><textarea id="origins-${k.id}" name="origins" rows="3" dir="ltr" maxlength="5000">${k.origins.join('\n')}</textarea><button type="submit">${t(lang, 'saveOrigins')}</button></form></details>`
        }</td><td>${when(k.lastUsedAt)}</td><td>${t(lang, k.revoked ? 'revoked' : 'active')}</td><td>${
          k.revoked
            ? ''
            : html`<form method="post" action="${base(m)}/keys/revoke" class="inline" data-confirm="${t(lang, 'confirmRevoke', { k: `${k.prefix}…` })}">${csrfField(ctx)}<input type="hidden" name="key" value="${k.id}"><button type="submit" class="danger" aria-label="${t(lang, 'revoke')} ${k.prefix}">${t(lang, 'revoke')}</button></form>`
        }</td></tr>`,
    )}</tbody></table></div>
<h3>${t(lang, 'newKey')}</h3>
<form method="post" action="${base(m)}/keys" class="stack">
${csrfField(ctx)}
<fieldset><legend>${t(lang, 'mode')}</legend>
<label><input type="radio" name="mode" value="test" checked> ${t(lang, 'test')}</label>
<label><input type="radio" name="mode" value="live"> ${t(lang, 'live')}</label>
</fieldset>
<label for="origins">${t(lang, 'origins')}</label>
<textarea id="origins" name="origins" rows="3" dir="ltr" aria-describedby="origins-help" maxlength="5000"></textarea>
<p id="origins-help" class="muted">${t(lang, 'originsHelp')}</p>
<button type="submit">${t(lang, 'create')}</button>
</form>
</section>`,
  );
}

// ---------- leads ----------

export interface LeadsData {
  q: string;
  leads: { id: string; email: string | null; phone: string | null; test: boolean; picks: string[]; createdAt: Date }[];
}

export function leadsPage(ctx: PageContext, m: MerchantRef, d: LeadsData): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'leads'),
    html`<p>${t(lang, 'leadsIntro')}</p>
<form method="get" action="${base(m)}/leads" class="search" role="search">
<label for="leads-q">${t(lang, 'searchLeads')}</label>
<input id="leads-q" name="q" type="search" value="${d.q}" maxlength="200" dir="ltr">
<button type="submit">${t(lang, 'search')}</button>
</form>
<p><a href="${base(m)}/leads.csv" download>${t(lang, 'exportCsv')}</a></p>
${
  d.leads.length === 0
    ? html`<p class="muted">${t(lang, 'noLeads')}</p>`
    : html`<div class="scroll"><table class="data"><thead><tr><th scope="col">${t(lang, 'email')}</th><th scope="col">${t(lang, 'phone')}</th><th scope="col">${t(lang, 'picks')}</th><th scope="col">${t(lang, 'consent')}</th><th scope="col">${t(lang, 'mode')}</th><th scope="col"><span class="sr">${t(lang, 'erase')}</span></th></tr></thead>
<tbody>${d.leads.map(
        (l) =>
          html`<tr data-lead="${l.id}"><td dir="ltr">${l.email ?? '—'}</td><td dir="ltr">${l.phone ?? '—'}</td><td>${l.picks.join(listSeparator(lang))}</td><td>${formatDateTime(lang, l.createdAt)}</td><td>${t(lang, l.test ? 'test' : 'live')}</td><td><form method="post" action="${base(m)}/leads/erase" class="inline" data-confirm="${t(lang, 'confirmErase')}">${csrfField(ctx)}<input type="hidden" name="lead" value="${l.id}"><button type="submit" class="danger" aria-label="${t(lang, 'erase')} ${l.email ?? l.phone ?? ''}">${t(lang, 'erase')}</button></form></td></tr>`,
      )}</tbody></table></div>`
}`,
  );
}

// ---------- team ----------

export interface TeamData {
  users: { id: string; email: string; role: 'operator' | 'owner' | 'staff'; lastSignInAt: Date | null }[];
  /** whether the viewer may add and remove users */
  manage: boolean;
  /** the viewer's own account, which is not offered for removal */
  self: string | null;
}

export function teamPage(ctx: PageContext, m: MerchantRef, d: TeamData): Html {
  const { lang } = ctx;
  return layout(
    ctx,
    t(lang, 'team'),
    html`${tableBox(
      html`<table class="data"><thead><tr><th scope="col">${t(lang, 'email')}</th><th scope="col">${t(lang, 'role')}</th><th scope="col">${t(lang, 'lastSignIn')}</th>${d.manage ? html`<th scope="col"><span class="sr">${t(lang, 'remove')}</span></th>` : ''}</tr></thead>
<tbody>${d.users.map(
        (u) =>
          html`<tr><td dir="ltr">${u.email}</td><td>${t(lang, u.role)}</td><td>${u.lastSignInAt ? formatDateTime(lang, u.lastSignInAt) : t(lang, 'never')}</td>${
            !d.manage
              ? ''
              : u.id === d.self
                ? html`<td></td>`
                : html`<td><form method="post" action="${base(m)}/team/remove" class="inline" data-confirm="${t(lang, 'confirmRemove', { e: u.email })}">${csrfField(ctx)}<input type="hidden" name="user" value="${u.id}"><button type="submit" class="danger" aria-label="${t(lang, 'remove')} ${u.email}">${t(lang, 'remove')}</button></form></td>`
          }</tr>`,
      )}</tbody></table>`,
      d.manage ? null : { label: t(lang, 'team') },
    )}
${
  d.manage
    ? html`<h2>${t(lang, 'addStaff')}</h2>
<form method="post" action="${base(m)}/team" class="card narrow">
${csrfField(ctx)}
<label for="new-email">${t(lang, 'email')}</label>
<input id="new-email" name="email" type="email" required maxlength="320" dir="ltr" autocomplete="off">
<label for="new-password">${t(lang, 'password')}</label>
<input id="new-password" name="password" type="password" required minlength="10" maxlength="200" dir="ltr" autocomplete="new-password">
<label for="new-role">${t(lang, 'role')}</label>
<select id="new-role" name="role"><option value="staff">${t(lang, 'staff')}</option><option value="owner">${t(lang, 'owner')}</option></select>
<button type="submit">${t(lang, 'create')}</button>
</form>`
    : ''
}`,
  );
}
