import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../lib/errors.ts';
import { isProof, pluginPage, wooAdminUrl, wooStoreId, wooStoreUrl } from '../../platforms/woocommerce.ts';
import { platformOwner } from '../../services/console-users.ts';

/**
 * Connecting a WooCommerce store (docs/platforms.md). The plugin's "Connect" button opens
 * `/console/woocommerce/connect` with the store's address, the hash of a secret only the plugin
 * holds and the admin's email; the service signs them into a connect token and sends the admin to
 * the store's own key screen (`/wc-auth/v1/authorize`, read-only keys), with the token as its
 * `user_id`. WooCommerce posts the keys to the service, then sends the browser to
 * `/console/woocommerce/return`: the admin is signed in to the console as the owner of the
 * store's merchant, and goes back to the plugin's page, which claims its key and secret.
 */
/** The browser that started a connection: only it is signed in when it comes back (30 minutes). */
const STARTED_COOKIE = 'woocommerce_connect';
const digest = (s: string) => createHash('sha256').update(s).digest();

const wooConsole: FastifyPluginAsyncTypebox = async (app) => {
  const woo = () => {
    if (!app.woocommerce) {
      throw new AppError(404, 'platform_not_configured', 'The WooCommerce app is not set up on this service');
    }
    return app.woocommerce;
  };

  app.get(
    '/connect',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          store: Type.Optional(Type.String({ maxLength: 300 })),
          proof: Type.Optional(Type.String({ maxLength: 64 })),
          email: Type.Optional(Type.String({ maxLength: 320 })),
          admin: Type.Optional(Type.String({ maxLength: 300 })),
        }),
      },
    },
    async (request, reply) => {
      const flow = woo();
      const store = wooStoreUrl(request.query.store, app.config.feeds.allowPrivateHosts);
      if (!store) throw new AppError(400, 'invalid_oauth_state', "The store's address must be its https home page");
      if (!isProof(request.query.proof)) {
        throw new AppError(400, 'invalid_oauth_state', "Connect from the plugin's settings page");
      }
      const email = request.query.email?.trim();
      const { token, authorizeUrl } = flow.start(
        store,
        request.query.proof,
        email?.includes('@') ? email : null,
        wooAdminUrl(request.query.admin, store),
      );
      reply.setCookie(STARTED_COOKIE, digest(token).toString('base64url'), {
        path: '/console/woocommerce',
        httpOnly: true,
        sameSite: 'lax',
        secure: 'auto',
        signed: true,
        maxAge: 30 * 60,
      });
      return reply.redirect(authorizeUrl, 302);
    },
  );

  app.get(
    '/return',
    {
      schema: {
        hide: true,
        querystring: Type.Object({
          success: Type.Optional(Type.String({ maxLength: 5 })),
          user_id: Type.Optional(Type.String({ maxLength: 2000 })),
        }),
      },
    },
    async (request, reply) => {
      const flow = woo();
      const connect = flow.read(request.query.user_id);
      if (!connect) throw new AppError(400, 'invalid_oauth_state', "Connect again from the plugin's settings page");
      const token = request.query.user_id as string;
      // approved: WooCommerce posted the keys of this very connection (what the query says is not proof)
      const install = await flow.connectedBy(wooStoreId(connect.store), token);
      const approved = install !== null;
      const kept = request.cookies[STARTED_COOKIE];
      const unsigned = kept ? request.unsignCookie(kept) : null;
      reply.clearCookie(STARTED_COOKIE, { path: '/console/woocommerce' });
      const started =
        !!unsigned?.valid &&
        !!unsigned.value &&
        timingSafeEqual(digest(unsigned.value), digest(digest(token).toString('base64url')));
      // the browser that started the connection and approved the keys on the store is its admin's:
      // signed in as the store's owner (a link to this page someone else opens signs nobody in)
      // a browser signed in as someone else keeps its session (a link someone sent cannot swap it)
      if (approved && started && install) {
        // a WooCommerce store only types its admin's email: the account it makes yields to a proven one
        const user = await platformOwner(app.db, install.merchantId, connect.email, { proven: false });
        const other = request.session.userId !== undefined && request.session.userId !== user?.id;
        if (user && !other) {
          await request.session.regenerate();
          request.session.userId = user.id;
          await request.session.save();
        }
      }
      return reply.redirect(pluginPage(connect, token, approved), 303);
    },
  );
};

export default wooConsole;
