import { hkdfSync, randomBytes } from 'node:crypto';
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
  WOO_DISCONNECTED,
  wooKeys,
  wooOrder,
  wooStoreId,
  wooWebhookProduct,
} from '../../platforms/woocommerce.ts';
import { resolveLeadKey } from '../../privacy/lead-key.ts';
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
import { productsOfSource, syncProducts } from '../../services/products.ts';
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
      // the keys must open the store's own REST API: keys for another store install nothing
      const basic = Buffer.from(`${got.tokens.accessToken}:${got.tokens.authorization}`).toString('base64');
      const tried = await storeGet(`${connect.store}/wp-json/wc/v3/products?per_page=1`, {
        authorization: `Basic ${basic}`,
        accept: 'application/json',
      });
      if (tried.status !== 200) {
        throw new AppError(400, 'invalid_platform_webhook', "The keys do not open the store's REST API");
      }
      const storeId = wooStoreId(connect.store);
      const done = await installStore(app.db, app.leadCipher, {
        platform: 'woocommerce',
        storeId,
        tokens: got.tokens,
        store: { name: new URL(connect.store).host, origin: new URL(connect.store).origin },
        apiUrl: connect.store,
        webhookSecret: randomBytes(24).toString('base64url'),
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
      const install = await findInstall(app.db, 'woocommerce', storeId);
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
      const before = await productsOfSource(app.db, found.feedSourceId, [productId, `${productId}:%`]);
      const now = new Set(rows.map((r) => r.merchant_product_id));
      await syncProducts(app.db, app.catalog.current(), found.merchantId, rows, {
        sourceId: found.feedSourceId,
        remove: before.filter((id) => !now.has(id)),
      });
      app.merchantProducts.invalidate(found.merchantId);
    };

    app.platforms.register('woocommerce', {
      // the store's products are read from its public Store API: the keys are not needed for it
      access: async () => ({ secret: null }),
      async work({ event, storeId, body }) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(body);
        } catch {
          throw new UnusableWebhook('the body is not JSON');
        }
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
      keys,
      claim,
    });
  },
  { name: 'woocommerce', dependencies: ['platforms', 'jobs', 'database', 'leads', 'catalog', 'merchant-products'] },
);
