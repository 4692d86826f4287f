import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import { sallaProductRows } from '../../feeds/salla.ts';
import type { FeedRow } from '../../feeds/types.ts';
import { AppError } from '../../lib/errors.ts';
import {
  MAX_BRAND_PAGES,
  type SallaDashboardToken,
  type SallaTokens,
  sallaBrands,
  sallaEnvelope,
  sallaInstaller,
  sallaIntrospection,
  sallaOrder,
  sallaProductId,
  sallaStore,
  sallaTokens,
} from '../../platforms/salla.ts';
import { type ConsoleUser, platformOwner } from '../../services/console-users.ts';
import {
  FeedFetchError,
  type FeedSourceRow,
  type PageFetcher,
  type SourceAccess,
  storedAccess,
} from '../../services/feeds.ts';
import {
  findInstall,
  finishWebhook,
  installOfSource,
  installStore,
  type Platform,
  postponeWebhook,
  recordPlatformOrder,
  storeAccessToken,
  takeWebhook,
  uninstallStore,
  waitingWebhooks,
} from '../../services/platforms.ts';
import { productsOfSource, syncProducts } from '../../services/products.ts';

/** One platform's app: how its stored webhooks are worked and how its stores' products are read. */
export interface PlatformApp {
  /**
   * a stored webhook of this platform, worked (throw UnusableWebhook when it never can be); `json`
   * is its body read (a body that is not JSON never reaches here)
   */
  work(webhook: { event: string; storeId: string; body: string; json: unknown }): Promise<void>;
  /** the store's token and what else its product pages are read with */
  access(storeId: string): ReturnType<SourceAccess>;
  /** waits, before a feed page is fetched, until the platform's limit on calls allows it */
  pace?(url: string, headers: Record<string, string>): Promise<void>;
  /**
   * reads a fetched page's answer for the platform's limit (Shopify's cost block): the milliseconds
   * to wait before asking for the page again when it was refused for the limit, else 0
   */
  settle?(url: string, body: string): Promise<number>;
}

/** A feed page refused for a platform's limit is asked for this many times in all. */
export const LIMITED_PAGE_TRIES = 4;

declare module 'fastify' {
  interface FastifyInstance {
    platforms: {
      /** how a feed source is read: a platform store's with its access token (refreshed when due) and its brands */
      access: SourceAccess;
      /** queues a stored webhook's work (the receivers answer at once) */
      workWebhook(id: string): Promise<void>;
      /** a platform's app joins (plugins/app/zid.ts) */
      register(platform: Platform, handler: PlatformApp): void;
      /**
       * a product a webhook named, read again from the platform: its rows now (none when it is gone
       * or not for sale) replace the rows it had (one per concentration) in the store's shelf
       */
      replaceProduct(
        install: { merchantId: string; feedSourceId: string },
        productId: string,
        rows: FeedRow[],
      ): Promise<void>;
      /** a page fetcher that keeps within each platform's limit on calls per store */
      paced(fetchPage: PageFetcher): PageFetcher;
      /**
       * a platform's delivery is being received (its receiver calls the function returned when it
       * has answered): stored webhooks are worked only between deliveries, so that a burst's
       * acknowledgements never wait behind the work of the ones before (`RECEIVING_HOLD_MS`)
       */
      receiving(): () => void;
      /** how many stored webhooks' jobs waited the whole RECEIVING_HOLD_MS on this instance */
      heldWhole(): number;
      /**
       * what Salla's introspection says of the token the app's page in a store's dashboard was
       * opened with: the store, or null when Salla refuses the token (one call to Salla; it throws
       * when Salla does not answer)
       */
      sallaIntrospect(token: string): Promise<SallaDashboardToken | null>;
      /**
       * the page opened for a store Salla named: the store must be installed (404
       * `unknown_store`), and the owner is the console account of the email Salla gives for the
       * store's user who authorized the app, when that user opened the page (null otherwise, or
       * when there is no account to make)
       */
      sallaDashboard(opened: SallaDashboardToken): Promise<{
        merchantId: string;
        storeId: string;
        owner: ConsoleUser | null;
        /** why nobody is signed in: the page was opened by another user than the app's installer, or no account could be made */
        refused: 'not_installer' | 'no_account' | null;
      }>;
    };
  }
}

