import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import { PRODUCT_QUERY, SHOPIFY_GRAPHQL_VERSION, shopifyProductRows } from '../../feeds/shopify-graphql.ts';
import { AppError } from '../../lib/errors.ts';
import {
  authorizeUrl,
  ORDER_QUERY,
  orderOfShop,
  SHOPIFY_METAFIELD,
  SHOPIFY_TOPICS,
  type ShopifyShop,
  type ShopifyThrottle,
  scopesGranted,
  shopBase,
  shopDomain,
  shopifyOrder,
  shopifyRedaction,
  shopifyShop,
  shopifyThrottle,
  shopifyTokens,
  shopifyWebhookProduct,
  throttleWaitMs,
  userErrors,
} from '../../platforms/shopify.ts';
import { eraseLeads } from '../../services/leads.ts';
import {
  findInstall,
  installStore,
  installsToSetUp,
  recordPlatformOrder,
  recordSetup,
  redactOrders,
  redactStore,
  sourceSettingsOf,
  storeTokens,
  uninstallStore,
} from '../../services/platforms.ts';
import { callJson, DecideLater, PlatformCallError, UnusableWebhook } from './platforms.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** the Shopify app's OAuth steps (the console's install routes call them); null when the app is off */
    shopify: {
      /** where the merchant is sent to approve the app, for the shop `handle` */
      authorizeUrl(handle: string, state: string): string;
      /** the callback's code exchanged, the shop read and installed; its setup and first import queued */
      install(handle: string, code: string): Promise<{ shop: ShopifyShop; merchantId: string; created: boolean }>;
    } | null;
  }
}

/** A query is tried this many times in all while Shopify answers THROTTLED. */
const THROTTLED_TRIES = 4;
/** What a products page asks for (25 products × 20 variants): the bucket must hold this before a page. */
const PAGE_COST = 600;

/**
 * The Shopify app on the service's side (docs/platforms.md): the OAuth install (the console's
 * routes), the shop's offline token, its setup (the storefront script's address in an app-owned
 * metafield the theme's app embed reads, the web pixel that reports purchases, the webhooks), its
 * products imported through the Admin GraphQL API by the feed runner within Shopify's cost-based
 * limit and kept current by product webhooks (each product read again), its orders recorded as
 * purchases (each once the shop's own API knows it), its uninstall and the privacy webhooks
 * worked. Every webhook is signed with the app's secret (routes/platforms/shopify.ts checks it).
 */
