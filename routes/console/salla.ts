import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Lang, t } from '../../console/i18n.ts';
import { base, type DashboardView, enterPage, sallaDashboardPage } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import { createConsoleTicket, peekConsoleTicket, takeConsoleTicket } from '../../services/console-users.ts';
import { getMerchant } from '../../services/merchants.ts';
import { installOfMerchant } from '../../services/platforms.ts';
import { catalogReadiness } from '../../services/readiness.ts';
import { pageContext, sendPage } from './page.ts';

/**
 * Openings of the dashboard page one address (an IPv6 /64) may make a minute, per instance (each
 * asks Salla twice), and tickets one store's page may make a minute.
 */
export const DASHBOARD_OPENINGS_PER_MINUTE = 30;
/** Openings of the dashboard page the whole instance checks with Salla a minute. */
export const DASHBOARD_CHECKS_PER_MINUTE = 600;

const ASSETS_DIR = join(import.meta.dirname, '..', '..', 'console', 'assets');
/**
 * The dashboard page's one script: Salla's embedded SDK (its browser build, which reads
 * `process.env.NODE_ENV` to decide whether to check the dashboard's origin: set here to
 * `production`, so it listens only to Salla's dashboard), then the page's own start-up.
 */
function dashboardScript(): string {
  const sdkMain = createRequire(import.meta.url).resolve('@salla.sa/embedded-sdk');
  const sdk = readFileSync(join(dirname(sdkMain), '..', 'umd', 'index.js'), 'utf8');
  return [
    'window.process = window.process || { env: { NODE_ENV: "production" } };',
    sdk.replace(/^\/\/# sourceMappingURL=.*$/m, ''),
    readFileSync(join(ASSETS_DIR, 'salla-dashboard.js'), 'utf8'),
  ].join('\n');
}

/**
 * The Salla app's page in the merchant's Salla dashboard (docs/platforms.md), and the way from it
 * into the console, signed in. Salla loads `/console/salla/dashboard?token=…` in an iframe; the
 * token is checked with Salla's introspection (`app.platforms.sallaDashboard`), and the page shows
 * the store's shelf in a line and a button that opens the console in a new tab through a one-time
 * ticket (`/console/salla/enter`). The console's own cookie is never set inside Salla's frame,
 * where browsers treat it as a third party's.
 */
const sallaConsole: FastifyPluginAsyncTypebox = async (app) => {
  const dashboard = app.config.platforms.salla?.dashboard ?? null;
  const byAddress = createWindowCounter({ name: 'salla-dashboard-address', max: 10_000, windowMs: 60_000 });
  const byStore = createWindowCounter({ name: 'salla-dashboard-store', max: 10_000, windowMs: 60_000 });
  const checks = createWindowCounter({ name: 'salla-dashboard-checks', max: 1, windowMs: 60_000 });
  const script = dashboard ? dashboardScript() : '';
  const off = () => new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
  /** a browser (the iframe) gets the page saying what went wrong; a script the usual JSON error */
  const isBrowser = (request: FastifyRequest) => /text\/html/.test(request.headers.accept ?? '');
  const langOf = (request: FastifyRequest): Lang =>
    (request.query as { lang?: unknown } | undefined)?.lang === 'en' ? 'en' : 'ar';
  const page = (reply: FastifyReply, lang: Lang, view: DashboardView, status = 200) => {
    if (!dashboard) throw off();
    return reply
      .code(status)
      .headers({
        'content-type': 'text/html; charset=utf-8',
        // framed by Salla's dashboard and nothing else; nothing but this origin's script and style
        'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'none'; base-uri 'none'; frame-ancestors ${dashboard.origin}`,
        'x-content-type-options': 'nosniff',
        // the page's address holds Salla's token: never sent on to another page
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      })
      .send(sallaDashboardPage(lang, view).value);
  };

  app.get('/dashboard.js', { schema: { hide: true } }, async (_request, reply) => {
    if (!dashboard) throw off();
    return reply
      .headers({
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
      })
      .send(script);
  });

  app.get(
    '/dashboard',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          token: Type.Optional(Type.String({ maxLength: 4096 })),
          lang: Type.Optional(Type.String({ maxLength: 10 })),
          theme: Type.Optional(Type.String({ maxLength: 20 })),
          app_id: Type.Optional(Type.String({ maxLength: 40 })),
        }),
      },
      // any error inside Salla's frame is the page saying so (the console's error page may not be framed)
      errorHandler(err, request, reply) {
        if (!dashboard || !isBrowser(request)) throw err;
        const lang = langOf(request);
        const code = err instanceof AppError ? err.code : (err as { validation?: unknown }).validation ? 'invalid' : '';
        if (code === 'invalid_oauth_state' || code === 'invalid')
          return page(reply, lang, { state: 'refresh', message: t(lang, 'dashboardExpired') }, 400);
        if (code === 'unknown_store')
          return page(reply, lang, { state: 'error', message: t(lang, 'dashboardUnknownStore') }, 404);
        if (code === 'rate_limited') {
          const wait = Number(reply.getHeader('retry-after')) || 60;
          return page(reply, lang, { state: 'error', message: t(lang, 'dashboardThrottled', { s: wait }) }, 429);
        }
        request.log.warn({ err }, "Salla's dashboard page could not be answered");
        return page(reply, lang, { state: 'refresh', message: t(lang, 'dashboardUnavailable') }, 502);
      },
    },
    async (request, reply) => {
      if (!dashboard) throw off();
      const lang = langOf(request);
      const throttled = (wait: number) => {
        reply.header('retry-after', String(wait));
        return new AppError(429, 'rate_limited', 'Too many openings of this page: try again later');
      };
      // each opening asks Salla: one address (an IPv6 /64 counts as one) and the instance as a whole are held
      const ip = request.ip;
      const seen = byAddress.add(ip.includes(':') ? normalizeIP(ip) : ip);
      if (seen.count > DASHBOARD_OPENINGS_PER_MINUTE) throw throttled(seen.retryAfter);
      const all = checks.add('all');
      if (all.count > DASHBOARD_CHECKS_PER_MINUTE) throw throttled(all.retryAfter);
      const token = request.query.token;
      if (!token) throw new AppError(400, 'invalid_oauth_state', "Open the app from Salla's dashboard");
      const opened = await app.platforms.sallaDashboard(token);
      // one store's page opened over and over (a token is good for minutes) makes no more tickets
      const store = byStore.add(opened.storeId);
      if (store.count > DASHBOARD_OPENINGS_PER_MINUTE) throw throttled(store.retryAfter);
      const merchant = await getMerchant(app.db, opened.merchantId);
      request.log.info({ event: 'salla_dashboard_opened', merchant: opened.merchantId }, 'salla dashboard page opened');
      if (!isBrowser(request)) return { merchant: merchant.slug, signs_in: opened.owner?.email ?? null };
      const shelf = await catalogReadiness(app.db, opened.merchantId);
      const owner = opened.owner;
      return page(reply, lang, {
        state: 'ok',
        store: merchant.name,
        shelf: { total: shelf.total, matched: shelf.matched, partial: shelf.partial },
        // a ticket only for a page a person sees
        enter: owner
          ? {
              // the dashboard's language carries on into the console (its cookie cannot be set in Salla's frame)
              href: `/console/salla/enter?ticket=${await createConsoleTicket(app.db, owner.id)}&lang=${lang}`,
              email: owner.email,
            }
          : { refused: opened.refused ?? 'no_account' },
      });
    },
  );

  /** The store a ticket's user owns, while the store still has the app; else null. */
  const installedStoreOf = async (merchantId: string | null) => {
    if (!merchantId) return null;
    const install = await installOfMerchant(app.db, merchantId);
    return install?.platform === 'salla' && install.status === 'installed' ? getMerchant(app.db, merchantId) : null;
  };
  const TicketQuery = Type.Object({ ticket: Type.Optional(Type.String({ maxLength: 100 })) });

  // the link shows whom it signs in and where; only the button (a form, with its CSRF token) spends
  // the ticket, so a link someone else sent signs nobody in by being opened
  app.get('/enter', { schema: { hide: true, querystring: TicketQuery } }, async (request, reply) => {
    const lang = request.consoleLang;
    const ticket = request.query.ticket ?? '';
    const user = await peekConsoleTicket(app.db, ticket);
    const merchant = await installedStoreOf(user?.merchantId ?? null);
    if (!user || !merchant) throw new AppError(400, 'invalid_oauth_state', t(lang, 'enterUsed'));
    const current = request.consoleUser;
    if (current && current.id !== user.id) {
      throw new AppError(409, 'signed_in_elsewhere', t(lang, 'enterOther', { e: current.email, o: user.email }));
    }
    if (current) return reply.redirect(`${base(merchant)}/install`, 303);
    return sendPage(reply, enterPage(pageContext(request, reply), { store: merchant.name, email: user.email, ticket }));
  });

  app.post(
    '/enter',
    {
      schema: {
        hide: true,
        body: Type.Object({
          _csrf: Type.Optional(Type.String({ maxLength: 200 })),
          ticket: Type.String({ maxLength: 100 }),
        }),
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const lang = request.consoleLang;
      const ticket = request.body.ticket;
      const current = request.consoleUser;
      const pending = await peekConsoleTicket(app.db, ticket);
      // a browser signed in as someone else keeps its session, and the ticket stays for its own browser
      if (current && pending && current.id !== pending.id) {
        throw new AppError(409, 'signed_in_elsewhere', t(lang, 'enterOther', { e: current.email, o: pending.email }));
      }
      const user = await takeConsoleTicket(app.db, ticket);
      const merchant = await installedStoreOf(user?.merchantId ?? null);
      if (!user || !merchant) throw new AppError(400, 'invalid_oauth_state', t(lang, 'enterUsed'));
      if (!current) {
        // a new session id: one planted before is worth nothing after
        await request.session.regenerate();
        request.session.userId = user.id;
        await request.session.save();
        request.log.info({ event: 'console_sign_in', user: user.id, via: 'salla' }, 'console sign-in');
      }
      return reply.redirect(`${base(merchant)}/install`, 303);
    },
  );
};

export default sallaConsole;
