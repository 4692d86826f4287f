import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { base } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { platformOwner } from '../../services/console-users.ts';
import { getMerchant } from '../../services/merchants.ts';

/** The OAuth state's cookie: only the console's Zid routes see it, for ten minutes. */
const STATE_COOKIE = 'zid_oauth_state';
const STATE_MS = 10 * 60_000;

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Installing the Zid app (docs/platforms.md). `/console/zid/install` is the app's Redirection URL
 * (and its Application URL): it sends the merchant to Zid to authorize the app, with a state held in
 * a signed cookie. `/console/zid/callback` is its Callback URL: the state checked, the code exchanged
 * for the store's tokens, the store installed (merchant, keys, webhooks, storefront script, first
 * import), and the merchant's manager signed in to the console as the store's owner. Opening the app
 * from Zid's dashboard again goes through the same two steps: it signs the manager in again.
 */
const zidConsole: FastifyPluginAsyncTypebox = async (app) => {
  const zid = () => {
    if (!app.zid) throw new AppError(404, 'platform_not_configured', 'The Zid app is not set up on this service');
    return app.zid;
  };

  app.get('/install', { schema: { hide: true } }, async (_request, reply) => {
    const flow = zid();
    const state = randomBytes(24).toString('base64url');
    reply.setCookie(STATE_COOKIE, state, {
      path: '/console/zid',
      httpOnly: true,
      sameSite: 'lax',
      secure: 'auto',
      signed: true,
      maxAge: STATE_MS / 1000,
    });
    return reply.redirect(flow.authorizeUrl(state), 302);
  });

  app.get(
    '/callback',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          state: Type.Optional(Type.String({ maxLength: 200 })),
          error: Type.Optional(Type.String({ maxLength: 200 })),
        }),
      },
    },
    async (request, reply) => {
      const flow = zid();
      const kept = request.cookies[STATE_COOKIE];
      const unsigned = kept ? request.unsignCookie(kept) : null;
      reply.clearCookie(STATE_COOKIE, { path: '/console/zid' });
      const { code, state, error } = request.query;
      if (error) throw new AppError(400, 'install_refused', 'The app was not authorized on Zid');
      // the state this browser was given at the start: a callback someone else started is refused
      if (!unsigned?.valid || !unsigned.value || !state || !timingSafeEqual(digest(unsigned.value), digest(state))) {
        throw new AppError(400, 'invalid_oauth_state', 'Start the install again from Zid: this sign-in has expired');
      }
      if (!code) throw new AppError(400, 'invalid_oauth_state', "Zid's answer has no code");
      const done = await flow.install(code);
      const merchant = await getMerchant(app.db, done.merchantId);
      const user = await platformOwner(app.db, done.merchantId, done.profile.email, { proven: true });
      if (!user) return reply.redirect('/console/sign-in', 303);
      await request.session.regenerate();
      request.session.userId = user.id;
      await request.session.save();
      return reply.redirect(`${base(merchant)}/install`, 303);
    },
  );
};

export default zidConsole;
