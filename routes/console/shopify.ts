import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { base } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { queryFresh, queryHmacValid, shopHandle } from '../../platforms/shopify.ts';
import { platformOwner } from '../../services/console-users.ts';
import { getMerchant } from '../../services/merchants.ts';

/** The OAuth state's cookie: only the console's Shopify routes see it, for ten minutes. */
const STATE_COOKIE = 'shopify_oauth_state';
const STATE_MS = 10 * 60_000;

const digest = (s: string) => createHash('sha256').update(s).digest();

const Signed = {
  hmac: Type.Optional(Type.String({ maxLength: 200 })),
  shop: Type.Optional(Type.String({ maxLength: 200 })),
  timestamp: Type.Optional(Type.String({ maxLength: 20 })),
  host: Type.Optional(Type.String({ maxLength: 500 })),
};

/**
 * Installing the Shopify app (docs/platforms.md). `/console/shopify/install` is the app's URL:
 * Shopify opens it with the shop, a timestamp and an HMAC of the query; it sends the merchant to
 * the shop's consent screen with a state held in a signed cookie. `/console/shopify/callback` is
 * its redirect URL: the query's HMAC, its age, the state and the shop checked, the code exchanged
 * for the shop's token, the shop installed (merchant, keys, setup, first import), and the shop's
 * owner signed in to the console. Opening the app from the Shopify admin again goes through both.
 */
const shopifyConsole: FastifyPluginAsyncTypebox = async (app) => {
  const shopify = () => {
    if (!app.shopify || !app.config.platforms.shopify) {
      throw new AppError(404, 'platform_not_configured', 'The Shopify app is not set up on this service');
    }
    return { flow: app.shopify, secret: app.config.platforms.shopify.clientSecret };
  };
  /**
   * The shop a signed query names: the HMAC (when `required` or given) checked over the query as
   * sent (every parameter, decoded, not only those read here), and its age.
   */
  const signedShop = (url: string, required: boolean): string => {
    const { secret } = shopify();
    const params = new URL(url, 'http://x').searchParams;
    const query: Record<string, string> = Object.fromEntries(params);
    // a parameter given twice has no one meaning: refused
    if (Object.keys(query).length !== [...params.keys()].length) {
      throw new AppError(
        400,
        'invalid_oauth_state',
        'Open the app again from your Shopify admin: this link is not valid',
      );
    }
    if (required || query.hmac !== undefined) {
      if (!queryHmacValid(query, secret) || !queryFresh(query.timestamp)) {
        throw new AppError(
          400,
          'invalid_oauth_state',
          'Open the app again from your Shopify admin: this link is not valid',
        );
      }
    }
    const handle = shopHandle(query.shop);
    if (!handle) throw new AppError(400, 'invalid_oauth_state', 'The shop is not a myshopify.com shop');
    return handle;
  };

  app.get('/install', { schema: { hide: true, querystring: Type.Object(Signed) } }, async (request, reply) => {
    const { flow } = shopify();
    // opened from the Shopify admin the query is signed; a link of ours names the shop alone
    const handle = signedShop(request.url, false);
    const state = randomBytes(24).toString('base64url');
    // the state is bound to the shop it was made for: a callback naming another shop is refused
    reply.setCookie(STATE_COOKIE, `${handle}:${state}`, {
      path: '/console/shopify',
      httpOnly: true,
      sameSite: 'lax',
      secure: 'auto',
      signed: true,
      maxAge: STATE_MS / 1000,
    });
    return reply.redirect(flow.authorizeUrl(handle, state), 302);
  });

  app.get(
    '/callback',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          ...Signed,
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          state: Type.Optional(Type.String({ maxLength: 200 })),
        }),
      },
    },
    async (request, reply) => {
      const { flow } = shopify();
      const kept = request.cookies[STATE_COOKIE];
      const unsigned = kept ? request.unsignCookie(kept) : null;
      reply.clearCookie(STATE_COOKIE, { path: '/console/shopify' });
      const handle = signedShop(request.url, true);
      const { code, state } = request.query;
      // the state this browser was given at the start: a callback someone else started is refused
      if (
        !unsigned?.valid ||
        !unsigned.value ||
        !state ||
        !timingSafeEqual(digest(unsigned.value), digest(`${handle}:${state}`))
      ) {
        throw new AppError(
          400,
          'invalid_oauth_state',
          'Open the app again from your Shopify admin: this sign-in has expired',
        );
      }
      if (!code) throw new AppError(400, 'install_refused', 'The app was not approved on Shopify');
      const done = await flow.install(handle, code);
      const merchant = await getMerchant(app.db, done.merchantId);
      const user = await platformOwner(app.db, done.merchantId, done.shop.email, { proven: true });
      if (!user) return reply.redirect('/console/sign-in', 303);
      await request.session.regenerate();
      request.session.userId = user.id;
      await request.session.save();
      return reply.redirect(`${base(merchant)}/install`, 303);
    },
  );
};

export default shopifyConsole;
