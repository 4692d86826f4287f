import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { search } from '../../catalog/search.ts';
import { ANSWER_NOTES } from '../../console/answer-choices.ts';
import { type Lang, type MessageKey, platformName, t } from '../../console/i18n.ts';
import { installProblems, sightingsByVersion } from '../../console/install-check.ts';
import { type CatalogNames, catalogNames, houseName, matchReason, perfumeLabel } from '../../console/names.ts';
import {
  asksPage,
  base,
  type Counted,
  installPage,
  leadsPage,
  type MerchantRef,
  mayOpen,
  overviewPage,
  type PageContext,
  productPage,
  pullWords,
  type Section,
  SHELF_FILTERS,
  type ShelfFilter,
  type ShelfRow,
  shelfFix,
  shelfPage,
  teamPage,
  term,
} from '../../console/views.ts';
import { AppError, badRequest, notFound } from '../../lib/errors.ts';
import { type AnswerCheck, checkAnswer, MAX_ANSWER_ACCORDS, MAX_ANSWER_NOTES } from '../../matching/answers.ts';
import { PRODUCT_KINDS } from '../../matching/kind.ts';
import { activationLink } from '../../platforms/shopify.ts';
import { merchantAnalytics } from '../../services/analytics.ts';
import { perfumeRecord } from '../../services/catalog.ts';
import {
  askedFor,
  dailyActivity,
  eraseLead,
  findProductRow,
  keySightingsOf,
  lastEvents,
  leadCount,
  listLeads,
  type Period,
  productNames,
  shelfHealth,
  shelfProducts,
} from '../../services/console-data.ts';
import { createConsoleUser, listMerchantUsers, removeMerchantUser } from '../../services/console-users.ts';
import { confirmRemoval, listSources } from '../../services/feeds.ts';
import { createKey, listKeys, revokeKey, updateKeyOrigins } from '../../services/keys.ts';
import { exportLeads, leadsCsv } from '../../services/leads.ts';
import { findMerchant, type Merchant } from '../../services/merchants.ts';
import { installOfMerchant } from '../../services/platforms.ts';
import { answerProduct, pinMatch, productView, setProductKind, unpinMatch } from '../../services/products.ts';
import { ACCORDS, type VocabularyKind } from '../../vocabulary/index.ts';
import { pageContext, sendPage } from './page.ts';

/** Where the widget key goes in the script tag the install page shows, when its full value is not known. */
export const KEY_PLACEHOLDER = 'YOUR_WIDGET_KEY';

declare module 'fastify' {
  interface FastifyRequest {
    /** the merchant a console page is about, once the viewer may see it */
    consoleMerchant: Merchant | null;
  }
}

const DAY = 86_400_000;
/** Longest period a page reads, and products a shelf page lists. */
export const MAX_PERIOD_DAYS = 366;
export const SHELF_PAGE_SIZE = 50;
/** Products one bulk accept may pin. */
export const MAX_BULK_ACCEPT = 100;
/** Notes an answer's form may send: those it offers, and those an answer already names beside them. */
const MAX_ANSWER_FORM_NOTES = ANSWER_NOTES.length + MAX_ANSWER_NOTES;

const csrf = Type.Optional(Type.String({ maxLength: 200 }));
const DateText = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
const PeriodQuery = Type.Object({
  from: Type.Optional(DateText),
  to: Type.Optional(DateText),
  traffic: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('test')])),
  lang: Type.Optional(Type.String({ maxLength: 5 })),
});
const Params = Type.Object({ merchant: Type.String({ minLength: 1, maxLength: 64 }) });
const DONE: Record<string, MessageKey> = {
  pinned: 'pinnedTo',
  unpinned: 'unpinned',
  revoked: 'revokedDone',
  origins: 'originsSaved',
  pulled: 'pulled',
  erased: 'erased',
  added: 'userAdded',
  removed: 'userRemoved',
  accepted: 'acceptedN',
  answered: 'answerSaved',
  cleared: 'answerCleared',
  kindSaved: 'kindSaved',
  kindCleared: 'kindCleared',
};

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The period a page shows: whole UTC days, `to` included; the last 30 days by default. */
function periodOf(
  lang: Lang,
  merchantId: string,
  q: { from?: string; to?: string; traffic?: 'live' | 'test' },
): Period & {
  fromDay: string;
  toDay: string;
} {
  const today = isoDay(new Date());
  const toDay = q.to ?? today;
  const toEnd = new Date(`${toDay}T00:00:00Z`).getTime() + DAY;
  const fromDay = q.from ?? isoDay(new Date(toEnd - 30 * DAY));
  const from = new Date(`${fromDay}T00:00:00Z`);
  const refused = () => badRequest('invalid_period', t(lang, 'badPeriod', { n: MAX_PERIOD_DAYS }));
  if (Number.isNaN(from.getTime()) || Number.isNaN(toEnd)) throw refused();
  if (from.getTime() >= toEnd || toEnd - from.getTime() > MAX_PERIOD_DAYS * DAY) throw refused();
  return { merchantId, from, to: new Date(toEnd), test: q.traffic === 'test', fromDay, toDay };
}

