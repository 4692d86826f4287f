import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  createSignInThrottle,
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE_S,
  DEVICE_COOKIE_PATH,
  deviceCookieValue,
  deviceFor,
  type Reservation,
  signInAddress,
} from '../../auth/sign-in-throttle.ts';
import { t } from '../../console/i18n.ts';
import { base, merchantsPage, setupPage, signInPage } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { countOperators, createConsoleUser, normaliseEmail, signInUser } from '../../services/console-users.ts';
import { findMerchant, listMerchants } from '../../services/merchants.ts';
import { pageContext, sendPage } from './page.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

const SignInBody = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
});

const SetupBody = Type.Object({
  _csrf: Type.Optional(Type.String({ maxLength: 200 })),
  token: Type.String({ minLength: 1, maxLength: 500 }),
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 200 }),
});

const signIn: FastifyPluginAsyncTypebox = async (app) => {
  // wrong passwords and setup tokens, counted before they are checked (auth/sign-in-throttle.ts)
  const throttle = createSignInThrottle();
  const throttled = (request: FastifyRequest, reply: FastifyReply, refused: Reservation & { ok: false }) => {
    reply.header('retry-after', String(refused.retryAfter));
    request.log.info({ event: 'console_sign_in_throttled', limit: refused.limit }, 'console sign-in throttled');
    return pageContext(request, reply, {
      flash: { kind: 'error', text: t(request.consoleLang, 'throttled', { s: refused.retryAfter }) },
    });
  };
  const adminToken = app.config.adminToken;

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    const user = request.consoleUser;
    if (!user) {
      const first = adminToken !== null && (await countOperators(app.db)) === 0;
      return reply.redirect(first ? '/console/setup' : '/console/sign-in', 303);
    }
    if (user.role !== 'operator') {
      const m = user.merchantId ? await findMerchant(app.db, user.merchantId) : undefined;
      if (!m) throw new AppError(404, 'merchant_not_found', t(request.consoleLang, 'notFound'));
      return reply.redirect(`${base(m)}/`, 303);
    }
    const merchants = await listMerchants(app.db);
    return sendPage(reply, merchantsPage(pageContext(request, reply), merchants));
  });

  app.get('/sign-in', { schema: { hide: true } }, async (request, reply) => {
    if (request.consoleUser) return reply.redirect('/console', 303);
    return sendPage(reply, signInPage(pageContext(request, reply)));
  });

  app.post(
    '/sign-in',
    { schema: { hide: true, body: SignInBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const lang = request.consoleLang;
      const email = normaliseEmail(request.body.email);
      const kept = request.cookies[DEVICE_COOKIE];
      const unsigned = kept ? request.unsignCookie(kept) : null;
      const device = unsigned?.valid ? deviceFor(unsigned.value, email) : null;
      // counted before the database and Argon2 are asked: simultaneous guesses cannot all pass a check
      const attempt = throttle.reserve({ email, address: signInAddress(request.ip), device });
      if (!attempt.ok) {
        return sendPage(reply, signInPage(throttled(request, reply, attempt), request.body.email), 429);
      }
      let user: Awaited<ReturnType<typeof signInUser>>;
      try {
        user = await signInUser(app.db, email, request.body.password);
      } catch (err) {
        // the password was not judged: the attempt does not count
        attempt.release();
        throw err;
      }
      if (!user) {
        request.log.info({ event: 'console_sign_in_failed', device: device !== null }, 'console sign-in failed');
        const ctx = pageContext(request, reply, { flash: { kind: 'error', text: t(lang, 'signInFailed') } });
        return sendPage(reply, signInPage(ctx, request.body.email), 401);
      }
      attempt.release();
      // this browser is now known for this email: its own attempts are no longer counted with strangers'
      reply.setCookie(DEVICE_COOKIE, deviceCookieValue(email), {
        path: DEVICE_COOKIE_PATH,
        httpOnly: true,
        sameSite: 'strict',
        secure: 'auto',
        signed: true,
        maxAge: DEVICE_COOKIE_MAX_AGE_S,
      });
      // a new session id at sign-in: an id planted before it is worth nothing after
      await request.session.regenerate();
      request.session.userId = user.id;
      await request.session.save();
      request.log.info({ event: 'console_sign_in', user: user.id }, 'console sign-in');
      return reply.redirect('/console', 303);
    },
  );

  app.post('/sign-out', { schema: { hide: true }, preHandler: app.csrfProtection }, async (request, reply) => {
    await request.session.destroy();
    return reply.redirect('/console/sign-in', 303);
  });

  /** The first operator, made by whoever holds ADMIN_TOKEN; closed once an operator exists. */
  const setupOpen = async () => adminToken !== null && (await countOperators(app.db)) === 0;

  app.get('/setup', { schema: { hide: true } }, async (request, reply) => {
    if (!(await setupOpen())) return reply.redirect('/console/sign-in', 303);
    return sendPage(reply, setupPage(pageContext(request, reply)));
  });

  app.post(
    '/setup',
    { schema: { hide: true, body: SetupBody }, preHandler: app.csrfProtection },
    async (request, reply) => {
      if (!(await setupOpen())) return reply.redirect('/console/sign-in', 303);
      const lang = request.consoleLang;
      const attempt = throttle.reserve({ address: signInAddress(request.ip) });
      if (!attempt.ok) return sendPage(reply, setupPage(throttled(request, reply, attempt)), 429);
      if (!timingSafeEqual(digest(request.body.token), digest(adminToken as string))) {
        const ctx = pageContext(request, reply, { flash: { kind: 'error', text: t(lang, 'setupWrongToken') } });
        return sendPage(reply, setupPage(ctx), 401);
      }
      attempt.release();
      const user = await createConsoleUser(app.db, {
        email: request.body.email,
        password: request.body.password,
        role: 'operator',
      });
      await request.session.regenerate();
      request.session.userId = user.id;
      await request.session.save();
      return reply.redirect('/console', 303);
    },
  );
};

export default signIn;
