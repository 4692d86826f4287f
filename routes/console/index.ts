import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifySession from '@fastify/session';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LANGS, type Lang, t } from '../../console/i18n.ts';
import { errorPage, type PageContext } from '../../console/views.ts';
import { notFound } from '../../lib/errors.ts';
import { fromRoot } from '../../lib/root.ts';
import { resolveLeadKey } from '../../privacy/lead-key.ts';
import {
  destroyConsoleSession,
  getConsoleUser,
  loadConsoleSession,
  saveConsoleSession,
} from '../../services/console-users.ts';
import merchantPages from './merchant.ts';
import { ANONYMOUS, CONSOLE_CSP } from './page.ts';
import sallaConsole from './salla.ts';
import shopifyConsole from './shopify.ts';
import signIn from './sign-in.ts';
import wooConsole from './woocommerce.ts';
import zidConsole from './zid.ts';

/** A signed-in console session lasts this long from sign-in, whatever is done in it. */
export const CONSOLE_SESSION_MS = 12 * 3600 * 1000;
/** Largest body the console accepts, a form or JSON (a product search, a list of origins, a bulk accept of 100 products). */
export const CONSOLE_FORM_LIMIT = 64 * 1024;
const LANG_COOKIE = 'console_lang';

const ASSETS_DIR = fromRoot('console', 'assets');
const ASSETS = {
  css: readFileSync(join(ASSETS_DIR, 'console.css'), 'utf8'),
  js: readFileSync(join(ASSETS_DIR, 'console.js'), 'utf8'),
  icon: readFileSync(join(ASSETS_DIR, 'favicon.svg'), 'utf8'),
};

/**
 * The merchant console (docs/console.md): pages under /console, signed in with a console user's
 * email and password; the session is a cookie (HttpOnly, SameSite=Lax, Secure over HTTPS) naming a
 * row of console_sessions; every form carries a CSRF token bound to the user.
 */
const consoleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // a key derived from the one that guards leads, so an operator has nothing more to configure
  const leadKey = resolveLeadKey(app.config, true) as Buffer;
  const secret = Buffer.from(hkdfSync('sha256', leadKey, 'sillage', 'console session cookies', 32)).toString('hex');
  const hmacKey = Buffer.from(hkdfSync('sha256', leadKey, 'sillage', 'console csrf tokens', 32));
  const db = app.db;

  // every console body, a form or JSON, is at most CONSOLE_FORM_LIMIT: 413 past it, before it is read
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= CONSOLE_FORM_LIMIT;
  });
  await app.register(fastifyFormbody, { bodyLimit: CONSOLE_FORM_LIMIT });
  await app.register(fastifyCookie, { secret });
  await app.register(fastifySession, {
    secret,
    cookieName: 'console_session',
    saveUninitialized: false,
    rolling: false,
    cookie: { path: '/console', httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: CONSOLE_SESSION_MS },
    store: {
      set(sessionId, session, callback) {
        const userId = session.userId;
        // a session is stored only once someone signed in to it
        if (!userId) return callback();
        const expires = session.cookie.expires ?? new Date(Date.now() + CONSOLE_SESSION_MS);
        const { cookie: _cookie, ...data } = session as unknown as Record<string, unknown>;
        saveConsoleSession(db, sessionId, userId, JSON.parse(JSON.stringify(data)), new Date(expires)).then(
          () => callback(),
          (err) => callback(err),
        );
      },
      get(sessionId, callback) {
        loadConsoleSession(db, sessionId).then(
          (data) => callback(null, (data ?? null) as never),
          (err) => callback(err),
        );
      },
      destroy(sessionId, callback) {
        destroyConsoleSession(db, sessionId).then(
          () => callback(),
          (err) => callback(err),
        );
      },
    },
  });
  await app.register(fastifyCsrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'console_csrf',
    cookieOpts: { path: '/console', httpOnly: true, sameSite: 'strict', secure: 'auto', signed: true },
    // a token made for one user is refused in another's session (and an anonymous one once signed in)
    getUserInfo: (request) => request.consoleUser?.id ?? ANONYMOUS,
    // a form older than a session is refused too
    csrfOpts: { hmacKey, validity: CONSOLE_SESSION_MS },
  });

  app.decorateRequest('consoleUser', null);
  app.decorateRequest('consoleLang', 'ar');

  app.addHook('preHandler', async (request, reply) => {
    const asked = (request.query as { lang?: unknown } | undefined)?.lang;
    if (typeof asked === 'string' && (LANGS as readonly string[]).includes(asked)) {
      request.consoleLang = asked as Lang;
      reply.setCookie(LANG_COOKIE, asked, { path: '/console', sameSite: 'lax', httpOnly: true, maxAge: 365 * 86400 });
    } else {
      const kept = request.cookies[LANG_COOKIE];
      request.consoleLang = kept === 'en' ? 'en' : 'ar';
    }
    const userId = request.session.userId;
    if (userId) {
      const user = await getConsoleUser(app.db, userId);
      if (user) request.consoleUser = user;
      else await request.session.destroy();
    }
  });

  // errors of the console's pages: a browser gets a page in its language, a script the usual JSON
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 400 || !String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      return payload;
    }
    if (!/text\/html/.test(request.headers.accept ?? '')) return payload;
    let message = t(request.consoleLang, 'error');
    try {
      const body = JSON.parse(String(payload)) as { error?: string; code?: string };
      if (body.code === 'invalid_csrf_token') message = t(request.consoleLang, 'badForm');
      else if (body.error) message = body.error;
    } catch {
      // not our error shape: the generic sentence
    }
    const ctx: PageContext = {
      lang: request.consoleLang,
      path: request.url.split('?')[0] ?? '/console',
      csrf: '',
      viewer: null,
    };
    reply.headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONSOLE_CSP,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
    });
    return errorPage(ctx, reply.statusCode, message).value;
  });

  const asset = (type: string, body: string) => async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .headers({ 'content-type': type, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' })
      .send(body);
  app.get('/assets/console.css', { schema: { hide: true } }, asset('text/css; charset=utf-8', ASSETS.css));
  app.get('/assets/console.js', { schema: { hide: true } }, asset('text/javascript; charset=utf-8', ASSETS.js));
  // the tab's icon: an SVG of our own origin, which the pages' CSP (img-src 'self') lets in
  app.get('/assets/favicon.svg', { schema: { hide: true } }, asset('image/svg+xml', ASSETS.icon));

  // a console address that does not exist: the console's own not-found page (or JSON), in its language
  app.setNotFoundHandler(async (request) => {
    throw notFound('not_found', t(request.consoleLang, 'notFound'));
  });

  await app.register(signIn);
  await app.register(sallaConsole, { prefix: '/salla' });
  await app.register(zidConsole, { prefix: '/zid' });
  await app.register(shopifyConsole, { prefix: '/shopify' });
  await app.register(wooConsole, { prefix: '/woocommerce' });
  await app.register(merchantPages, { prefix: '/m/:merchant' });
};

export default consoleRoutes;
