import { randomBytes } from 'node:crypto';
import fp from 'fastify-plugin';
import { zidProductRows } from '../../feeds/zid.ts';
import { AppError } from '../../lib/errors.ts';
import { createPacer } from '../../lib/pacer.ts';
import type { PlatformTokens } from '../../platforms/common.ts';
import {
  isZidStoreEvent,
  ZID_REFRESH_AHEAD_MS,
  ZID_STORE_EVENTS,
  ZID_SUBSCRIBER,
  ZID_SUBSCRIPTION_ID,
  ZID_UNINSTALL,
  type ZidProfile,
  zidOrder,
  zidProfile,
  zidTokens,
  zidWebhookProduct,
  zidWebhookUrl,
} from '../../platforms/zid.ts';
import {
  findInstall,
  installStore,
  installsToSetUp,
  recordPlatformOrder,
  recordSetup,
  type StoreTokens,
  storeTokens,
  uninstallStore,
  webhookSecretOf,
} from '../../services/platforms.ts';
import { callJson, DecideLater, PlatformCallError, UnusableWebhook } from './platforms.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** the Zid app's OAuth steps (the console's install routes call them); null when the app is off */
    zid: {
      /** where the merchant is sent to authorize the app */
      authorizeUrl(state: string): string;
      /** the callback's code exchanged, the store read and installed; its setup and first import queued */
      install(code: string): Promise<{ profile: ZidProfile; merchantId: string; created: boolean }>;
    } | null;
  }
}

/**
 * Product calls a store gets a minute from this instance: Zid allows 60 per app and store (a leaky
 * bucket); the rest is room for the other instances and the other calls.
 */
export const ZID_PRODUCT_CALLS_PER_MINUTE = 50;

/**
 * The Zid app on the service's side (docs/platforms.md): the OAuth code flow's install, the store's
 * two tokens kept fresh (refreshed two months before they end, under the store's row lock), its
 * webhooks subscribed with a secret of its own in their URL and its storefront script created, its
 * products imported through the feed runner and kept current by product webhooks (each product
 * read again from Zid), its orders recorded as purchases, and an App Market uninstall believed only
 * once Zid refuses the store's tokens (Zid signs none of its webhooks).
 */