export default fp(
  async (app) => {
    const shopify = app.config.platforms.shopify;
    if (!shopify) {
      app.decorate('shopify', null);
      return;
    }
    const redirectUri = `${app.config.publicBaseUrl}/console/shopify/callback`;
    const base = (handle: string) => shopBase(shopify.shopUrl, handle);
    const graphqlUrl = (handle: string) => `${base(handle)}/admin/api/${SHOPIFY_GRAPHQL_VERSION}/graphql.json`;

    /** The last throttle each shop's answers reported, by the shop's API address. */
    const throttles = new Map<string, ShopifyThrottle & { at: number }>();
    const keyOf = (url: string) => url.replace(/\/admin\/api\/.*$/, '');
    const remember = (url: string, t: ShopifyThrottle | null) => {
      if (!t) return;
      if (throttles.size >= 10_000) throttles.delete(throttles.keys().next().value as string);
      throttles.set(keyOf(url), { ...t, at: Date.now() });
    };
    /** Waits until the shop's bucket, refilled since its last answer, holds `cost` points. */
    const waitFor = async (url: string, cost: number) => {
      const t = throttles.get(keyOf(url));
      if (!t) return;
      const refilled = t.available + ((Date.now() - t.at) / 1000) * t.restoreRate;
      const ms = throttleWaitMs({ ...t, available: refilled }, cost);
      if (ms > 0) await sleep(ms);
    };

    /** One GraphQL call for a shop, waited on and tried again while Shopify answers THROTTLED. */
    const gql = async (
      handle: string,
      token: string,
      query: string,
      variables: Record<string, unknown> = {},
      tries = THROTTLED_TRIES,
    ) => {
      const url = graphqlUrl(handle);
      for (let attempt = 1; ; attempt++) {
        await waitFor(url, 50);
        const answer = await callJson(url, {
          method: 'POST',
          headers: { 'x-shopify-access-token': token, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ query, variables }),
        });
        const t = shopifyThrottle(answer);
        remember(url, t);
        if (t?.throttled && attempt < tries) {
          await sleep(Math.max(1000, throttleWaitMs(t, t.requested)));
          continue;
        }
        if (t?.throttled) throw new AppError(502, 'platform_error', 'Shopify throttled the calls: tried again later');
        return answer;
      }
    };

    const tokenOf = async (handle: string) =>
      (
        await storeTokens(app.db, app.leadCipher, 'shopify', handle, () => {
          throw new AppError(502, 'platform_error', "A Shopify shop's token is not refreshed");
        })
      ).accessToken;

    const SHOP_QUERY = 'query SillageShop { shop { name email currencyCode primaryDomain { url } } }';

    const install = async (handle: string, code: string) => {
      const tokens = shopifyTokens(
        await callJson(`${base(handle)}/admin/oauth/access_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ client_id: shopify.clientId, client_secret: shopify.clientSecret, code }),
        }),
      );
      if (!tokens) throw new AppError(502, 'platform_error', "Shopify's token endpoint answered no token");
      if (!scopesGranted(tokens.scope)) {
        throw new AppError(
          400,
          'install_refused',
          'The app was installed without the access it needs: install it again',
        );
      }
      // the merchant's browser waits on this one: not tried again for Shopify's limit
      const shop = shopifyShop(await gql(handle, tokens.accessToken, SHOP_QUERY, {}, 1));
      if (!shop) throw new AppError(502, 'platform_error', "Shopify's answer names no shop");
      const done = await installStore(app.db, app.leadCipher, {
        platform: 'shopify',
        storeId: handle,
        tokens,
        store: shop,
        apiUrl: base(handle),
        feedKind: 'shopify_graphql',
        currency: shop.currency,
        // the checkout (where the web pixel reports the purchase) and the storefront before a domain is bought
        origins: [`https://${shopDomain(handle)}`],
      });
      app.log.info(
        { shop: handle, merchant: done.install.merchantId, created: done.created, reinstalled: done.reinstalled },
        'shopify install',
      );
      const later = (err: unknown) => app.log.warn({ err, shop: handle }, 'shopify install: work not sent yet');
      await app.jobs.send('platforms.shopify.setup', { shop: handle }, `shopify-setup:${handle}`).catch(later);
      if (done.install.feedSourceId) {
        await app.jobs
          .send('feeds.pull', { sourceId: done.install.feedSourceId }, done.install.feedSourceId)
          .catch(later);
      }
      return { shop, merchantId: done.install.merchantId, created: done.created };
    };

    /**
     * The shop's setup: the storefront script's address in an app-owned metafield (the theme's app
     * embed reads it), the web pixel created (or its settings updated: the live key is new at each
     * install), and the webhooks the shop lacks subscribed. What fails is recorded and tried again.
     */
    app.jobs.define<{ shop: string }>('platforms.shopify.setup', {
      async run({ shop: handle }) {
        const found = await findInstall(app.db, 'shopify', handle);
        if (found?.status !== 'installed' || !found.publishableKey) return;
        const token = await tokenOf(handle);
        const failures: string[] = [];
        const step = async (what: string, run: () => Promise<string | null>) => {
          try {
            const problem = await run();
            if (problem) failures.push(`${what}: ${problem}`);
          } catch (err) {
            failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
          }
        };
        await step('storefront script', async () => {
          const owner = await gql(handle, token, 'query SillageInstallation { currentAppInstallation { id } }');
          const id = (owner as { data?: { currentAppInstallation?: { id?: unknown } } } | null)?.data
            ?.currentAppInstallation?.id;
          if (typeof id !== 'string') return 'Shopify named no app installation';
          const answer = await gql(
            handle,
            token,
            'mutation SillageScript($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { userErrors { field message } } }',
            {
              m: [
                {
                  ownerId: id,
                  ...SHOPIFY_METAFIELD,
                  type: 'single_line_text_field',
                  value: `${app.config.publicBaseUrl}/api/platforms/shopify/shops/${handle}/script.js`,
                },
              ],
            },
          );
          return userErrors(answer, 'metafieldsSet');
        });
        await step('web pixel', async () => {
          const settings = JSON.stringify({ base: app.config.publicBaseUrl, key: found.publishableKey });
          const created = await gql(
            handle,
            token,
            'mutation SillagePixel($p: WebPixelInput!) { webPixelCreate(webPixel: $p) { userErrors { code field message } webPixel { id } } }',
            { p: { settings } },
          );
          const errors = (created as { data?: { webPixelCreate?: { userErrors?: { code?: string }[] } } } | null)?.data
            ?.webPixelCreate?.userErrors;
          // the shop has the app's pixel already (a reinstall): its settings are updated
          if (!errors?.some((e) => e.code === 'TAKEN')) return userErrors(created, 'webPixelCreate');
          const pixel = await gql(handle, token, 'query SillagePixelId { webPixel { id } }');
          const id = (pixel as { data?: { webPixel?: { id?: unknown } } } | null)?.data?.webPixel?.id;
          if (typeof id !== 'string') return 'Shopify named no web pixel';
          const updated = await gql(
            handle,
            token,
            'mutation SillagePixelUpdate($id: ID!, $p: WebPixelInput!) { webPixelUpdate(id: $id, webPixel: $p) { userErrors { code field message } } }',
            { id, p: { settings } },
          );
          return userErrors(updated, 'webPixelUpdate');
        });
        await step('webhooks', async () => {
          const uri = `${app.config.publicBaseUrl}/api/platforms/shopify/webhooks`;
          const listed = await gql(
            handle,
            token,
            'query SillageWebhooks { webhookSubscriptions(first: 50) { nodes { id topic uri } } }',
          );
          const nodes = (listed as { data?: { webhookSubscriptions?: { nodes?: { topic?: string; uri?: string }[] } } })
            ?.data?.webhookSubscriptions?.nodes;
          if (!Array.isArray(nodes)) return userErrors(listed, 'webhookSubscriptions') ?? 'Shopify listed no webhooks';
          const have = new Set(nodes.filter((n) => n.uri === uri).map((n) => n.topic));
          const problems: string[] = [];
          for (const topic of Object.values(SHOPIFY_TOPICS)) {
            if (have.has(topic)) continue;
            const answer = await gql(
              handle,
              token,
              'mutation SillageWebhook($t: WebhookSubscriptionTopic!, $w: WebhookSubscriptionInput!) { webhookSubscriptionCreate(topic: $t, webhookSubscription: $w) { userErrors { field message } } }',
              { t: topic, w: { uri, format: 'JSON' } },
            );
            const problem = userErrors(answer, 'webhookSubscriptionCreate');
            if (problem) problems.push(`${topic}: ${problem}`);
          }
          return problems.length ? problems.join('; ') : null;
        });
        await recordSetup(app.db, found.id, failures.length ? failures.join('; ') : null);
        if (failures.length) app.log.warn({ shop: handle, failures }, 'shopify shop setup failed; tried again later');
        else app.log.info({ shop: handle }, 'shopify shop set up: script address, web pixel, webhooks');
      },
    });

    app.jobs.define('platforms.shopify.resetup', {
      async run() {
        for (const handle of await installsToSetUp(app.db, 'shopify')) {
          await app.jobs.send('platforms.shopify.setup', { shop: handle }, `shopify-setup:${handle}`);
        }
      },
      everyMinutes: 30,
    });

    /** A product webhook: the product read again from Shopify (the payload is never trusted alone) and stored. */
    const applyProduct = async (handle: string, productId: string, deleted: boolean) => {
      const found = await findInstall(app.db, 'shopify', handle);
      if (found?.status !== 'installed' || !found.feedSourceId) return;
      const answer = deleted
        ? null
        : await gql(handle, await tokenOf(handle), PRODUCT_QUERY, { id: `gid://shopify/Product/${productId}` });
      const rows = answer
        ? shopifyProductRows(answer, {
            kind: 'shopify_graphql',
            url: base(handle),
            currency: (await sourceSettingsOf(app.db, found.feedSourceId)).currency ?? undefined,
          })
        : [];
      await app.platforms.replaceProduct(
        { merchantId: found.merchantId, feedSourceId: found.feedSourceId },
        productId,
        rows,
      );
    };

    app.platforms.register('shopify', {
      async access(handle) {
        return { secret: await tokenOf(handle) };
      },
      async pace(url) {
        if (url.startsWith(shopify.shopUrl.split('{shop}')[0] as string) && url.includes('/graphql.json'))
          await waitFor(url, PAGE_COST);
      },
      async settle(url, page) {
        if (!url.includes('/graphql.json')) return 0;
        let body: unknown = null;
        try {
          body = JSON.parse(page);
        } catch {
          return 0;
        }
        const t = shopifyThrottle(body);
        remember(url, t);
        return t?.throttled ? Math.max(1000, throttleWaitMs(t, t.requested)) : 0;
      },
      async work({ event, storeId: handle, json: parsed }) {
        const found = await findInstall(app.db, 'shopify', handle);
        if (!found) return;
        switch (event) {
          case 'products/create':
          case 'products/update':
          case 'products/delete': {
            const id = shopifyWebhookProduct(parsed);
            if (!id) throw new UnusableWebhook(`${event} names no product`);
            return applyProduct(handle, id, event === 'products/delete');
          }
          case 'orders/create': {
            if (found.status !== 'installed') return;
            const order = shopifyOrder(parsed, new Date());
            if (!order) return;
            // one app secret signs every shop's webhooks, and X-Shopify-Shop-Domain is not signed: the
            // order is counted for this shop only once this shop's own API knows it
            const answer = await gql(handle, await tokenOf(handle), ORDER_QUERY, {
              id: `gid://shopify/Order/${order.orderId}`,
            });
            const ours = orderOfShop(answer, order.orderId);
            if (ours === null) throw new DecideLater("Shopify did not say whether the order is the shop's");
            if (!ours) {
              app.log.warn(
                { shop: handle, order: order.orderId },
                "shopify orders/create of another shop's order: not counted",
              );
              return;
            }
            await recordPlatformOrder(app.db, found.merchantId, order);
            return;
          }
          case 'app/uninstalled': {
            if (found.status !== 'installed') return;
            // a late uninstall (sent again, or from before a reinstall) is believed only once
            // Shopify refuses the shop's token
            try {
              await gql(handle, await tokenOf(handle), SHOP_QUERY, {}, 1);
              app.log.warn({ shop: handle }, 'shopify app/uninstalled ignored: Shopify still accepts the token');
              return;
            } catch (err) {
              if (!(err instanceof PlatformCallError && err.status === 401)) {
                throw new DecideLater(err instanceof Error ? err.message : String(err));
              }
            }
            const done = await uninstallStore(app.db, 'shopify', handle);
            if (done) {
              for (const hash of done.revokedHashes) await app.keyStore.invalidate(hash);
              app.merchantProducts.invalidate(done.merchantId);
              app.log.info({ shop: handle, merchant: done.merchantId }, 'shopify app/uninstalled');
            }
            return;
          }
          case 'customers/redact': {
            const r = shopifyRedaction(parsed);
            const leads = r.email || r.phone ? await eraseLeads(app.db, app.leadCipher, found.merchantId, r) : 0;
            const orders = await redactOrders(app.db, found.merchantId, r.orders);
            app.log.info({ shop: handle, leads, orders }, 'shopify customers/redact: erased');
            return;
          }
          case 'shop/redact': {
            // sent 48 hours after an uninstall: a shop that has installed the app again keeps its data
            if (found.status === 'installed') {
              app.log.info({ shop: handle }, 'shopify shop/redact ignored: the shop has installed the app again');
              return;
            }
            const erased = await redactStore(app.db, found.merchantId);
            app.log.info({ shop: handle, ...erased }, 'shopify shop/redact: erased');
            return;
          }
          case 'customers/data_request': {
            // what the service holds of a customer: leads (the merchant exports them in the console) and
            // the purchases of the listed orders (ids, totals, lines: no personal data); logged for the operator
            const r = shopifyRedaction(parsed);
            app.log.info(
              { shop: handle, orders: r.orders.length, contact: Boolean(r.email || r.phone) },
              'shopify customers/data_request: the merchant exports the leads from the console',
            );
            return;
          }
          default:
            return;
        }
      },
    });

    app.decorate('shopify', {
      authorizeUrl: (handle: string, state: string) =>
        authorizeUrl(shopify.shopUrl, handle, { clientId: shopify.clientId, redirectUri, state }),
      install,
    });
  },
  { name: 'shopify', dependencies: ['platforms', 'jobs', 'database', 'leads', 'catalog', 'merchant-products'] },
);
