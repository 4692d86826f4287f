import { hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { normalizeIP } from '@fastify/rate-limit';
import { and, eq, gt, sql } from 'drizzle-orm';
import fp from 'fastify-plugin';
import type { DbOrTx } from '../../db/client.ts';
import { woocommerce as wooConnector, wordpressBase } from '../../feeds/woocommerce.ts';
import { AppError } from '../../lib/errors.ts';
import { createWindowCounter } from '../../lib/window-counter.ts';
import {
  authorizeUrl,
  CONNECT_TTL_MS,
  type ConnectToken,
  confirmedKey,
  connectionUrl,
  proofValid,
  readConnect,
  signConnect,
  tokenHash,
  WOO_DISCONNECTED,
  wooKeys,
  wooOrder,
  wooStoreId,
  wooWebhookProduct,
} from '../../platforms/woocommerce.ts';
import { resolveLeadKey } from '../../privacy/lead-key.ts';
import { merchants, type PlatformInstallRow, platformInstalls } from '../../schema/index.ts';
import { fetchFeedPage } from '../../services/feed-fetch.ts';
import { getMerchant } from '../../services/merchants.ts';
import {
  findInstall,
  installedAt,
  installStore,
  recordPlatformOrder,
  sourceSettingsOf,
  uninstallStore,
  webhookSecretOf,
} from '../../services/platforms.ts';
import { UnusableWebhook } from './platforms.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** the WooCommerce connection's steps (the console's and the platform routes call them); null when off */
    woocommerce: {
      /**
       * a connect token for a store whose plugin confirms it started this connection (signed with
       * its installation key), and where its admin approves the keys
       */
      start(o: {
        store: string;
        proof: string;
        email: string | null;
        admin: string | null;
      }): Promise<{ token: string; authorizeUrl: string }>;
      /** a connect token read back (null when forged or ended) */
      read(token: unknown): ConnectToken | null;
      /** the store's install when the token is the connection WooCommerce posted the keys for */
      connectedBy(connect: ConnectToken, token: string): Promise<PlatformInstallRow | null>;
      /** WooCommerce's post of the keys (from the store's server, `ip`): checked against the store, then the store installed */
      keys(body: unknown, ip: string): Promise<{ merchantId: string; storeId: string }>;
      /** the plugin claims its connection (its secret proves it): the store's key and webhook secret */
      claim(
        token: unknown,
        secret: unknown,
      ): Promise<{
        store_id: string;
        publishable_key: string;
        webhook_secret: string;
        webhook_url: string;
        console_url: string;
      }>;
    } | null;
  }
}

/** New stores (merchants) WooCommerce connections may make from one address an hour, per instance. */
export const NEW_STORES_PER_ADDRESS_PER_HOUR = 5;
/** New stores (merchants) WooCommerce connections may make in all an hour, across the service. */
export const NEW_STORES_PER_HOUR = 50;
const HOUR_MS = 3600_000;

/**
 * The WooCommerce plugin's connection on the service's side (docs/platforms.md): a connection
 * starts only once the store's plugin confirms, on the store's own address, that it started it
 * (the proof it holds, and the service's challenge signed with its installation key); a connect
 * token signed with a key derived from the lead key then carries the store, the plugin's proof,
 * its installation key and the admin's email through WooCommerce's key screen; the read-only keys
 * WooCommerce posts are tried against the store's REST API (through the feed fetcher's guard: a
 * store is never a private address) before the store is installed, as the merchant of that
 * address and installation (a new WordPress at the address is a new merchant); the plugin claims
 * its key and webhook secret with the secret only it holds; its signed webhooks bring product
 * changes (each product read again from the store's public Store API), orders and its
 * disconnection.
 */
