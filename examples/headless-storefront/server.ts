/**
 * A server-rendered storefront page with Sillage recommendations.
 *
 * The server scores the shopper's answers with @sillage/client (a server-side
 * call: the key in the body, no Origin) and renders the results as plain
 * HTML; the page's own script (public/storefront.js) finds the perfumes the
 * shopper loves as they type, and reports from the browser what the shopper
 * saw and clicked, in the session the server scored with.
 *
 *   SILLAGE_URL=http://127.0.0.1:3000 SILLAGE_KEY=pk_test_… npm start
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AlsoExplore,
  createSillageClient,
  type PerfumeResult,
  type Quiz,
  type Recommendation,
  type ScoreResponse,
  type SillageClient,
} from '@sillage/client';

export interface StorefrontOptions {
  /** the Sillage service, e.g. https://reco.example.com */
  sillageUrl: string;
  /** the merchant's publishable key; its allowed origins must include this storefront's (for the browser's events) */
  apiKey: string;
  /** per score call; the page renders without recommendations after it */
  timeoutMs?: number;
}

type Locale = 'ar' | 'en';
/** recommendations asked for */
const LIMIT = 6;
/** perfumes the shopper may say they love: the service takes five */
const MAX_LOVED = 5;

const HERE = dirname(fileURLToPath(import.meta.url));
// the package's module, served to the browser from this storefront's own origin
const CLIENT_JS = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('@sillage/client/package.json')), 'dist', 'index.js'),
);
const PAGE_JS = readFileSync(join(HERE, 'public', 'storefront.js'));

/** What the form offers: a few of the service's families and accords, by their slugs. */
const FAMILIES: Record<string, Record<Locale, string>> = {
  oud: { ar: 'عود', en: 'Oud' },
  amber: { ar: 'عنبري', en: 'Amber' },
  floral: { ar: 'زهري', en: 'Floral' },
  woody: { ar: 'خشبي', en: 'Woody' },
  fresh: { ar: 'منعش', en: 'Fresh' },
  gourmand: { ar: 'حلويات', en: 'Gourmand' },
  musky: { ar: 'مسكي', en: 'Musky' },
};
const ACCORDS: Record<string, Record<Locale, string>> = {
  oud: { ar: 'عود', en: 'Oud' },
  rose: { ar: 'ورد', en: 'Rose' },
  saffron: { ar: 'زعفران', en: 'Saffron' },
  vanilla: { ar: 'فانيليا', en: 'Vanilla' },
  citrus: { ar: 'حمضيات', en: 'Citrus' },
  musky: { ar: 'مسكي', en: 'Musky' },
  leather: { ar: 'جلد', en: 'Leather' },
};