/** A store's brands are read again after this long. */
const BRANDS_FOR_MS = 10 * 60_000;

/** A webhook that can never be worked (its payload lacks what the event needs): not tried again. */
export class UnusableWebhook extends Error {}

/**
 * A webhook that cannot be decided now (a check the platform did not answer): left waiting, it is
 * sent again by `platforms.dispatch` (every 5 minutes), up to WEBHOOK_TRIES tries in all, on every
 * database.
 */
export class DecideLater extends Error {}

/** A platform's API answered with an error status (`status`: its HTTP status). */
export class PlatformCallError extends AppError {
  constructor(
    readonly path: string,
    readonly status: number,
  ) {
    super(502, 'platform_error', `${path}: answered ${status}`);
  }
}

/** An answer from a platform's API is read up to this many bytes. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;
/** Salla's answers to an introspection that mean the token is not good (not that Salla is away). */
const REFUSED_TOKEN: ReadonlySet<number> = new Set([400, 401, 403, 422]);
/** A call to a platform's API gives up after this long. */
const CALL_TIMEOUT_MS = 10_000;
/**
 * While deliveries arrive, a stored webhook's work waits until none is being received and none
 * arrived for RECEIVING_QUIET_MS, and at most RECEIVING_HOLD_MS: a burst is acknowledged first (the
 * platforms want an answer within seconds). A job that waited the whole hold opens a window as
 * long, in which jobs run without waiting: under deliveries that never stop, the work still gets
 * half the time, not one job per hold.
 */
export const RECEIVING_QUIET_MS = 25;
export const RECEIVING_HOLD_MS = 2000;

/** A webhook's work is tried this many times in all (on PostgreSQL; once on the embedded database). */
const WEBHOOK_TRIES = 4;

/** One call to a platform's API, its JSON answer read within MAX_ANSWER_BYTES; null when not found. */
export async function callJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<unknown | null> {
  const res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  if (res.status === 404) {
    await res.body?.cancel();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > MAX_ANSWER_BYTES) throw new AppError(502, 'platform_error', `${url}: the answer is too large`);
      chunks.push(chunk);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!res.ok) throw new PlatformCallError(new URL(url).pathname, res.status);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(502, 'platform_error', `${new URL(url).pathname}: the answer is not JSON`);
  }
}

/**
 * The platforms' apps on the service's side (docs/platforms.md): a webhook stored by its receiver
 * (routes/platforms/) is worked here as the background job `platforms.webhook`; a platform store's
 * feed source reads the store's products with its access token, refreshed under a lock when due.
 */
