import { hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import fp from 'fastify-plugin';
import { woocommerce as wooConnector, wordpressBase } from '../../feeds/woocommerce.ts';
import { AppError } from '../../lib/errors.ts';
import {
  authorizeUrl,
  CONNECT_TTL_MS,
  type ConnectToken,
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
import type { PlatformInstallRow } from '../../schema/index.ts';
import { fetchFeedPage } from '../../services/feed-fetch.ts';
import { getMerchant } from '../../services/merchants.ts';
import {
  findInstall,
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
      /** a connect token for a store, and where its admin approves the keys */
      start(
        store: string,
        proof: string,
        email: string | null,
        admin: string | null,
      ): { token: string; authorizeUrl: string };
      /** a connect token read back (null when forged or ended) */
      read(token: unknown): ConnectToken | null;
      /** the store's install when the token is the connection WooCommerce posted the keys for */
      connectedBy(storeId: string, token: string): Promise<PlatformInstallRow | null>;
      /** WooCommerce's post of the keys: checked against the store, then the store installed */
      keys(body: unknown): Promise<{ merchantId: string; storeId: string }>;
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

/**
 * The WooCommerce plugin's connection on the service's side (docs/platforms.md): a connect token
 * signed with a key derived from the lead key carries the store, the plugin's proof and the
 * admin's email through WooCommerce's key screen; the read-only keys WooCommerce posts are tried
 * against the store's REST API (through the feed fetcher's guard: a store is never a private
 * address) before the store is installed; the plugin claims its key and webhook secret with the
 * secret only it holds; its signed webhooks bring product changes (each product read again from
 * the store's public Store API), orders and its disconnection.
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

    /** A GET of the store through the feed fetcher's guard (no private address, caps on time and size). */
    const storeGet = (url: string, headers: Record<string, string> = {}) =>
      fetchFeedPage(url, { headers, allowPrivateHosts: privateHosts, maxBytes: 2 * 1024 * 1024, timeoutMs: 10_000 });

    const keys = async (body: unknown) => {
      const got = wooKeys(body);
      if (!got) throw new AppError(400, 'invalid_platform_webhook', 'The body is not WooCommerce keys');
      const connect = read(got.userId);
      if (!connect)
        throw new AppError(401, 'invalid_signature', 'The connection has ended or is not ours: connect again');
      const storeId = wooStoreId(connect.store);
      // an install is this store's only: another address never takes it, whatever its id
      await sameStore(storeId, connect.store);
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
      const storeId = wooStoreId(connect.store);
      const install = await connectedBy(storeId, token as string);
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
    const connectedBy = async (storeId: string, token: string) => {
      const install = await findInstall(app.db, 'woocommerce', storeId);
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
      start(store: string, proof: string, email: string | null, admin: string | null) {
        const token = signConnect({ store, proof, email, admin, exp: Date.now() + CONNECT_TTL_MS }, key);
        return {
          token,
          authorizeUrl: authorizeUrl(store, {
            token,
            returnUrl: `${base}/console/woocommerce/return`,
            callbackUrl: `${base}/api/platforms/woocommerce/keys`,
          }),
        };
      },
      read,
      connectedBy,
      keys,
      claim,
    });
  },
  { name: 'woocommerce', dependencies: ['platforms', 'jobs', 'database', 'leads', 'catalog', 'merchant-products'] },
);