const TEXT = {
  ar: {
    title: 'اكتشف عطرك',
    intro: 'اختر ما تحبه من العطور، ونقترح عليك من متجرنا.',
    perfumes: 'عطور تحبها (حتى ٥)',
    perfumeName: 'اكتب اسم عطر',
    forWhom: 'لمن هذا العطر؟',
    genders: { any: 'لا يهم', women: 'للنساء', men: 'للرجال' },
    wearer: { men: 'رجالي', women: 'نسائي', unisex: 'للجنسين' },
    families: 'العائلات العطرية (حتى ٣)',
    love: 'روائح تعشقها',
    avoid: 'روائح تتجنبها',
    submit: 'اقترح لي',
    results: 'مقترحاتنا لك',
    same: 'العطر الذي تحبه',
    version: (name: string) => `إصدار آخر من ${name}`,
    similar: (name: string) => `لأنك تحب ${name}`,
    forLess: (name: string) => `مثل ${name}، بسعر أقل`,
    explore: {
      other_family: 'جرّب شيئًا مختلفًا',
      weaker_fit: 'قريبة من ذوقك لكنها أضعف توافقًا',
      closest: 'الأقرب إلى ذوقك في متجرنا',
    },
    fit: { strong: 'توافق قوي', good: 'توافق جيد', weak: 'توافق أضعف' },
    few: (n: number) =>
      n === 1 ? 'منتج واحد فقط من منتجاتنا يناسب إجاباتك.' : `${n} منتجات فقط من منتجاتنا تناسب إجاباتك.`,
    none: 'لا شيء من منتجاتنا يناسب إجاباتك تمامًا؛ هذه الأقرب إليها.',
    empty: 'لم نجد ما يناسب اختياراتك بين منتجاتنا الآن.',
    unavailable: 'الاقتراحات غير متاحة الآن. تصفّح كل العطور:',
    browse: 'كل العطور',
    other: 'English',
  },
  en: {
    title: 'Find your scent',
    intro: 'Tell us what you like and we will suggest perfumes from our shop.',
    perfumes: 'Perfumes you love (up to 5)',
    perfumeName: 'Type a perfume name',
    forWhom: 'Who is it for?',
    genders: { any: 'No preference', women: 'For women', men: 'For men' },
    wearer: { men: 'For men', women: 'For women', unisex: 'Unisex' },
    families: 'Scent families (up to 3)',
    love: 'Notes you love',
    avoid: 'Notes you avoid',
    submit: 'Suggest',
    results: 'Our picks for you',
    same: 'The perfume you love',
    version: (name: string) => `Another version of ${name}`,
    similar: (name: string) => `Because you love ${name}`,
    forLess: (name: string) => `Like ${name}, for less`,
    explore: {
      other_family: 'Step outside your comfort zone',
      weaker_fit: 'Close to your taste, but weaker matches',
      closest: 'The closest to your taste in our shop',
    },
    fit: { strong: 'Strong match', good: 'Good match', weak: 'Weaker match' },
    few: (n: number) =>
      n === 1 ? 'Only one of our products fits your answers.' : `Only ${n} of our products fit your answers.`,
    none: 'Nothing in our shop fits your answers closely; these are the closest.',
    empty: 'None of our products fits your answers right now.',
    unavailable: 'Suggestions are unavailable right now. Browse every perfume:',
    browse: 'All perfumes',
    other: 'العربية',
  },
};

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const httpUrl = (u: string | null) => (u && /^https?:\/\//i.test(u) ? u : null);

/**
 * The perfumes the shopper loves, from the query string (`perfume=<sillage_perfume_id>`,
 * as the page's type-ahead adds them), fetched by id from the service's catalog: the
 * page shows their names, and an id the catalog does not know is left out, never sent
 * to score (where it would be a 400). None when the service cannot say.
 */
export async function lovedOf(sillage: SillageClient, query: URLSearchParams): Promise<PerfumeResult[]> {
  const ids = [...new Set(query.getAll('perfume'))].filter((id) => /^[a-z0-9-]{1,120}$/.test(id)).slice(0, MAX_LOVED);
  if (ids.length === 0) return [];
  const found = await sillage.lookup({ ids });
  return found.ok ? found.data.results : [];
}

/** The quiz from the query string: only the form's own values, so a hand-made URL never causes a refusal. */
export function quizOf(query: URLSearchParams, loved: PerfumeResult[] = []): Quiz | null {
  const pick = (name: string, allowed: Record<string, unknown>, max: number) =>
    [...new Set(query.getAll(name))].filter((v) => Object.hasOwn(allowed, v)).slice(0, max);
  const families = pick('family', FAMILIES, 3);
  const love = pick('love', ACCORDS, 5);
  const avoid = pick('avoid', ACCORDS, 5).filter((a) => !love.includes(a));
  // a perfume they love is a quiz on its own
  if (families.length === 0 && love.length === 0 && loved.length === 0) return null;
  const accord_ratings: Record<string, string> = {};
  for (const a of love) accord_ratings[a] = 'love';
  for (const a of avoid) accord_ratings[a] = 'avoid';
  const gender = query.get('for');
  return {
    families,
    accord_ratings,
    // for whom: with men or women the service never shows products made for the other
    ...(gender === 'men' || gender === 'women' ? { gender } : {}),
    ...(loved.length ? { loved_perfumes: loved.map((p) => p.sillage_perfume_id) } : {}),
  };
}

/** A perfume's name in the page's language (the catalog's Arabic one when it has it). */
const nameOf = (p: { name: string; name_ar?: string | null }, locale: Locale) =>
  (locale === 'ar' && p.name_ar) || p.name;

function price(r: Recommendation, locale: Locale): string {
  if (r.price === null) return '';
  try {
    return new Intl.NumberFormat(locale === 'ar' ? 'ar-SA' : 'en-SA', {
      style: 'currency',
      currency: r.currency,
    }).format(r.price);
  } catch {
    return `${r.price} ${r.currency}`;
  }
}

/** What the card says of a loved perfume: that it is the one, a version of it, or like it. */
function likeOf(r: Recommendation, locale: Locale, loved: PerfumeResult[]): string {
  const like = r.similar_to;
  if (!like) return '';
  const t = TEXT[locale];
  const name = nameOf(loved.find((p) => p.sillage_perfume_id === like.sillage_perfume_id) ?? like, locale);
  const text = like.relation === 'same' ? t.same : like.relation === 'version' ? t.version(name) : t.similar(name);
  return `<p class="like">${esc(text)}</p>`;
}

function cards(
  list: Recommendation[],
  kind: 'recommendation' | 'also_explore',
  locale: Locale,
  loved: PerfumeResult[],
): string {
  return list
    .map((r, i) => {
      const url = httpUrl(r.product_url);
      const img = httpUrl(r.image_url);
      const name = url
        ? `<a href="${esc(url)}" data-product-id="${esc(r.merchant_product_id)}" data-position="${i + 1}" data-kind="${kind}">${esc(r.name)}</a>`
        : esc(r.name);
      return `<li class="card">${img ? `<img src="${esc(img)}" alt="" width="96" height="96">` : ''}
  <h3>${name}</h3><p class="house">${esc(r.house)}${r.gender ? ` · ${TEXT[locale].wearer[r.gender]}` : ''}</p>${likeOf(r, locale, loved)}
  <p><span class="price">${esc(price(r, locale))}</span> · <span class="match">${esc(TEXT[locale].fit[r.fit])} · ${r.match_score}%</span></p></li>`;
    })
    .join('\n');
}

function form(query: URLSearchParams, locale: Locale, loved: PerfumeResult[], opts: StorefrontOptions): string {
  const t = TEXT[locale];
  const boxes = (name: string, options: Record<string, Record<Locale, string>>) =>
    Object.entries(options)
      .map(
        ([slug, label]) =>
          `<label><input type="checkbox" name="${name}" value="${esc(slug)}"${query.getAll(name).includes(slug) ? ' checked' : ''}> ${esc(label[locale])}</label>`,
      )
      .join('\n');
  const chosen = query.get('for') ?? 'any';
  const radios = (['any', 'women', 'men'] as const)
    .map(
      (g) =>
        `<label><input type="radio" name="for" value="${g}"${chosen === g ? ' checked' : ''}> ${esc(t.genders[g])}</label>`,
    )
    .join('\n');
  // the perfumes chosen, as boxes the shopper can untick; the page's script adds to them as the shopper types
  const lovedBoxes = loved
    .map(
      (p) =>
        `<label><input type="checkbox" name="perfume" value="${esc(p.sillage_perfume_id)}" checked> ${esc(nameOf(p, locale))}</label>`,
    )
    .join('\n');
  return `<form method="get" action="/">
<input type="hidden" name="lang" value="${locale}">
<fieldset id="sillage-perfumes" data-sillage-url="${esc(opts.sillageUrl)}" data-key="${esc(opts.apiKey)}" data-max="${MAX_LOVED}">
<legend>${t.perfumes}</legend>
<div class="chosen">${lovedBoxes}</div>
<div class="search" hidden><label>${t.perfumeName} <input type="text" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="sillage-options" autocomplete="off"></label>
<ul id="sillage-options" role="listbox" aria-label="${t.perfumeName}" hidden></ul>
<p class="status" role="status"></p></div>
</fieldset>
<fieldset><legend>${t.forWhom}</legend>${radios}</fieldset>
<fieldset><legend>${t.families}</legend>${boxes('family', FAMILIES)}</fieldset>
<fieldset><legend>${t.love}</legend>${boxes('love', ACCORDS)}</fieldset>
<fieldset><legend>${t.avoid}</legend>${boxes('avoid', ACCORDS)}</fieldset>
<button type="submit">${t.submit}</button>
</form>`;
}

function results(
  scored: ScoreResponse | { error: string } | null,
  locale: Locale,
  loved: PerfumeResult[],
  opts: StorefrontOptions,
): string {
  const t = TEXT[locale];
  if (scored === null) return '';
  if ('error' in scored) {
    // the page works without recommendations: the shop's own catalogue is one link away
    return `<section class="fallback"><p>${t.unavailable} <a href="/perfumes">${t.browse}</a></p></section>`;
  }
  const recs = scored.recommendations;
  // the service recommends only products that fit: the list may be short, or empty, and the page says so
  const note =
    recs.length === 0 ? (scored.also_explore.length ? t.none : t.empty) : recs.length < LIMIT ? t.few(recs.length) : '';
  const list = `${note ? `<p class="note">${note}</p>` : ''}${recs.length ? `<ol class="cards">${cards(recs, 'recommendation', locale, loved)}</ol>` : ''}`;
  // beside them, grouped by why each is shown: first what is like a loved perfume for less, a group for each
  const cheaper = new Map<string, { name: string; items: AlsoExplore[] }>();
  for (const a of scored.also_explore) {
    const like = a.reason === 'for_less' ? a.similar_to : undefined;
    if (!like) continue;
    const name = nameOf(loved.find((p) => p.sillage_perfume_id === like.sillage_perfume_id) ?? like, locale);
    const group = cheaper.get(like.sillage_perfume_id) ?? { name, items: [] };
    group.items.push(a);
    cheaper.set(like.sillage_perfume_id, group);
  }
  const forLess = [...cheaper.values()].map(
    ({ name, items }) =>
      `<h2>${esc(t.forLess(name))}</h2><ol class="cards">${cards(items, 'also_explore', locale, loved)}</ol>`,
  );
  const explore = (['other_family', 'weaker_fit', 'closest'] as const)
    .map((reason) => {
      const items = scored.also_explore.filter((a: AlsoExplore) => a.reason === reason);
      return items.length
        ? `<h2>${t.explore[reason]}</h2><ol class="cards">${cards(items, 'also_explore', locale, loved)}</ol>`
        : '';
    })
    .join('\n');
  const p = scored.powered_by;
  return `<section id="sillage-results" data-sillage-url="${esc(opts.sillageUrl)}" data-key="${esc(opts.apiKey)}" data-session="${esc(scored.session_id)}">
<h2>${t.results}</h2>
${list}
${forLess.join('\n')}
${explore}
<p class="powered"><a href="${esc(httpUrl(p.url) ?? '#')}" data-kind="powered_by" rel="noopener">${esc(p.label)}</a></p>
</section>`;
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:0 auto;max-width:52rem;padding:1rem;color:#1f1b16}
fieldset{border:1px solid #ccc;margin:0 0 .75rem}label{display:inline-block;margin:.25rem .75rem .25rem 0}
.cards{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(12rem,1fr));gap:1rem}
.card{border:1px solid #ddd;border-radius:8px;padding:.75rem}.house{color:#5d534a}.match{font-weight:600}.like{font-weight:600}
[role=listbox]{list-style:none;margin:.25rem 0;padding:0;border:1px solid #ccc;max-width:24rem}
[role=option]{padding:.4rem .6rem;cursor:pointer}[role=option][aria-selected=true]{background:#f4ede6;outline:2px solid #7a4a2b}`;
const IMPORT_MAP = JSON.stringify({ imports: { '@sillage/client': '/assets/sillage-client.js' } });
const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

function page(locale: Locale, body: string, opts: StorefrontOptions): { html: string; csp: string } {
  const t = TEXT[locale];
  const other = locale === 'ar' ? 'en' : 'ar';
  const html = `<!doctype html>
<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${t.title}</title>
<style>${STYLE}</style>
<script type="importmap">${IMPORT_MAP}</script>
<script type="module" src="/assets/storefront.js"></script>
</head>
<body>
<header><a href="/?lang=${other}" lang="${other}">${t.other}</a></header>
<main>
<h1>${t.title}</h1>
<p>${t.intro}</p>
${body}
</main>
</body>
</html>`;
  const service = new URL(opts.sillageUrl).origin;
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${sha256(IMPORT_MAP)}`,
    `style-src 'self' ${sha256(STYLE)}`,
    // the page's script reports events to the service itself
    `connect-src 'self' ${service}`,
    // the shop's pictures, and the service's own for products that have none
    `img-src 'self' https: ${service}`,
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ');
  return { html, csp };
}

const SESSION_COOKIE = 'sillage_session';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** 30 days: the service's attribution window, so an order days later joins the session of its click */
const SESSION_MAX_AGE_S = 30 * 24 * 3600;

function sessionOf(req: IncomingMessage): string | null {
  const found = /(?:^|;\s*)sillage_session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  return found && UUID.test(found) ? found : null;
}

export function createStorefront(opts: StorefrontOptions): Server {
  // one client for every shopper: the session goes with each call
  const sillage = createSillageClient({ baseUrl: opts.sillageUrl, apiKey: opts.apiKey, timeoutMs: opts.timeoutMs });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://storefront.invalid');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/assets/sillage-client.js' || url.pathname === '/assets/storefront.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' });
      res.end(url.pathname === '/assets/storefront.js' ? PAGE_JS : CLIENT_JS);
      return;
    }
    if (url.pathname !== '/') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return;
    }
    const locale: Locale = url.searchParams.get('lang') === 'en' ? 'en' : 'ar';
    const loved = await lovedOf(sillage, url.searchParams);
    const quiz = quizOf(url.searchParams, loved);
    const session = sessionOf(req) ?? randomUUID();
    let scored: ScoreResponse | { error: string } | null = null;
    if (quiz) {
      const answer = await sillage.score({ quiz, locale, session_id: session, limit: LIMIT });
      scored = answer.ok ? answer.data : { error: answer.error };
      if (!answer.ok) console.warn(`sillage score failed: ${answer.status} ${answer.code} ${answer.error}`);
    }
    const { html, csp } = page(
      locale,
      `${form(url.searchParams, locale, loved, opts)}\n${results(scored, locale, loved, opts)}`,
      opts,
    );
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'cache-control': 'no-store',
      'set-cookie': `${SESSION_COOKIE}=${session}; Path=/; Max-Age=${SESSION_MAX_AGE_S}; HttpOnly; SameSite=Lax`,
    });
    res.end(req.method === 'HEAD' ? undefined : html);
  }

  return createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error(err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Internal error');
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const apiKey = process.env.SILLAGE_KEY;
  if (!apiKey) {
    console.error(
      "SILLAGE_KEY is required: the demo key the service's npm start prints, or your merchant's publishable key",
    );
    process.exit(1);
  }
  const sillageUrl = process.env.SILLAGE_URL ?? 'http://127.0.0.1:3000';
  const port = Number(process.env.PORT ?? 4000);
  createStorefront({ sillageUrl, apiKey }).listen(port, '127.0.0.1', () => {
    console.log(`storefront on http://127.0.0.1:${port}/?family=oud&love=saffron (Sillage at ${sillageUrl})`);
  });
}
