import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createDashboardGate, DASHBOARD_OPENINGS_PER_MINUTE } from '../../auth/salla-dashboard-gate.ts';
import { type Lang, t } from '../../console/i18n.ts';
import { base, type DashboardView, enterPage, sallaDashboardPage } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { fromRoot } from '../../lib/root.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import { type SallaDashboardToken, sallaDashboardTokenShaped } from '../../platforms/salla.ts';
import { createConsoleTicket, peekConsoleTicket, takeConsoleTicket } from '../../services/console-users.ts';
import { getMerchant } from '../../services/merchants.ts';
import { installOfMerchant } from '../../services/platforms.ts';
import { catalogReadiness } from '../../services/readiness.ts';
import { pageContext, sendPage } from './page.ts';

/** Tickets one store's page may make a minute, per instance, whatever the addresses. */
export const DASHBOARD_TICKETS_PER_MINUTE = DASHBOARD_OPENINGS_PER_MINUTE;
/** The cookie a good opening leaves in the browser (inside Salla's frame: partitioned, a third party's). */
export const DASHBOARD_COOKIE = 'salla_dashboard';
/** How long that cookie lets a browser check a token outside the instance's budget. */
export const DASHBOARD_COOKIE_S = 30 * 86_400;

const ASSETS_DIR = fromRoot('console', 'assets');
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
 * token is checked with Salla's introspection (`app.platforms.sallaIntrospect`, within what
 * auth/salla-dashboard-gate.ts allows), the store and its owner read
 * (`app.platforms.sallaDashboard`), and the page shows the store's shelf in a line and a button
 * that opens the console in a new tab through a one-time ticket (`/console/salla/enter`). The
 * console's own cookie is never set inside Salla's frame, where browsers treat it as a third
 * party's (the page's own partitioned cookie only marks a browser that opened it before).
 */
const sallaConsole: FastifyPluginAsyncTypebox = async (app) => {
  const dashboard = app.config.platforms.salla?.dashboard ?? null;
  const gate = createDashboardGate();
  /** tokens being checked with Salla now (as many as the gate lets through at once) */
  const checking = new Map<string, Promise<SallaDashboardToken | null>>();
  const byStore = createWindowCounter({ name: 'salla-dashboard-store', max: 10_000, windowMs: 60_000 });
  const script = dashboard ? dashboardScript() : '';
  const off = () => new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
  /** The store of this browser's cookie of a good opening, signed and unexpired; else null. */
  const cookieStore = (request: FastifyRequest): string | null => {
    const kept = request.cookies[DASHBOARD_COOKIE];
    const unsigned = kept ? request.unsignCookie(kept) : null;
    const m = unsigned?.valid ? /^([0-9]{1,20}):([0-9]{1,12})$/.exec(unsigned.value ?? '') : null;
    return m && Number(m[2]) * 1000 > Date.now() ? (m[1] as string) : null;
  };
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
      // a bogus token costs its sender, not every merchant (auth/salla-dashboard-gate.ts): every
      // opening of an address is counted; a token is looked at, then its answer here before, before
      // Salla is asked; a check is counted before the call against the address, its network and the
      // instance, unless this browser or address opened the page before
      const ip = request.ip;
      const busy = gate.opening(ip);
      if (busy !== null) throw throttled(busy);
      const token = request.query.token;
      if (!token) throw new AppError(400, 'invalid_oauth_state', "Open the app from Salla's dashboard");
      const refused = () =>
        new AppError(400, 'invalid_oauth_state', "Open the app again from Salla's dashboard: its sign-in has expired");
      if (!sallaDashboardTokenShaped(token)) throw refused();
      let checked = gate.known(token);
      if (checked === undefined) {
        // openings of one token at once wait on one call, counted once
        let pending = checking.get(token);
        if (!pending) {
          const check = gate.check(ip, cookieStore(request));
          if ('wait' in check) throw throttled(check.wait);
          pending = app.platforms
            .sallaIntrospect(token)
            .then((answer) => {
              check.proven(token, answer);
              return answer;
            })
            .finally(() => checking.delete(token));
          checking.set(token, pending);
        }
        checked = await pending;
      }
      if (!checked) throw refused();
      const opened = await app.platforms.sallaDashboard(checked);
      // one store's page opened over and over (a token is good for minutes) makes no more tickets
      const store = byStore.add(opened.storeId);
      if (store.count > DASHBOARD_TICKETS_PER_MINUTE) throw throttled(store.retryAfter);
      // this browser opened the store's page: its next openings are not held by what others spend
      reply.setCookie(DASHBOARD_COOKIE, `${opened.storeId}:${Math.floor(Date.now() / 1000) + DASHBOARD_COOKIE_S}`, {
        path: '/console/salla/dashboard',
        httpOnly: true,
        secure: true,
        sameSite: 'none',
        partitioned: true,
        signed: true,
        maxAge: DASHBOARD_COOKIE_S,
      });
      const merchant = await getMerchant(app.db, opened.merchantId);
      request.log.info({ event: 'salla_dashboard_opened', merchant: opened.merchantId }, 'salla dashboard page opened');
      if (!isBrowser(request)) return { merchant: merchant.slug, signs_in: opened.owner?.email ?? null };
      const shelf = await catalogReadiness(app.db, opened.merchantId);
      const owner = opened.owner;
      return page(reply, lang, {
        state: 'ok',
        store: merchant.name,
        // matched and with a profile: a perfume recognised without one is not recommended
        shelf: { total: shelf.total, matched: shelf.matched - shelf.without_profile, partial: shelf.partial },
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