export default fp(
  async (app) => {
    if (!app.config.platforms.woocommerce) {
      app.decorate('woocommerce', null);
      return;
    }
    const leadKey = resolveLeadKey(app.config, true) as Buffer;
    const key = Buffer.from(hkdfSync('sha256', leadKey, 'sillage', 'woocommerce connect tokens', 32));
    const base = app.config.publicBaseUrl;
    const privateHosts = app.config.feeds.allowPrivateHosts;
    const read = (token: unknown) => readConnect(token, key);
    const storeIdOf = (connect: ConnectToken) => wooStoreId(connect.store, connect.key);
    const newStoresByAddress = createWindowCounter({ name: 'woocommerce-new-stores', max: 10_000, windowMs: HOUR_MS });

    /** A GET of the store through the feed fetcher's guard (no private address, caps on time and size). */
    const storeGet = (url: string, headers: Record<string, string> = {}, maxBytes = 2 * 1024 * 1024) =>
      fetchFeedPage(url, { headers, allowPrivateHosts: privateHosts, maxBytes, timeoutMs: 10_000 });

    const keys = async (body: unknown, ip: string) => {
      const got = wooKeys(body);
      if (!got) throw new AppError(400, 'invalid_platform_webhook', 'The body is not WooCommerce keys');
      const connect = read(got.userId);
      if (!connect)
        throw new AppError(401, 'invalid_signature', 'The connection has ended or is not ours: connect again');
      const storeId = storeIdOf(connect);
      // an install is this store's only: another address never takes it, whatever its id
      await sameStore(storeId, connect.store);
      // another installation still connected at this address keeps it (its plugin disconnects first)
      if ((await installedAt(app.db, 'woocommerce', connect.store)).some((i) => i.storeId !== storeId)) {
        throw connectedElsewhere();
      }
      // a new store is a new merchant: counted per address (the store's server) before any work
      if (!(await findInstall(app.db, 'woocommerce', storeId))) {
        const seen = newStoresByAddress.add(ip.includes(':') ? normalizeIP(ip) : ip);
        if (seen.count > NEW_STORES_PER_ADDRESS_PER_HOUR) throw tooManyStores(seen.retryAfter);
      }
      // the keys must open the store's own REST API, and the API must want them: a page that
      // answers anything to anyone (a login page, a soft 404) proves nothing
      if (!(await keysOpen(connect.store, got.tokens.accessToken, got.tokens.authorization ?? ''))) {
        throw new AppError(400, 'invalid_platform_webhook', "The keys do not open the store's REST API");
      }
      const done = await installStore(app.db, app.leadCipher, {
        platform: 'woocommerce',
        storeId,
        tokens: got.tokens,
        store: { name: new URL(connect.store).host, origin: new URL(connect.store).origin },
        apiUrl: connect.store,
        webhookSecret: randomBytes(24).toString('base64url'),
        connectTokenHash: tokenHash(got.userId),
        beforeCreate: newStoreAllowed,
      });
      app.log.info(
        { store: storeId, merchant: done.install.merchantId, created: done.created, reinstalled: done.reinstalled },
        'woocommerce connected',
      );
      if (done.install.feedSourceId) {
        await app.jobs
          .send('feeds.pull', { sourceId: done.install.feedSourceId }, done.install.feedSourceId)
          .catch((err) => app.log.warn({ err, store: storeId }, 'woocommerce: first import not sent yet'));
      }
      return { merchantId: done.install.merchantId, storeId };
    };

    const claim = async (token: unknown, secret: unknown) => {
      const connect = read(token);
      if (!connect || !proofValid(secret, connect.proof)) {
        throw new AppError(401, 'invalid_signature', 'The connection has ended or is not this plugin’s: connect again');
      }
      const storeId = storeIdOf(connect);
      const install = await connectedBy(connect, token as string);
      const webhookSecret = webhookSecretOf(app.leadCipher, install);
      if (!install?.publishableKey || !webhookSecret) {
        throw new AppError(
          409,
          'store_not_installed',
          'WooCommerce has not sent the keys yet: approve them, then try again',
        );
      }
      const merchant = await getMerchant(app.db, install.merchantId);
      return {
        store_id: storeId,
        publishable_key: install.publishableKey,
        webhook_secret: webhookSecret,
        webhook_url: `${base}/api/platforms/woocommerce/webhooks/${storeId}`,
        console_url: `${base}/console/m/${merchant.slug}/install`,
      };
    };

    const connectedElsewhere = () =>
      new AppError(
        409,
        'store_connected',
        'This store is connected to Sillage from another installation of the plugin: disconnect it there first (or, if that WordPress is gone, delete its Sillage key in WooCommerce → Settings → Advanced → REST API), then connect again',
      );
    const tooManyStores = (retryAfter: number) =>
      new AppError(429, 'rate_limited', 'Too many new stores connected: try again later', undefined, {
        'retry-after': String(retryAfter),
      });

    /**
     * Whether one more WooCommerce store may get a merchant this hour, across the service: counted
     * in the install's transaction under a lock of its own, so instances and simultaneous
     * connections count one after another.
     */
    const newStoreAllowed = async (tx: DbOrTx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('woocommerce:new stores'))`);
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(platformInstalls)
        .innerJoin(merchants, eq(merchants.id, platformInstalls.merchantId))
        .where(
          and(eq(platformInstalls.platform, 'woocommerce'), gt(merchants.createdAt, sql`now() - interval '1 hour'`)),
        );
      if (Number(row?.n ?? 0) >= NEW_STORES_PER_HOUR) throw tooManyStores(HOUR_MS / 1000);
    };

    /**
     * Before a connection to `storeId` starts: another installation still connected at this address
     * keeps it, unless the store no longer takes that installation's keys (the WordPress there is
     * another one, or its admin deleted them): then that installation is uninstalled (its keys
     * revoked, its feed paused; its merchant and data stay) and this one may connect.
     */
    const freeAddress = async (storeId: string, store: string) => {
      for (const other of await installedAt(app.db, 'woocommerce', store)) {
        if (other.storeId === storeId) continue;
        const key = other.accessTokenEncrypted ? app.leadCipher.decrypt(other.accessTokenEncrypted) : '';
        const secret = other.authTokenEncrypted ? app.leadCipher.decrypt(other.authTokenEncrypted) : '';
        if (!(await keysRefused(store, key, secret))) throw connectedElsewhere();
        const done = await uninstallStore(app.db, 'woocommerce', other.storeId);
        if (done) {
          for (const hash of done.revokedHashes) await app.keyStore.invalidate(hash);
          app.merchantProducts.invalidate(done.merchantId);
          app.log.info({ store: other.storeId, merchant: done.merchantId }, 'woocommerce: keys refused, uninstalled');
        }
      }
    };

    /** Whether the store's REST API refuses these keys outright (401 or 403 from that very address). */
    const keysRefused = async (store: string, key: string, secret: string) => {
      const url = `${store}/wp-json/wc/v3/products?per_page=1`;
      const basic = Buffer.from(`${key}:${secret}`).toString('base64');
      const page = await storeGet(url, { authorization: `Basic ${basic}`, accept: 'application/json' });
      return page.status === 'error' && (page.httpStatus === 401 || page.httpStatus === 403);
    };

    /**
     * A connection starts only for a store whose plugin confirms it, on the store's own address:
     * asked for the proof the browser brought and a new challenge, it answers its installation key
     * and the challenge signed with it. A store that does not (any other site, a page that is not
     * the plugin's, another connection's proof) gets no token, and nobody is sent there.
     */
    const start = async (o: { store: string; proof: string; email: string | null; admin: string | null }) => {
      const challenge = randomBytes(32).toString('base64url');
      const url = connectionUrl(o.store, o.proof, challenge);
      // a confirmation is a few hundred bytes: a store sending more is not read further
      const page = await storeGet(url, { accept: 'application/json' }, 4096);
      const installation =
        page.status === 200 && page.finalUrl === url ? confirmedKey(page.body, o.proof, challenge) : null;
      if (!installation) {
        throw new AppError(
          400,
          'invalid_oauth_state',
          `The store at ${o.store} did not confirm this connection: press Connect on the Sillage page of its WordPress`,
        );
      }
      const connect = { ...o, key: installation, exp: Date.now() + CONNECT_TTL_MS };
      const storeId = storeIdOf(connect);
      await sameStore(storeId, o.store);
      await freeAddress(storeId, o.store);
      const token = signConnect(connect, key);
      return {
        token,
        authorizeUrl: authorizeUrl(o.store, {
          token,
          returnUrl: `${base}/console/woocommerce/return`,
          callbackUrl: `${base}/api/platforms/woocommerce/keys`,
        }),
      };
    };

    /** Whether an install of this id is this address's (none yet, or its feed source's address is it). */
    const sameStore = async (storeId: string, store: string) => {
      const install = await findInstall(app.db, 'woocommerce', storeId);
      if (!install?.feedSourceId) return;
      if ((await sourceSettingsOf(app.db, install.feedSourceId)).url !== store) {
        throw new AppError(
          409,
          'store_not_installed',
          'Another store holds this id: connect from the store’s own address',
        );
      }
    };

    /**
     * Whether the keys open the store's REST API: with them, a JSON list from that very address (no
     * redirect); without them, a refusal (401) from the same address.
     */
    const keysOpen = async (store: string, key: string, secret: string) => {
      const url = `${store}/wp-json/wc/v3/products?per_page=1`;
      const basic = Buffer.from(`${key}:${secret}`).toString('base64');
      const withKeys = await storeGet(url, { authorization: `Basic ${basic}`, accept: 'application/json' });
      if (withKeys.status !== 200 || withKeys.finalUrl !== url || !/json/i.test(withKeys.contentType ?? ''))
        return false;
      try {
        if (!Array.isArray(JSON.parse(withKeys.body))) return false;
      } catch {
        return false;
      }
      const without = await storeGet(url, { accept: 'application/json' });
      return without.status === 'error' && without.httpStatus === 401;
    };

    /**
     * The store's install when `token` is the connection whose keys WooCommerce posted (its hash on
     * the install): a token that only started a connection, or an older one, opens nothing.
     */
    const connectedBy = async (connect: ConnectToken, token: string) => {
      const install = await findInstall(app.db, 'woocommerce', storeIdOf(connect));
      if (install?.status !== 'installed' || !install.connectTokenHash) return null;
      const a = Buffer.from(install.connectTokenHash, 'hex');
      const b = Buffer.from(tokenHash(token), 'hex');
      return a.length === b.length && timingSafeEqual(a, b) ? install : null;
    };

    /** A product webhook: the product read again from the store's public Store API and stored. */
    const applyProduct = async (storeId: string, productId: string, deleted: boolean) => {
      const found = await findInstall(app.db, 'woocommerce', storeId);
      if (found?.status !== 'installed' || !found.feedSourceId) return;
      const store = wordpressBase((await sourceSettingsOf(app.db, found.feedSourceId)).url);
      const source = { kind: 'woocommerce' as const, url: store };
      let rows: ReturnType<typeof wooConnector.parse>['rows'] = [];
      if (!deleted) {
        const url = `${store}/wp-json/wc/store/v1/products/${productId}`;
        const page = await storeGet(url, { accept: 'application/json' });
        if (page.status === 200) rows = wooConnector.parse(`[${page.body}]`, url, source).rows;
        else if (page.status !== 'error' || page.httpStatus !== 404) {
          // the store away: tried again by the webhook runner
          throw new AppError(
            502,
            'platform_error',
            `the store answered ${page.status === 'error' ? page.code : page.status}`,
          );
        }
      }
      await app.platforms.replaceProduct(
        { merchantId: found.merchantId, feedSourceId: found.feedSourceId },
        productId,
        rows,
      );
    };

    app.platforms.register('woocommerce', {
      // the store's products are read from its public Store API: the keys are not needed for it
      access: async () => ({ secret: null }),
      async work({ event, storeId, json: parsed }) {
        if (event === WOO_DISCONNECTED) {
          const done = await uninstallStore(app.db, 'woocommerce', storeId);
          if (done) {
            for (const hash of done.revokedHashes) await app.keyStore.invalidate(hash);
            app.merchantProducts.invalidate(done.merchantId);
            app.log.info({ store: storeId, merchant: done.merchantId }, 'woocommerce disconnected');
          }
          return;
        }
        if (event.startsWith('product.')) {
          const id = wooWebhookProduct(parsed);
          if (!id) throw new UnusableWebhook(`${event} names no product`);
          return applyProduct(storeId, id, event === 'product.deleted');
        }
        const found = await findInstall(app.db, 'woocommerce', storeId);
        if (found?.status !== 'installed') return;
        const order = wooOrder(parsed, new Date());
        if (order) await recordPlatformOrder(app.db, found.merchantId, order);
      },
    });

    app.decorate('woocommerce', {
      start,
      read,
      connectedBy,
      keys,
      claim,
    });
  },
  { name: 'woocommerce', dependencies: ['platforms', 'jobs', 'database', 'leads', 'catalog', 'merchant-products'] },
);