export default fp(
  async (app) => {
    const zid = app.config.platforms.zid;
    if (!zid) {
      app.decorate('zid', null);
      return;
    }
    const redirectUri = `${app.config.publicBaseUrl}/console/zid/callback`;

    const tokenCall = async (params: Record<string, string>): Promise<PlatformTokens> => {
      const answer = await callJson(`${zid.oauthUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          ...params,
          client_id: zid.clientId,
          client_secret: zid.clientSecret,
          redirect_uri: redirectUri,
        }).toString(),
      });
      const tokens = zidTokens(answer);
      if (!tokens) throw new AppError(502, 'platform_error', "Zid's token endpoint answered no tokens");
      return tokens;
    };
    const refresh = (refreshToken: string) => tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const tokensOf = (storeId: string) =>
      storeTokens(app.db, app.leadCipher, 'zid', storeId, refresh, { aheadMs: ZID_REFRESH_AHEAD_MS });

    /** The headers of every call for a store: both tokens, its id and the manager's role. */
    const headers = (t: StoreTokens, storeId: string | null): Record<string, string> => ({
      authorization: `Bearer ${t.authorization ?? ''}`,
      'x-manager-token': t.accessToken,
      'access-token': t.accessToken,
      ...(storeId ? { 'store-id': storeId } : {}),
      role: 'Manager',
      accept: 'application/json',
      'accept-language': 'ar',
    });
    const profileOf = async (t: StoreTokens) =>
      zidProfile(await callJson(`${zid.apiUrl}/managers/account/profile`, { headers: headers(t, null) }));

    /** Zid's limit on product calls, kept per store: the pull's pages and the webhooks' refetches share it. */
    const pacer = createPacer({ perWindow: ZID_PRODUCT_CALLS_PER_MINUTE, windowMs: 60_000 });
    const productsUrl = `${zid.apiUrl}/products`;

    const access = async (storeId: string) => {
      const t = await tokensOf(storeId);
      return { secret: t.accessToken, extras: { zid: { storeId, authorization: t.authorization ?? '' } } };
    };

    /**
     * The store's webhook subscriptions made again (those the app made before deleted first: Zid has
     * no update, and a subscription it disabled stays disabled) and its storefront script created,
     * or updated when it exists. What fails is recorded on the install and tried again.
     */
    app.jobs.define<{ storeId: string }>('platforms.zid.setup', {
      async run({ storeId }) {
        const install = await findInstall(app.db, 'zid', storeId);
        const secret = webhookSecretOf(app.leadCipher, install);
        if (!install || !secret) return;
        const t = await tokensOf(storeId);
        const h = { ...headers(t, storeId), 'content-type': 'application/json' };
        const failures: string[] = [];
        try {
          await callJson(`${zid.apiUrl}/managers/webhooks?original_id=${ZID_SUBSCRIPTION_ID}`, {
            method: 'DELETE',
            headers: h,
          });
        } catch (err) {
          app.log.warn({ err, store: storeId }, "Zid store's old webhook subscriptions could not be deleted");
        }
        for (const event of ZID_STORE_EVENTS) {
          await callJson(`${zid.apiUrl}/managers/webhooks`, {
            method: 'POST',
            headers: h,
            body: JSON.stringify({
              event,
              target_url: zidWebhookUrl(app.config.publicBaseUrl, storeId, event, secret),
              original_id: ZID_SUBSCRIPTION_ID,
              subscriber: ZID_SUBSCRIBER,
            }),
          }).catch((err) => failures.push(`webhook ${event}: ${err instanceof Error ? err.message : String(err)}`));
        }
        const script = JSON.stringify({
          url: `${app.config.publicBaseUrl}/api/platforms/zid/stores/${storeId}/script.js`,
        });
        try {
          await callJson(`${zid.apiUrl}/managers/app-scripts`, { method: 'POST', headers: h, body: script });
        } catch (err) {
          // one exists already (a reinstall): updated instead
          if (!(err instanceof PlatformCallError && err.status >= 400 && err.status < 500)) {
            failures.push(`storefront script: ${err instanceof Error ? err.message : String(err)}`);
          } else
            await callJson(`${zid.apiUrl}/managers/app-scripts`, { method: 'PUT', headers: h, body: script }).catch(
              (e) => failures.push(`storefront script: ${e instanceof Error ? e.message : String(e)}`),
            );
        }
        // what failed is tried again by `platforms.zid.resetup` (every 30 minutes, on every database)
        await recordSetup(app.db, install.id, failures.length ? failures.join('; ') : null);
        if (failures.length) {
          app.log.warn({ store: storeId, failures }, 'zid store setup failed; tried again later');
          return;
        }
        app.log.info({ store: storeId }, 'zid store set up: webhooks subscribed, storefront script in place');
      },
    });

    // a setup that failed (Zid away, the script not approved yet) is tried again, on every database
    app.jobs.define('platforms.zid.resetup', {
      async run() {
        for (const storeId of await installsToSetUp(app.db, 'zid')) {
          await app.jobs.send('platforms.zid.setup', { storeId }, `zid-setup:${storeId}`);
        }
      },
      everyMinutes: 30,
    });

    const install = async (code: string) => {
      const tokens = await tokenCall({ grant_type: 'authorization_code', code });
      const profile = await profileOf({ accessToken: tokens.accessToken, authorization: tokens.authorization ?? null });
      if (!profile) throw new AppError(502, 'platform_error', "Zid's profile of the store names no store");
      const done = await installStore(app.db, app.leadCipher, {
        platform: 'zid',
        storeId: profile.storeId,
        tokens,
        store: profile,
        apiUrl: zid.apiUrl,
        webhookSecret: randomBytes(24).toString('base64url'),
      });
      app.log.info(
        {
          store: profile.storeId,
          merchant: done.install.merchantId,
          created: done.created,
          reinstalled: done.reinstalled,
        },
        'zid install',
      );
      // the store's setup and first import; when they cannot be sent now, the periodic setup retry
      // and the feed dispatch (the source is due) send them later: the merchant still lands
      const later = (err: unknown) => app.log.warn({ err, store: profile.storeId }, 'zid install: work not sent yet');
      await app.jobs
        .send('platforms.zid.setup', { storeId: profile.storeId }, `zid-setup:${profile.storeId}`)
        .catch(later);
      if (done.install.feedSourceId) {
        await app.jobs
          .send('feeds.pull', { sourceId: done.install.feedSourceId }, done.install.feedSourceId)
          .catch(later);
      }
      return { profile, merchantId: done.install.merchantId, created: done.created };
    };

    /** A product webhook: the product read again from Zid (the payload is never trusted alone) and stored. */
    const applyProduct = async (storeId: string, productId: string, deleted: boolean) => {
      const found = await findInstall(app.db, 'zid', storeId);
      if (found?.status !== 'installed' || !found.feedSourceId) return;
      const { secret, extras } = await access(storeId);
      if (!deleted) await pacer.wait(storeId);
      const answer = deleted
        ? null
        : await callJson(`${zid.apiUrl}/products/${productId}/`, {
            headers: headers({ accessToken: secret, authorization: extras.zid.authorization }, storeId),
          });
      const rows = answer ? zidProductRows(answer, { kind: 'zid', url: zid.apiUrl }) : [];
      await app.platforms.replaceProduct(
        { merchantId: found.merchantId, feedSourceId: found.feedSourceId },
        productId,
        rows,
      );
    };

    /**
     * An App Market uninstall: believed once Zid refuses the store's tokens (the notice is unsigned):
     * the profile answers 401, or the refresh of tokens due is refused (400 or 401 from the token
     * endpoint). Any other failure (Zid away, a 403 from a firewall) is tried again, not believed.
     */
    const confirmUninstall = async (storeId: string) => {
      const found = await findInstall(app.db, 'zid', storeId);
      if (found?.status !== 'installed') return;
      try {
        await profileOf(await tokensOf(storeId));
        app.log.warn({ store: storeId }, 'zid uninstall notice ignored: Zid still accepts the store tokens');
        return;
      } catch (err) {
        const refused =
          err instanceof PlatformCallError &&
          (err.status === 401 || (err.path.endsWith('/oauth/token') && err.status === 400));
        // Zid away, a firewall's 403: nothing is believed now; the notice is looked at again later
        if (!refused) throw new DecideLater(err instanceof Error ? err.message : String(err));
      }
      const done = await uninstallStore(app.db, 'zid', storeId);
      if (done) {
        for (const hash of done.revokedHashes) await app.keyStore.invalidate(hash);
        app.merchantProducts.invalidate(done.merchantId);
        app.log.info({ store: storeId, merchant: done.merchantId }, 'zid uninstalled');
      }
    };

    app.platforms.register('zid', {
      access,
      async pace(url, headers) {
        const store = headers['Store-Id'];
        if (store && url.startsWith(productsUrl)) await pacer.wait(store);
      },
      async work({ event, storeId, json: parsed }) {
        if (event === ZID_UNINSTALL) return confirmUninstall(storeId);
        if (!isZidStoreEvent(event)) return; // other App Market notices: acknowledged
        if (event.startsWith('product.')) {
          const id = zidWebhookProduct(parsed);
          if (!id) throw new UnusableWebhook(`${event} names no product`);
          return applyProduct(storeId, id, event === 'product.delete');
        }
        const found = await findInstall(app.db, 'zid', storeId);
        if (found?.status !== 'installed') return;
        const order = zidOrder(parsed, new Date());
        if (order) await recordPlatformOrder(app.db, found.merchantId, order);
      },
    });

    app.decorate('zid', {
      authorizeUrl(state: string) {
        const u = new URL(`${zid.oauthUrl}/oauth/authorize`);
        u.searchParams.set('client_id', zid.clientId);
        u.searchParams.set('redirect_uri', redirectUri);
        u.searchParams.set('response_type', 'code');
        u.searchParams.set('state', state);
        return u.toString();
      },
      install,
    });
  },
  { name: 'zid', dependencies: ['platforms', 'jobs', 'database', 'leads', 'catalog', 'merchant-products'] },
);
