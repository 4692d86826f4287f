import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { type Lang, t } from '../../console/i18n.ts';
import { base, type DashboardView, sallaDashboardPage } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import { createConsoleTicket, takeConsoleTicket } from '../../services/console-users.ts';
import { getMerchant } from '../../services/merchants.ts';
import { catalogReadiness } from '../../services/readiness.ts';

/** Openings of the dashboard page one address may make a minute, per instance (each asks Salla twice). */
export const DASHBOARD_OPENINGS_PER_MINUTE = 30;

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
  const openings = createWindowCounter({ name: 'salla-dashboard-openings', max: 10_000, windowMs: 60_000 });
  const script = dashboard ? dashboardScript() : '';

  app.get('/dashboard.js', { schema: { hide: true } }, async (_request, reply) => {
    if (!dashboard) throw new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
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
    },
    async (request, reply) => {
      if (!dashboard) throw new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
      const lang: Lang = request.query.lang === 'en' ? 'en' : 'ar';
      const page = (view: DashboardView, status = 200) =>
        reply
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
      // a script's request gets the usual JSON error; a browser (the iframe) the page, saying what went wrong
      const browser = /text\/html/.test(request.headers.accept ?? '');

      const seen = openings.add(request.ip);
      if (seen.count > DASHBOARD_OPENINGS_PER_MINUTE) {
        reply.header('retry-after', String(seen.retryAfter));
        if (!browser) throw new AppError(429, 'rate_limited', 'Too many openings of this page: try again later');
        return page({ state: 'error', message: t(lang, 'dashboardThrottled', { s: seen.retryAfter }) }, 429);
      }
      let opened: Awaited<ReturnType<typeof app.platforms.sallaDashboard>>;
      try {
        const token = request.query.token;
        if (!token) throw new AppError(400, 'invalid_oauth_state', "Open the app from Salla's dashboard");
        opened = await app.platforms.sallaDashboard(token);
      } catch (err) {
        if (!browser || !(err instanceof Error)) throw err;
        const code = err instanceof AppError ? err.code : 'internal';
        if (code === 'invalid_oauth_state')
          return page({ state: 'refresh', message: t(lang, 'dashboardExpired') }, 400);
        if (code === 'unknown_store') return page({ state: 'error', message: t(lang, 'dashboardUnknownStore') }, 404);
        request.log.warn({ err }, "Salla's dashboard page could not be checked");
        return page({ state: 'refresh', message: t(lang, 'dashboardUnavailable') }, 502);
      }
      const [merchant, shelf] = await Promise.all([
        getMerchant(app.db, opened.merchantId),
        catalogReadiness(app.db, opened.merchantId),
      ]);
      const owner = opened.owner;
      const enter = owner
        ? { href: `/console/salla/enter?ticket=${await createConsoleTicket(app.db, owner.id)}`, email: owner.email }
        : null;
      request.log.info({ event: 'salla_dashboard_opened', merchant: opened.merchantId }, 'salla dashboard page opened');
      if (!browser) return { merchant: merchant.slug, signs_in: owner?.email ?? null };
      return page({
        state: 'ok',
        store: merchant.name,
        shelf: { total: shelf.total, recognised: shelf.matched + shelf.partial },
        enter,
      });
    },
  );

  app.get(
    '/enter',
    {
      schema: { hide: true, querystring: Type.Object({ ticket: Type.Optional(Type.String({ maxLength: 100 })) }) },
    },
    async (request, reply) => {
      const lang = request.consoleLang;
      const current = request.consoleUser;
      const user = await takeConsoleTicket(app.db, request.query.ticket ?? '');
      if (!user?.merchantId) throw new AppError(400, 'invalid_oauth_state', t(lang, 'enterUsed'));
      // a browser signed in as someone else keeps its session: a link someone sent cannot swap it
      if (current && current.id !== user.id) {
        throw new AppError(409, 'signed_in_elsewhere', t(lang, 'enterOther', { e: current.email, o: user.email }));
      }
      if (!current) {
        // a new session id: one planted before is worth nothing after
        await request.session.regenerate();
        request.session.userId = user.id;
        await request.session.save();
        request.log.info({ event: 'console_sign_in', user: user.id, via: 'salla' }, 'console sign-in');
      }
      return reply.redirect(`${base(await getMerchant(app.db, user.merchantId))}/install`, 303);
    },
  );
};

export default sallaConsole;