const merchantRef = (m: Merchant): MerchantRef => ({ slug: m.slug, name: m.name });

/** The origins typed in a form: one per line (commas and spaces separate too). */
const originsOf = (text: string | undefined) =>
  (text ?? '')
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);

/** A refusal in words for the page: the message and what each detail names. */
function problemText(err: AppError) {
  const details = err.details?.map((d) => d.message).join('; ');
  return details ? `${err.message}: ${details}` : err.message;
}

/** A confirmation carried by the redirect after a change (?done=…). */
function flashOf(request: FastifyRequest, vars: Record<string, string | number> = {}) {
  const done = (request.query as { done?: unknown }).done;
  const key = typeof done === 'string' ? DONE[done] : undefined;
  return key ? { kind: 'ok' as const, text: t(request.consoleLang, key, vars) } : null;
}

function ctxFor(request: FastifyRequest, reply: FastifyReply, section: Section, extra = {}) {
  return pageContext(request, reply, {
    merchant: merchantRef(request.consoleMerchant as Merchant),
    section,
    ...extra,
  });
}

/** The matcher's closest candidate for a product not matched in full: what "accept" pins it to. */
function suggestionOf(view: ReturnType<typeof productView>) {
  if (view.pinned || (view.status === 'matched' && !view.explanation.matcher.sibling)) return null;
  const c = view.explanation.candidates[0];
  return c && c.sillage_perfume_id !== view.sillage_perfume_id ? { id: c.sillage_perfume_id, score: c.score } : null;
}

/** A perfume of our catalog by id, named in the page's language (an id the catalog no longer has, as it is). */
const labelOf = (lang: Lang, names: CatalogNames, id: string) => {
  const p = names.perfume(id);
  return p ? perfumeLabel(lang, p) : id;
};

/** Why a product is matched as it is, in the page's language (console/names.ts). */
const reasonOf = (lang: Lang, names: CatalogNames, v: ReturnType<typeof productView>) =>
  matchReason(lang, names, {
    status: v.status,
    pinned: v.pinned,
    perfumeId: v.sillage_perfume_id,
    reason: v.reason,
    previousPerfumeId: v.match_change?.previous_perfume_id ?? null,
    matcher: v.explanation.matcher,
  });

/**
 * A merchant's console pages. The viewer must be signed in and may see this merchant (an operator
 * every merchant; an owner or staff member only theirs: any other is answered 404, as if it did
 * not exist); staff see the figures and the shelf, owners and operators everything.
 */
