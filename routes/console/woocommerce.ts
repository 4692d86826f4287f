import { createHash, timingSafeEqual } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { wooConnectedPage } from '../../console/views.ts';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import { type ConnectToken, isProof, pluginPage, wooAdminUrl, wooStoreUrl } from '../../platforms/woocommerce.ts';
import { platformOwner } from '../../services/console-users.ts';
import { pageContext, sendPage } from './page.ts';

/**
 * Connections one address (an IPv6 /64) may start a minute, per instance: each asks the store to
 * confirm it.
 */
export const CONNECT_STARTS_PER_MINUTE = 10;
/** Connections the whole instance asks stores to confirm a minute. */
export const CONNECT_CHECKS_PER_MINUTE = 300;

/**
 * Connecting a WooCommerce store (docs/platforms.md). The plugin's "Connect" button opens
 * `/console/woocommerce/connect` with the store's address, the hash of a secret only the plugin
 * holds and the admin's email. The service asks the store, on its own address, whether its plugin
 * started this connection (the plugin answers with its installation key and the service's
 * challenge signed with it): only then does it sign a connect token and send the admin to that
 * store's own key screen (`/wc-auth/v1/authorize`, read-only keys), with the token as its
 * `user_id`. WooCommerce posts the keys to the service, then sends the browser to
 * `/console/woocommerce/return`: the browser that started the connection is offered the console,
 * and only its button (a form, with its CSRF token) signs it in as the owner of the store's
 * merchant; then it goes back to the plugin's page, which claims its key and secret.
 */
/** The browser that started a connection: only it is offered the console when it comes back (30 minutes). */
const STARTED_COOKIE = 'woocommerce_connect';
const COOKIE_PATH = '/console/woocommerce';
const digest = (s: string) => createHash('sha256').update(s).digest();

const wooConsole: FastifyPluginAsyncTypebox = async (app) => {
  const byAddress = createWindowCounter({ name: 'woocommerce-connect-address', max: 10_000, windowMs: 60_000 });
  const checks = createWindowCounter({ name: 'woocommerce-connect-checks', max: 1, windowMs: 60_000 });
  const woo = () => {
    if (!app.woocommerce) {
      throw new AppError(404, 'platform_not_configured', 'The WooCommerce app is not set up on this service');
    }
    return app.woocommerce;
  };
  const throttled = (wait: number) =>
    new AppError(429, 'rate_limited', 'Too many connections started: try again later', undefined, {
      'retry-after': String(wait),
    });

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
      // each start asks the store: one address (an IPv6 /64 counts as one) and the instance as a whole are held
      const ip = request.ip;
      const seen = byAddress.add(ip.includes(':') ? normalizeIP(ip) : ip);
      if (seen.count > CONNECT_STARTS_PER_MINUTE) throw throttled(seen.retryAfter);
      const all = checks.add('all');
      if (all.count > CONNECT_CHECKS_PER_MINUTE) throw throttled(all.retryAfter);
      const email = request.query.email?.trim();
      const { token, authorizeUrl } = await flow.start({
        store,
        proof: request.query.proof,
        email: email?.includes('@') ? email : null,
        admin: wooAdminUrl(request.query.admin, store),
      });
      reply.setCookie(STARTED_COOKIE, digest(token).toString('base64url'), {
        path: COOKIE_PATH,
        httpOnly: true,
        sameSite: 'lax',
        secure: 'auto',
        signed: true,
        maxAge: 30 * 60,
      });
      // the store confirmed this connection: its own key screen, at its own address
      return reply.redirect(authorizeUrl, 302);
    },
  );

  /**
   * The connection a token names, back from WooCommerce: whether WooCommerce posted the keys of this
   * very token (what the query says is not proof) and whether this browser started it (its cookie).
   */
  const returned = async (request: FastifyRequest, token: string | undefined) => {
    const flow = woo();
    const connect = flow.read(token);
    if (!connect || !token) {
      throw new AppError(400, 'invalid_oauth_state', "Connect again from the plugin's settings page");
    }
    const install = await flow.connectedBy(connect, token);
    const kept = request.cookies[STARTED_COOKIE];
    const unsigned = kept ? request.unsignCookie(kept) : null;
    const started =
      !!unsigned?.valid &&
      !!unsigned.value &&
      timingSafeEqual(digest(unsigned.value), digest(digest(token).toString('base64url')));
    return { connect, token, install, started };
  };
  /** Back to the plugin's page on the store, which claims its key and secret (the store confirmed this token's connection). */
  const toPlugin = (reply: FastifyReply, connect: ConnectToken, token: string, approved: boolean) => {
    reply.clearCookie(STARTED_COOKIE, { path: COOKIE_PATH });
    return reply.redirect(pluginPage(connect, token, approved), 303);
  };

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
      const { connect, token, install, started } = await returned(request, request.query.user_id);
      // the browser that started the connection, with nobody signed in, is offered the console: a
      // page whose button signs in, so a link (or a chain of them) signs nobody in by being opened
      if (install && started && connect.email && !request.consoleUser) {
        return sendPage(
          reply,
          wooConnectedPage(pageContext(request, reply), {
            store: new URL(connect.store).host,
            email: connect.email,
            token,
            back: pluginPage(connect, token, true),
          }),
        );
      }
      return toPlugin(reply, connect, token, install !== null);
    },
  );

  app.post(
    '/return',
    {
      schema: {
        hide: true,
        body: Type.Object({
          _csrf: Type.Optional(Type.String({ maxLength: 200 })),
          user_id: Type.String({ maxLength: 2000 }),
        }),
      },
      preHandler: app.csrfProtection,
    },
    async (request, reply) => {
      const { connect, token, install, started } = await returned(request, request.body.user_id);
      // the browser that started the connection and approved the keys on the store is its admin's:
      // signed in as the store's owner; a browser signed in already keeps its session
      if (install && started && !request.consoleUser) {
        // a WooCommerce store only types its admin's email: the account it makes yields to a proven one
        const user = await platformOwner(app.db, install.merchantId, connect.email, { proven: false });
        if (user) {
          // a new session id: one planted before is worth nothing after
          await request.session.regenerate();
          request.session.userId = user.id;
          await request.session.save();
          request.log.info({ event: 'console_sign_in', user: user.id, via: 'woocommerce' }, 'console sign-in');
        }
      }
      return toPlugin(reply, connect, token, install !== null);
    },
  );
};

export default wooConsole;