export default fp(
  async (app) => {
    const salla = app.config.platforms.salla;

    const refreshSalla = async (refreshToken: string): Promise<SallaTokens> => {
      if (!salla) throw new AppError(404, 'platform_not_configured', 'The Salla app is not set up on this service');
      const answer = await callJson(`${salla.accountsUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: salla.clientId,
          client_secret: salla.clientSecret,
        }).toString(),
      });
      const tokens = sallaTokens((answer as { data?: unknown } | null)?.data ?? answer);
      if (!tokens) throw new AppError(502, 'platform_error', "Salla's token refresh answered no tokens");
      return tokens;
    };
    const sallaToken = (storeId: string) => storeAccessToken(app.db, app.leadCipher, 'salla', storeId, refreshSalla);

    /** A store's brands by id (its products may name only a brand id), read at most every 10 minutes. */
    const brandCache = new Map<string, { at: number; names: Record<string, string> }>();
    const sallaBrandNames = async (storeId: string, token: string, fresh: boolean): Promise<Record<string, string>> => {
      if (!salla) return {};
      const hit = brandCache.get(storeId);
      if (!fresh && hit && Date.now() - hit.at < BRANDS_FOR_MS) return hit.names;
      const names: Record<string, string> = {};
      for (let page = 1; page <= MAX_BRAND_PAGES; page++) {
        const answer = await callJson(`${salla.apiUrl}/brands?per_page=60&page=${page}`, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-language': 'ar' },
        });
        const read = sallaBrands(answer);
        Object.assign(names, read.names);
        if (!read.more) break;
      }
      if (brandCache.size >= 1000) brandCache.delete(brandCache.keys().next().value as string);
      brandCache.set(storeId, { at: Date.now(), names });
      return names;
    };
    /** The store's token and brands: a pull reads the brands afresh, a product webhook from the cache. */
    const storeAccess = async (storeId: string, fresh = true) => {
      const token = await sallaToken(storeId);
      // without its brands, a product naming only a brand id is rejected with why (not the whole pull)
      const brands = await sallaBrandNames(storeId, token, fresh).catch((err) => {
        app.log.warn({ err, store: storeId }, "Salla store's brands could not be read");
        return {};
      });
      return { secret: token, extras: { brands } };
    };

    const handlers = new Map<Platform, PlatformApp>();
    const own = storedAccess(app.leadCipher);
    const access: SourceAccess = async (s: FeedSourceRow) => {
      if (s.kind !== 'salla' && s.kind !== 'zid' && s.kind !== 'shopify_graphql') return own(s);
      // a source an operator added with a token of its own reads with it; an installed store's with the store's
      const install = await installOfSource(app.db, s.id);
      const handler = install ? handlers.get(install.platform as Platform) : undefined;
      if (!install || !handler) return own(s);
      return handler.access(install.storeId);
    };

    const replaceProduct = async (
      install: { merchantId: string; feedSourceId: string },
      productId: string,
      rows: FeedRow[],
    ) => {
      // this product's rows before (one per concentration), and those it no longer has
      const before = await productsOfSource(app.db, install.feedSourceId, [productId, `${productId}:%`]);
      const now = new Set(rows.map((r) => r.merchant_product_id));
      await syncProducts(app.db, app.catalog.current(), install.merchantId, rows, {
        match: app.inlineMatcher,
        sourceId: install.feedSourceId,
        remove: before.filter((id) => !now.has(id)),
      });
      app.merchantProducts.invalidate(install.merchantId);
    };

    /** A product webhook: the product read again from Salla (the payload is never trusted alone) and stored. */
    const applySallaProduct = async (storeId: string, productId: string, deleted: boolean) => {
      if (!salla) return;
      const install = await findInstall(app.db, 'salla', storeId);
      if (install?.status !== 'installed' || !install.feedSourceId) return;
      let { secret: token, extras } = await storeAccess(storeId, false);
      const answer = deleted
        ? null
        : await callJson(`${salla.apiUrl}/products/${productId}`, {
            headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'accept-language': 'ar' },
          });
      const product = (answer as { data?: unknown } | null)?.data;
      // a brand the cached brands do not name yet (added since): read them afresh
      const brandId = sallaProductId({ id: (product as { brand_id?: unknown } | undefined)?.brand_id });
      if (brandId && !Object.hasOwn(extras.brands, brandId))
        ({ secret: token, extras } = await storeAccess(storeId, true));
      const rows = product ? sallaProductRows(product, { kind: 'salla', url: salla.apiUrl, ...extras }) : [];
      await replaceProduct({ merchantId: install.merchantId, feedSourceId: install.feedSourceId }, productId, rows);
    };

    const workSalla = async (event: string, storeId: string, data: Record<string, unknown>) => {
      if (!salla) return;
      switch (event) {
        case 'app.installed':
        case 'app.store.authorize': {
          const tokens = event === 'app.store.authorize' ? sallaTokens(data) : null;
          if (event === 'app.store.authorize' && !tokens)
            throw new UnusableWebhook('app.store.authorize without tokens');
          const store = tokens
            ? sallaStore(
                await callJson(`${salla.accountsUrl}/oauth2/user/info`, {
                  headers: { authorization: `Bearer ${tokens.accessToken}`, accept: 'application/json' },
                }).catch((err) => {
                  app.log.warn({ err, store: storeId }, "Salla store's name could not be read: a placeholder is used");
                  return null;
                }),
              )
            : { name: null, origin: null };
          const { install, created, reinstalled } = await installStore(app.db, app.leadCipher, {
            platform: 'salla',
            storeId,
            tokens,
            store,
            apiUrl: salla.apiUrl,
          });
          app.log.info({ store: storeId, merchant: install.merchantId, created, reinstalled }, `salla ${event}`);
          // the first full import, as soon as there are tokens to read the products with
          if (tokens && install.feedSourceId) {
            await app.jobs.send('feeds.pull', { sourceId: install.feedSourceId }, install.feedSourceId);
          }
          return;
        }
        case 'app.uninstalled': {
          const done = await uninstallStore(app.db, 'salla', storeId);
          if (done) {
            for (const hash of done.revokedHashes) await app.keyStore.invalidate(hash);
            app.merchantProducts.invalidate(done.merchantId);
            app.log.info({ store: storeId, merchant: done.merchantId }, 'salla app.uninstalled');
          }
          return;
        }
        case 'product.created':
        case 'product.updated':
        case 'product.available':
        case 'product.quantity.low':
        case 'product.deleted': {
          const id = sallaProductId(data);
          if (id) await applySallaProduct(storeId, id, event === 'product.deleted');
          return;
        }
        case 'order.created': {
          const install = await findInstall(app.db, 'salla', storeId);
          if (install?.status !== 'installed') return;
          const order = sallaOrder(data, new Date());
          if (!order) throw new UnusableWebhook('order.created without an id or a total');
          await recordPlatformOrder(app.db, install.merchantId, order);
          return;
        }
        default:
          // acknowledged, nothing to do (app.updated: its app.store.authorize follows)
          return;
      }
    };

    // deliveries being received on this instance, and when the last one arrived
    let receiving = 0;
    let lastReceived = 0;
    // until when jobs run without waiting (a job waited the whole hold), and how often that happened
    let unheldUntil = 0;
    let heldWhole = 0;
    const quiet = async () => {
      if (Date.now() < unheldUntil) return;
      const until = Date.now() + RECEIVING_HOLD_MS;
      while (receiving > 0 || Date.now() - lastReceived < RECEIVING_QUIET_MS) {
        if (Date.now() >= until) {
          heldWhole++;
          unheldUntil = Date.now() + RECEIVING_HOLD_MS;
          return;
        }
        await sleep(RECEIVING_QUIET_MS);
      }
    };

    app.jobs.define<{ id: string }>('platforms.webhook', {
      async run({ id }) {
        await quiet();
        const row = await takeWebhook(app.db, app.leadCipher, id);
        if (!row) return;
        try {
          const handler = handlers.get(row.platform as Platform);
          if (!handler) throw new UnusableWebhook(`the ${row.platform} app is not set up on this service`);
          let json: unknown;
          try {
            json = JSON.parse(row.body);
          } catch {
            throw new UnusableWebhook('the body is not JSON');
          }
          await handler.work({ ...row, json });
          await finishWebhook(app.db, id, null);
        } catch (err) {
          if (err instanceof DecideLater && row.attempts < WEBHOOK_TRIES) {
            await postponeWebhook(app.db, id, err.message);
            app.log.warn({ err, webhook: id, event: row.event }, 'platform webhook left for later');
            return;
          }
          // a payload that cannot be worked fails for good; anything else (Salla or the database away) is tried again
          const final =
            err instanceof UnusableWebhook || app.jobs.kind === 'in-process' || row.attempts >= WEBHOOK_TRIES;
          await finishWebhook(app.db, id, err instanceof Error ? err.message : String(err), final);
          app.log.warn({ err, webhook: id, event: row.event, final }, 'platform webhook failed');
          if (!final) throw err;
        }
      },
      retries: WEBHOOK_TRIES - 1,
    });

    // a webhook stored whose work was never queued (the instance stopped in between) is sent again
    app.jobs.define('platforms.dispatch', {
      async run() {
        for (const id of await waitingWebhooks(app.db)) await app.jobs.send('platforms.webhook', { id }, id);
      },
      everyMinutes: 5,
    });

    if (salla) {
      handlers.set('salla', {
        access: (storeId) => storeAccess(storeId),
        async work(row) {
          const envelope = sallaEnvelope(row.json);
          if (typeof envelope === 'string') throw new UnusableWebhook(envelope);
          await workSalla(envelope.event, envelope.storeId, envelope.data);
        },
      });
    }

    const dashboardOff = () =>
      new AppError(404, 'platform_not_configured', "The Salla app's dashboard page is not set up on this service");
    const sallaIntrospect = async (token: string) => {
      const dashboard = salla?.dashboard;
      if (!dashboard) throw dashboardOff();
      let answer: unknown = null;
      try {
        answer = await callJson(dashboard.introspectUrl, {
          method: 'POST',
          headers: { 's-source': dashboard.appId, 'content-type': 'application/json', accept: 'application/json' },
          // the fields Salla's own SDK sends with the token (its `auth.introspect`)
          body: JSON.stringify({ env: 'prod', token, iss: 'merchant-dashboard', subject: 'embedded-page' }),
        });
      } catch (err) {
        // Salla refused the token; anything else (Salla away, throttling us) is not the token's fault
        if (!(err instanceof PlatformCallError && REFUSED_TOKEN.has(err.status))) throw err;
      }
      return sallaIntrospection(answer, dashboard.appId);
    };

    const sallaDashboard = async (opened: SallaDashboardToken) => {
      if (!salla?.dashboard) throw dashboardOff();
      const install = await findInstall(app.db, 'salla', opened.storeId);
      if (install?.status !== 'installed')
        throw new AppError(404, 'unknown_store', 'This store has not installed the app');
      const info = await callJson(`${salla.accountsUrl}/oauth2/user/info`, {
        headers: { authorization: `Bearer ${await sallaToken(opened.storeId)}`, accept: 'application/json' },
      });
      const installer = sallaInstaller(info);
      // only the user who authorized the app is its owner here: another of the store's users opening
      // the page (Salla's staff permissions) is not made the owner of its console
      if (!opened.userId || opened.userId !== installer.userId) {
        return {
          merchantId: install.merchantId,
          storeId: opened.storeId,
          owner: null,
          refused: 'not_installer' as const,
        };
      }
      const owner = await platformOwner(app.db, install.merchantId, installer.email, { proven: true });
      return {
        merchantId: install.merchantId,
        storeId: opened.storeId,
        owner,
        refused: owner ? null : ('no_account' as const),
      };
    };

    app.decorate('platforms', {
      heldWhole: () => heldWhole,
      receiving: () => {
        receiving++;
        lastReceived = Date.now();
        let done = false;
        return () => {
          if (done) return;
          done = true;
          receiving--;
          lastReceived = Date.now();
        };
      },
      access,
      sallaIntrospect,
      sallaDashboard,
      workWebhook: (id: string) => app.jobs.send('platforms.webhook', { id }, id),
      register: (platform: Platform, handler: PlatformApp) => {
        handlers.set(platform, handler);
      },
      replaceProduct,
      paced:
        (fetchPage: PageFetcher): PageFetcher =>
        async (url, o) => {
          for (let attempt = 1; ; attempt++) {
            for (const h of handlers.values()) await h.pace?.(url, o.headers);
            const page = await fetchPage(url, o);
            if (page.status !== 200) return page;
            let wait = 0;
            for (const h of handlers.values()) wait = Math.max(wait, (await h.settle?.(url, page.body)) ?? 0);
            if (wait === 0) return page;
            // still refused after the last try: the pull fails whole (no product is removed for it)
            if (attempt >= LIMITED_PAGE_TRIES) {
              throw new FeedFetchError('feed_http_error', 'The platform kept refusing the page for its rate limit');
            }
            await sleep(wait);
          }
        },
    });
  },
  {
    name: 'platforms',
    dependencies: ['database', 'jobs', 'catalog', 'leads', 'merchant-products', 'inline-matcher'],
  },
);