const merchantPages: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('consoleMerchant', null);

  app.addHook('preHandler', async (request, reply) => {
    const user = request.consoleUser;
    if (!user) {
      if (request.method === 'GET') return reply.redirect('/console/sign-in', 303);
      throw new AppError(401, 'not_signed_in', t(request.consoleLang, 'sessionExpired'));
    }
    const slug = (request.params as { merchant: string }).merchant;
    const m = await findMerchant(app.db, slug);
    if (!m || (user.role !== 'operator' && user.merchantId !== m.id)) {
      throw notFound('merchant_not_found', t(request.consoleLang, 'notFound'));
    }
    request.consoleMerchant = m;
  });

  /** The traffic a page shows: as asked, else live, or test for a shop with no live key yet (its widget sends only test). */
  const trafficOf = async (merchantId: string, asked: 'live' | 'test' | undefined) =>
    asked ?? ((await listKeys(app.db, merchantId)).some((k) => k.mode === 'live' && !k.revoked) ? 'live' : 'test');

  /** Owner-only sections refuse staff. */
  const only = (section: Section) => async (request: FastifyRequest) => {
    const user = request.consoleUser;
    if (user && !mayOpen({ email: user.email, role: user.role }, section)) {
      throw new AppError(403, 'forbidden', t(request.consoleLang, 'forbidden'));
    }
  };
  const merchantOf = (request: FastifyRequest) => request.consoleMerchant as Merchant;
  const back = (request: FastifyRequest, reply: FastifyReply, path: string, done: string, extra = '') =>
    reply.redirect(`${base(merchantRef(merchantOf(request)))}/${path}?done=${done}${extra}`, 303);

  // ---------- overview ----------
  app.get('/', { schema: { hide: true, params: Params, querystring: PeriodQuery } }, async (request, reply) => {
    const m = merchantOf(request);
    const p = periodOf(request.consoleLang, m.id, {
      ...request.query,
      traffic: await trafficOf(m.id, request.query.traffic),
    });
    const [a, leads, days] = await Promise.all([
      merchantAnalytics(app.db, m.id, { ...p, attributionWindowDays: app.config.attributionWindowDays }),
      leadCount(app.db, p),
      dailyActivity(app.db, p),
    ]);
    const f = a.funnel;
    const funnel: { key: MessageKey; count: number }[] = [
      { key: 'views', count: f.widget_loaded },
      { key: 'opened', count: f.widget_opened },
      { key: 'starts', count: f.quiz_started },
      { key: 'completions', count: f.quiz_completed },
      { key: 'results', count: f.results_viewed },
      { key: 'clicks', count: f.recommendation_clicked },
      { key: 'purchases', count: f.purchased },
    ];
    return sendPage(
      reply,
      overviewPage(ctxFor(request, reply, 'overview'), {
        from: p.fromDay,
        to: p.toDay,
        traffic: p.test ? 'test' : 'live',
        funnel,
        leads,
        revenue: a.attributed_revenue,
        days,
        attributionWindowDays: app.config.attributionWindowDays,
      }),
    );
  });

  // ---------- what shoppers ask for ----------
  app.get('/asks', { schema: { hide: true, params: Params, querystring: PeriodQuery } }, async (request, reply) => {
    const m = merchantOf(request);
    const lang = request.consoleLang;
    const p = periodOf(request.consoleLang, m.id, {
      ...request.query,
      traffic: await trafficOf(m.id, request.query.traffic),
    });
    const [a, asked] = await Promise.all([
      merchantAnalytics(app.db, m.id, { ...p, attributionWindowDays: app.config.attributionWindowDays }),
      askedFor(app.db, p),
    ]);
    const names = await productNames(app.db, m.id, [
      ...a.top_recommended.map((r) => r.merchant_product_id),
      ...a.top_clicked.map((r) => r.merchant_product_id),
      ...asked.bought.map((r) => r.merchant_product_id),
    ]);
    const name = (id: string) => names.get(id) ?? id;
    const catalog = catalogNames(app.catalog.current());
    /** vocabulary slugs counted by quizzes, in the page's language */
    const terms = (kind: VocabularyKind, rows: { value: string; sessions: number }[]): Counted[] =>
      rows.map((r) => ({ label: term(lang, kind, r.value), n: r.sessions }));
    /** products by name, with how often */
    const products = <T extends { merchant_product_id: string }>(rows: T[], n: (r: T) => number): Counted[] =>
      rows.map((r) => ({ label: name(r.merchant_product_id), n: n(r) }));
    const accords = (rows: { accord: string; sessions: number }[]) =>
      terms(
        'accord',
        rows.map((r) => ({ value: r.accord, sessions: r.sessions })),
      );
    return sendPage(
      reply,
      asksPage(ctxFor(request, reply, 'asks'), {
        from: p.fromDay,
        to: p.toDay,
        traffic: p.test ? 'test' : 'live',
        families: terms('family', asked.families),
        loved: accords(a.loved_accords),
        avoided: accords(a.avoided_accords),
        seasons: terms('season', asked.seasons),
        occasions: terms('occasion', asked.occasions),
        lovedPerfumes: a.loved_perfumes.map((r) => ({
          label: labelOf(lang, catalog, r.sillage_perfume_id),
          n: r.sessions,
        })),
        scored: a.scored_sessions,
        gifts: a.gift_sessions,
        completed: a.funnel.quiz_completed,
        recommended: products(a.top_recommended, (r) => r.times),
        clicked: products(a.top_clicked, (r) => r.clicks),
        bought: products(asked.bought, (r) => r.quantity),
      }),
    );
  });

  // ---------- the shelf ----------
  const ShelfQuery = Type.Object({
    filter: Type.Optional(Type.Union(SHELF_FILTERS.map((f) => Type.Literal(f.id)))),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    page: Type.Optional(Type.String({ pattern: '^[1-9]\\d{0,5}$' })),
    done: Type.Optional(Type.String({ maxLength: 20 })),
    n: Type.Optional(Type.String({ pattern: '^\\d{1,3}$' })),
    lang: Type.Optional(Type.String({ maxLength: 5 })),
  });
  app.get('/shelf', { schema: { hide: true, params: Params, querystring: ShelfQuery } }, async (request, reply) => {
    const m = merchantOf(request);
    const filter: ShelfFilter = request.query.filter ?? 'all';
    const q = request.query.q ?? '';
    const page = Number(request.query.page ?? 1);
    const { rows, counts } = await shelfProducts(app.db, m.id, {
      filter,
      q,
      limit: SHELF_PAGE_SIZE,
      offset: (page - 1) * SHELF_PAGE_SIZE,
    });
    const snapshot = app.catalog.current();
    const names = catalogNames(snapshot);
    const lang = request.consoleLang;
    // the page's listings explained on the matcher's worker thread, never on the event loop
    const explained = await app.inlineMatcher.explain(m.id, rows);
    const shelfRows: ShelfRow[] = rows.map((row, i) => {
      const v = productView(row, snapshot, explained[i]);
      const suggestion = suggestionOf(v);
      return {
        id: v.merchant_product_id,
        name: v.name,
        house: v.house,
        status: v.status,
        quality: v.quality,
        perfume: v.sillage_perfume_id ? labelOf(lang, names, v.sillage_perfume_id) : null,
        confidence: v.confidence,
        reason: reasonOf(lang, names, v),
        pinned: v.pinned,
        suggestion: suggestion && { ...suggestion, name: labelOf(lang, names, suggestion.id) },
        // the one thing that would make it recommendable: our record naming its original says that one has no profile to lend
        fix: shelfFix(
          v.to_recommend,
          Boolean(v.sillage_perfume_id && snapshot.byId.get(v.sillage_perfume_id)?.inspiredBy),
        ),
      };
    });
    return sendPage(
      reply,
      shelfPage(
        ctxFor(request, reply, 'shelf', { flash: flashOf(request, { n: Number(request.query.n ?? 0) }) }),
        merchantRef(m),
        { filter, q, counts, rows: shelfRows, page, pages: Math.max(1, Math.ceil(counts[filter] / SHELF_PAGE_SIZE)) },
      ),
    );
  });

  const ProductQuery = Type.Object({
    id: Type.String({ minLength: 1, maxLength: 200 }),
    q: Type.Optional(Type.String({ maxLength: 200 })),
    for: Type.Optional(Type.Union([Type.Literal('pin'), Type.Literal('inspired')])),
    done: Type.Optional(Type.String({ maxLength: 20 })),
    lang: Type.Optional(Type.String({ maxLength: 5 })),
  });
  /**
   * A product's page: how it is matched and read, what its profile rests on, its candidates and a
   * search of our catalog (to pin the perfume it is, or to name the one it is inspired by), and for
   * one without a profile (or with the merchant's answer) the answer's form. With a flash above it:
   * a confirmation, or why a change was refused (then answered with the status given).
   */
  const productPageOf = async (
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    search_: { q: string; for: 'pin' | 'inspired' },
    flashed: (p: { label: string; quality: string | null }) => PageContext['flash'],
    status = 200,
    ticked?: { notes: string[]; accords: string[] },
  ) => {
    const m = merchantOf(request);
    const row = await findProductRow(app.db, m.id, id);
    if (!row) throw notFound('product_not_found', t(request.consoleLang, 'notFound'));
    const snapshot = app.catalog.current();
    const names = catalogNames(snapshot);
    const lang = request.consoleLang;
    const v = productView(row, snapshot);
    const q = search_.q.trim();
    const hits = q ? search(snapshot.index, q, { limit: 10 }) : [];
    const perfume = v.sillage_perfume_id ? snapshot.byId.get(v.sillage_perfume_id) : undefined;
    const flash = flashed({ label: perfume ? perfumeLabel(lang, perfume) : '', quality: v.quality });
    const readHouse = v.explanation.house.name;
    // the matched record's sources, as the catalog stores them (one row by its key)
    const record = perfume ? await perfumeRecord(app.db, perfume.id) : null;
    const original = perfume?.inspiredBy ? snapshot.byId.get(perfume.inspiredBy) : undefined;
    const answer = v.answer;
    const answeredOriginal = answer?.inspired_by ? snapshot.byId.get(answer.inspired_by) : undefined;
    // the page is shown at its own address, whatever form brought it (the language link returns there)
    const path = `${base(merchantRef(m))}/shelf/product`;
    const query = new URLSearchParams({ id, ...(q ? { q, for: search_.for } : {}) }).toString();
    return sendPage(
      reply,
      productPage(ctxFor(request, reply, 'shelf', { flash, path, query }), merchantRef(m), {
        id: v.merchant_product_id,
        name: v.name,
        house: v.house,
        status: v.status,
        quality: v.quality,
        perfume: perfume ? { id: perfume.id, label: perfumeLabel(lang, perfume) } : null,
        confidence: v.confidence,
        reason: reasonOf(lang, names, v),
        pinned: v.pinned,
        parsed: {
          words: v.explanation.parsed.words,
          concentration: v.explanation.parsed.concentration,
          kind: v.explanation.parsed.kind,
          kindOverride: v.kind_override,
          alcoholFree: v.explanation.parsed.alcohol_free === true,
          contents: v.explanation.parsed.contents,
          house: readHouse && houseName(lang, { house: readHouse, houseAr: names.houseAr(readHouse) }),
        },
        candidates: v.explanation.candidates.map((c) => ({
          id: c.sillage_perfume_id,
          name: labelOf(lang, names, c.sillage_perfume_id),
          score: c.score,
        })),
        profile: v.profile ? { accords: v.profile.accords.map((a) => a.name), families: v.profile.families } : null,
        record: perfume
          ? {
              grade: perfume.grade,
              inspiredBy: perfume.inspiredBy ? (original ? perfumeLabel(lang, original) : perfume.inspiredBy) : null,
              sources: record?.evidence ?? [],
            }
          : null,
        inspiredBy: v.inspired_by ? labelOf(lang, names, v.inspired_by.sillage_perfume_id) : null,
        toRecommend: v.to_recommend,
        answerable: v.to_recommend !== null || answer !== null,
        answer: answer && {
          inspiredBy: answer.inspired_by
            ? {
                id: answer.inspired_by,
                label: answeredOriginal ? perfumeLabel(lang, answeredOriginal) : answer.inspired_by,
              }
            : null,
          notes: answer.notes,
          accords: answer.accords,
        },
        ...(ticked ? { ticked } : {}),
        q,
        searchFor: search_.for,
        results: hits.map((h) => {
          const p = snapshot.perfumes[h.doc];
          return {
            id: h.id,
            name: p?.name ?? h.id,
            nameAr: p?.nameAr ?? null,
            house: p?.house ?? '',
            houseAr: p?.houseAr ?? null,
            concentration: p?.concentration ?? null,
            year: p?.year ?? null,
            grade: p?.grade ?? null,
          };
        }),
      }),
      status,
    );
  };
  app.get(
    '/shelf/product',
    { schema: { hide: true, params: Params, querystring: ProductQuery } },
    async (request, reply) =>
      productPageOf(
        request,
        reply,
        request.query.id,
        { q: request.query.q ?? '', for: request.query.for ?? 'pin' },
        ({ label, quality }) =>
          // a saved answer says whether it now gives the product a profile
          request.query.done === 'answered' && !quality
            ? { kind: 'ok', text: t(request.consoleLang, 'answerSavedThin') }
            : flashOf(request, { p: label }),
      ),
  );

  const productLink = (id: string) => `shelf/product`.concat(`?id=${encodeURIComponent(id)}&done=`);
  const PinBody = Type.Object({
    _csrf: csrf,
    product: Type.String({ minLength: 1, maxLength: 200 }),
    perfume: Type.String({ minLength: 1, maxLength: 200 }),
  });
  app.post(
    '/shelf/pin',
    { schema: { hide: true, params: Params, body: PinBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const m = merchantOf(request);
      await pinMatch(app.db, app.catalog.current(), m.id, request.body.product, request.body.perfume);
      app.merchantProducts.invalidate(m.id);
      return reply.redirect(`${base(merchantRef(m))}/${productLink(request.body.product)}pinned`, 303);
    },
  );

  const UnpinBody = Type.Object({ _csrf: csrf, product: Type.String({ minLength: 1, maxLength: 200 }) });
  app.post(
    '/shelf/unpin',
    { schema: { hide: true, params: Params, body: UnpinBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const m = merchantOf(request);
      await unpinMatch(app.db, app.catalog.current(), m.id, request.body.product);
      app.merchantProducts.invalidate(m.id);
      return reply.redirect(`${base(merchantRef(m))}/${productLink(request.body.product)}unpinned`, 303);
    },
  );

  /** One value or many, as a form sends a field ticked once or several times. */
  const oneOrMany = (max: number) =>
    Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 120 }),
        Type.Array(Type.String({ minLength: 1, maxLength: 120 }), { maxItems: max }),
      ]),
    );
  const AnswerBody = Type.Object({
    _csrf: csrf,
    product: Type.String({ minLength: 1, maxLength: 200 }),
    // as many as the form offers, so that ticking too many is answered in words (MAX_ANSWER_NOTES, MAX_ANSWER_ACCORDS)
    notes: oneOrMany(MAX_ANSWER_FORM_NOTES),
    accords: oneOrMany(ACCORDS.length),
    inspired_by: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  });
  /** Why an answer is refused, in the page's language. */
  const answerProblem = (
    lang: Lang,
    problem: Extract<AnswerCheck, { ok: false }>,
    sent: { notes: string[]; accords: string[] },
  ): string => {
    switch (problem.problem) {
      case 'notes':
        return t(lang, 'answerTooManyNotes', { m: sent.notes.length, n: MAX_ANSWER_NOTES });
      case 'accords':
        return t(lang, 'answerTooManyAccords', { m: sent.accords.length, n: MAX_ANSWER_ACCORDS });
      case 'note':
        return t(lang, 'answerUnknownNote', { x: problem.item ?? '' });
      case 'accord':
        return t(lang, 'answerUnknownAccord', { x: problem.item ?? '' });
      case 'perfume':
        return t(lang, 'answerNoPerfume');
      case 'profile':
        return t(lang, 'answerNoProfile');
    }
  };
  app.post(
    '/shelf/answer',
    { schema: { hide: true, params: Params, body: AnswerBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const m = merchantOf(request);
      const lang = request.consoleLang;
      const { product } = request.body;
      if (!(await findProductRow(app.db, m.id, product))) throw notFound('product_not_found', t(lang, 'notFound'));
      const snapshot = app.catalog.current();
      const sent = {
        notes: ([] as string[]).concat(request.body.notes ?? []),
        accords: ([] as string[]).concat(request.body.accords ?? []),
        inspired_by: request.body.inspired_by ?? null,
      };
      // checked here first (as the service checks it again) to say what is wrong in the page's language
      const checked = checkAnswer(sent, (id) => snapshot.byId.get(id));
      if (!checked.ok) {
        const text = answerProblem(lang, checked, sent);
        // a script gets the usual JSON; a browser the product's page with why, its ticks as sent
        if (!/text\/html/.test(request.headers.accept ?? '')) throw badRequest('invalid_answer', text);
        return productPageOf(request, reply, product, { q: '', for: 'pin' }, () => ({ kind: 'error', text }), 400, {
          notes: sent.notes,
          accords: sent.accords,
        });
      }
      await answerProduct(app.db, snapshot, m.id, product, sent);
      app.merchantProducts.invalidate(m.id);
      // what it teaches other shops is learnt in the background, never on this request
      app.learning.soon(m.id);
      return reply.redirect(
        `${base(merchantRef(m))}/${productLink(product)}${checked.answer ? 'answered' : 'cleared'}#answer`,
        303,
      );
    },
  );

  const KindBody = Type.Object({
    _csrf: csrf,
    product: Type.String({ minLength: 1, maxLength: 200 }),
    // empty: as the listing reads (the correction cleared)
    kind: Type.Union([Type.Literal(''), ...PRODUCT_KINDS.map((k) => Type.Literal(k))]),
  });
  app.post(
    '/shelf/kind',
    { schema: { hide: true, params: Params, body: KindBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const m = merchantOf(request);
      const { product, kind } = request.body;
      if (!(await findProductRow(app.db, m.id, product)))
        throw notFound('product_not_found', t(request.consoleLang, 'notFound'));
      await setProductKind(app.db, app.catalog.current(), m.id, product, kind === '' ? null : kind);
      // the next score sees the kind at once
      app.merchantProducts.invalidate(m.id);
      return reply.redirect(
        `${base(merchantRef(m))}/${productLink(product)}${kind === '' ? 'kindCleared' : 'kindSaved'}#kind`,
        303,
      );
    },
  );

  const AcceptBody = Type.Object({
    _csrf: csrf,
    accept: Type.Optional(
      Type.Union([
        Type.String({ minLength: 1, maxLength: 200 }),
        Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: MAX_BULK_ACCEPT }),
      ]),
    ),
  });
  app.post(
    '/shelf/accept',
    { schema: { hide: true, params: Params, body: AcceptBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const m = merchantOf(request);
      const ids = [...new Set(([] as string[]).concat(request.body.accept ?? []))];
      const snapshot = app.catalog.current();
      let pinned = 0;
      for (const id of ids) {
        const row = await findProductRow(app.db, m.id, id);
        if (!row) continue;
        // the suggestion as it stands now, not as the page showed it: a product matched since is left
        // alone; explained on the matcher's worker thread (up to MAX_BULK_ACCEPT of them)
        const [explained] = await app.inlineMatcher.explain(m.id, [row]);
        const s = suggestionOf(productView(row, snapshot, explained));
        if (!s) continue;
        await pinMatch(app.db, snapshot, m.id, id, s.id);
        pinned++;
      }
      if (pinned > 0) app.merchantProducts.invalidate(m.id);
      return back(request, reply, 'shelf', 'accepted', `&n=${pinned}`);
    },
  );

  // ---------- install ----------
  const installData = async (request: FastifyRequest, newKey: string | null) => {
    const m = merchantOf(request);
    const [feeds, keys, sightings, events, products, platform] = await Promise.all([
      listSources(app.db, m.id),
      listKeys(app.db, m.id),
      keySightingsOf(app.db, m.id).then(sightingsByVersion),
      lastEvents(app.db, m.id),
      shelfHealth(app.db, m.id),
      installOfMerchant(app.db, m.id).then(
        // the platform named as the merchant's language names it (سلة, زد)
        (i) => i && { ...i, name: platformName(request.consoleLang, i.platform) },
      ),
    ]);
    const live = keys.find((k) => k.mode === 'live' && !k.revoked) ?? keys.find((k) => !k.revoked);
    // only a key just created is known in full (the rest are kept as hashes): otherwise the tag says
    // plainly where the key goes, rather than carrying a shortened key that would not work
    const shownKey = newKey ?? KEY_PLACEHOLDER;
    const scriptTag = `<script src="${app.config.publicBaseUrl}/widget/v1/sillage.js"\n        data-key="${shownKey}" data-locale="ar" async></script>`;
    const keyHint = newKey ? null : (live?.prefix ?? null);
    return {
      keyHint,
      feeds: feeds.map((f) => ({
        id: f.id,
        kind: f.kind,
        url: f.url,
        intervalMinutes: f.interval_minutes,
        paused: f.paused,
        lastPull: f.last_pull
          ? {
              status: f.last_pull.status,
              startedAt: new Date(f.last_pull.started_at),
              added: f.last_pull.added,
              changed: f.last_pull.changed,
              removed: f.last_pull.removed,
              rejected: f.last_pull.rejected,
              error: f.last_pull.error,
            }
          : null,
      })),
      keys: keys.map((k) => ({
        id: k.id,
        prefix: k.prefix,
        mode: k.mode,
        origins: k.allowed_origins,
        revoked: k.revoked,
        createdAt: new Date(k.created_at),
        lastUsedAt: k.last_used_at ? new Date(k.last_used_at) : null,
      })),
      newKey,
      scriptTag,
      sightings,
      events,
      problems: installProblems(request.consoleLang, {
        keys: keys.map((k) => ({ prefix: k.prefix, mode: k.mode, revoked: k.revoked })),
        sightings,
        lastEventAt: events[0]?.receivedAt ?? null,
        products,
        platform,
        now: new Date(),
      }),
      platform: platform && {
        ...platform,
        // a Shopify theme shows the quiz once its app embed is switched on: the deep link that does it
        activateUrl:
          platform.platform === 'shopify' && app.config.platforms.shopify
            ? activationLink(platform.storeId, app.config.platforms.shopify.clientId)
            : null,
      },
    };
  };
  const installOnly = only('install');
  app.get(
    '/install',
    {
      schema: {
        hide: true,
        params: Params,
        querystring: Type.Object({
          done: Type.Optional(Type.String({ maxLength: 20 })),
          lang: Type.Optional(Type.String({ maxLength: 5 })),
          s: Type.Optional(
            Type.Union(['applied', 'not_modified', 'held', 'failed', 'running'].map((x) => Type.Literal(x))),
          ),
        }),
      },
      preHandler: installOnly,
    },
    async (request, reply) =>
      sendPage(
        reply,
        installPage(
          ctxFor(request, reply, 'install', {
            flash: flashOf(request, {
              s: request.query.s ? pullWords(request.consoleLang, request.query.s as never) : '',
            }),
          }),
          merchantRef(merchantOf(request)),
          await installData(request, null),
        ),
      ),
  );

  const KeyBody = Type.Object({
    _csrf: csrf,
    mode: Type.Union([Type.Literal('test'), Type.Literal('live')]),
    origins: Type.Optional(Type.String({ maxLength: 5000 })),
  });
  app.post(
    '/keys',
    { schema: { hide: true, params: Params, body: KeyBody }, preHandler: [installOnly, app.csrfProtection] },
    async (request, reply) => {
      const m = merchantOf(request);
      try {
        const key = await createKey(app.db, m.id, {
          mode: request.body.mode,
          allowedOrigins: originsOf(request.body.origins),
        });
        return sendPage(
          reply,
          installPage(ctxFor(request, reply, 'install'), merchantRef(m), await installData(request, key.key)),
        );
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
        const ctx = ctxFor(request, reply, 'install', { flash: { kind: 'error', text: problemText(err) } });
        return sendPage(reply, installPage(ctx, merchantRef(m), await installData(request, null)), 400);
      }
    },
  );

  const RevokeBody = Type.Object({ _csrf: csrf, key: Type.String({ minLength: 1, maxLength: 64 }) });
  app.post(
    '/keys/revoke',
    { schema: { hide: true, params: Params, body: RevokeBody }, preHandler: [installOnly, app.csrfProtection] },
    async (request, reply) => {
      const m = merchantOf(request);
      // only this merchant's keys: another's id is answered as not found
      const mine = (await listKeys(app.db, m.id)).some((k) => k.id === request.body.key);
      if (!mine) throw notFound('key_not_found', t(request.consoleLang, 'notFound'));
      const { hash } = await revokeKey(app.db, request.body.key);
      await app.keyStore.invalidate(hash);
      return back(request, reply, 'install', 'revoked');
    },
  );

  const OriginsBody = Type.Object({
    _csrf: csrf,
    key: Type.String({ minLength: 1, maxLength: 64 }),
    origins: Type.Optional(Type.String({ maxLength: 5000 })),
  });
  app.post(
    '/keys/origins',
    { schema: { hide: true, params: Params, body: OriginsBody }, preHandler: [installOnly, app.csrfProtection] },
    async (request, reply) => {
      const m = merchantOf(request);
      const mine = (await listKeys(app.db, m.id)).some((k) => k.id === request.body.key);
      if (!mine) throw notFound('key_not_found', t(request.consoleLang, 'notFound'));
      try {
        const { hash } = await updateKeyOrigins(app.db, request.body.key, originsOf(request.body.origins));
        await app.keyStore.invalidate(hash);
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode !== 400) throw err;
        const ctx = ctxFor(request, reply, 'install', { flash: { kind: 'error', text: problemText(err) } });
        return sendPage(reply, installPage(ctx, merchantRef(m), await installData(request, null)), 400);
      }
      return back(request, reply, 'install', 'origins');
    },
  );

  const PullBody = Type.Object({
    _csrf: csrf,
    feed: Type.String({ format: 'uuid' }),
    confirm: Type.Optional(Type.Literal('1')),
  });
  app.post(
    '/feeds/pull',
    { schema: { hide: true, params: Params, body: PullBody }, preHandler: [installOnly, app.csrfProtection] },
    async (request, reply) => {
      const m = merchantOf(request);
      // only this merchant's feeds: another's id is answered as not found
      const mine = (await listSources(app.db, m.id)).some((f) => f.id === request.body.feed);
      if (!mine) throw notFound('feed_not_found', t(request.consoleLang, 'notFound'));
      if (request.body.confirm) await confirmRemoval(app.db, request.body.feed);
      const pull = await app.feeds.pullNow(request.body.feed);
      return back(request, reply, 'install', 'pulled', `&s=${pull.status}`);
    },
  );

  // ---------- leads ----------
  const leadsOnly = only('leads');
  app.get(
    '/leads',
    {
      schema: {
        hide: true,
        params: Params,
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 200 })),
          done: Type.Optional(Type.String({ maxLength: 20 })),
          lang: Type.Optional(Type.String({ maxLength: 5 })),
        }),
      },
      preHandler: leadsOnly,
    },
    async (request, reply) => {
      const m = merchantOf(request);
      const q = request.query.q ?? '';
      const leads = await listLeads(app.db, app.leadCipher, m.id, q);
      return sendPage(
        reply,
        leadsPage(ctxFor(request, reply, 'leads', { flash: flashOf(request) }), merchantRef(m), {
          q,
          leads: leads.map((l) => ({
            id: l.id,
            email: l.email,
            phone: l.phone,
            test: l.test,
            picks: l.picks.map((p) => p.name ?? p.merchant_product_id),
            createdAt: l.createdAt,
          })),
        }),
      );
    },
  );

  app.get('/leads.csv', { schema: { hide: true, params: Params }, preHandler: leadsOnly }, async (request, reply) => {
    const m = merchantOf(request);
    const rows = await exportLeads(app.db, app.leadCipher, m.id);
    request.log.info({ merchant: m.id, leads: rows.length, user: request.consoleUser?.id }, 'leads exported');
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="leads-${m.slug}.csv"`)
      .header('cache-control', 'no-store')
      .send(leadsCsv(rows));
  });

  const EraseBody = Type.Object({ _csrf: csrf, lead: Type.String({ format: 'uuid' }) });
  app.post(
    '/leads/erase',
    { schema: { hide: true, params: Params, body: EraseBody }, preHandler: [leadsOnly, app.csrfProtection] },
    async (request, reply) => {
      const m = merchantOf(request);
      if (!(await eraseLead(app.db, m.id, request.body.lead))) {
        throw notFound('lead_not_found', t(request.consoleLang, 'notFound'));
      }
      request.log.info({ merchant: m.id, user: request.consoleUser?.id }, 'lead erased');
      return back(request, reply, 'leads', 'erased');
    },
  );

  // ---------- team ----------
  const teamOnly = only('team');
  /** The team page, with a confirmation or a refusal above it. */
  const teamView = async (
    request: FastifyRequest,
    reply: FastifyReply,
    flash: PageContext['flash'],
    status = 200,
  ): Promise<FastifyReply> => {
    const m = merchantOf(request);
    const users = await listMerchantUsers(app.db, m.id);
    return sendPage(
      reply,
      teamPage(ctxFor(request, reply, 'team', { flash }), merchantRef(m), {
        users: users.map((u) => ({ id: u.id, email: u.email, role: u.role, lastSignInAt: u.lastSignInAt })),
        manage: true,
        self: request.consoleUser?.id ?? null,
      }),
      status,
    );
  };
  app.get(
    '/team',
    {
      schema: {
        hide: true,
        params: Params,
        querystring: Type.Object({
          done: Type.Optional(Type.String({ maxLength: 20 })),
          lang: Type.Optional(Type.String({ maxLength: 5 })),
        }),
      },
      preHandler: teamOnly,
    },
    async (request, reply) => teamView(request, reply, flashOf(request)),
  );

  const TeamBody = Type.Object({
    _csrf: csrf,
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
  });
  app.post(
    '/team',
    { schema: { hide: true, params: Params, body: TeamBody }, preHandler: [teamOnly, app.csrfProtection] },
    async (request, reply) => {
      const m = merchantOf(request);
      try {
        // an address an owner types is not proven (it yields to whoever proves it); an operator's is
        await createConsoleUser(app.db, {
          ...request.body,
          merchant: m.id,
          proven: request.consoleUser?.role === 'operator',
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
        return teamView(request, reply, { kind: 'error', text: err.message }, err.statusCode);
      }
      return back(request, reply, 'team', 'added');
    },
  );

  const RemoveBody = Type.Object({ _csrf: csrf, user: Type.String({ format: 'uuid' }) });
  app.post(
    '/team/remove',
    { schema: { hide: true, params: Params, body: RemoveBody }, preHandler: [teamOnly, app.csrfProtection] },
    async (request, reply) => {
      if (request.body.user === request.consoleUser?.id) {
        const text = t(request.consoleLang, 'cannotRemoveSelf');
        // a browser gets the team page, with why and the rest of the team; a script the usual JSON
        if (!/text\/html/.test(request.headers.accept ?? '')) throw new AppError(400, 'cannot_remove_self', text);
        return teamView(request, reply, { kind: 'error', text }, 400);
      }
      await removeMerchantUser(app.db, merchantOf(request).id, request.body.user);
      return back(request, reply, 'team', 'removed');
    },
  );
};

export default merchantPages;
