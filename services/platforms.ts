import { createHash } from 'node:crypto';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client.ts';
import type { FeedKind } from '../feeds/types.ts';
import { AppError } from '../lib/errors.ts';
import {
  needsRefresh,
  type PlatformOrder,
  type PlatformStore,
  type PlatformTokens,
  REFRESH_AHEAD_MS,
} from '../platforms/common.ts';
import type { LeadCipher } from '../privacy/lead-crypto.ts';
import {
  apiKeys,
  feedSources,
  leads,
  type PlatformInstallRow,
  platformInstalls,
  platformWebhooks,
  purchases,
} from '../schema/index.ts';
import { createKey } from './keys.ts';
import { createMerchant } from './merchants.ts';

export type Platform = 'salla' | 'zid' | 'shopify' | 'woocommerce';

/** How platforms are named to people (a new store's merchant name, messages). */
export const PLATFORM_NAMES: Record<Platform, string> = {
  salla: 'Salla',
  zid: 'Zid',
  shopify: 'Shopify',
  woocommerce: 'WooCommerce',
};

/** How long a worked webhook's row is kept (its hash recognises a delivery sent again). */
export const WEBHOOK_KEEP_DAYS = 7;

/**
 * Stores a webhook whose signature was checked: its body encrypted, its hash the key that makes a
 * delivery sent again the same row. Answers the row's id, and whether it was already there.
 */
export async function recordWebhook(
  db: DbOrTx,
  cipher: LeadCipher,
  input: {
    platform: Platform;
    storeId: string;
    event: string;
    raw: Buffer;
    /**
     * what else names the delivery when the body does not (Zid's store and event are in the URL):
     * the same body for another event or store is another delivery
     */
    scope?: string;
  },
): Promise<{ id: string; duplicate: boolean }> {
  const hash = createHash('sha256');
  if (input.scope !== undefined) hash.update(`${input.scope}\n`);
  const bodyHash = hash.update(input.raw).digest('hex');
  const [row] = await db
    .insert(platformWebhooks)
    .values({
      platform: input.platform,
      storeId: input.storeId,
      event: input.event.slice(0, 100),
      bodyHash,
      bodyEncrypted: cipher.encrypt(input.raw.toString('utf8')),
    })
    .onConflictDoNothing()
    .returning({ id: platformWebhooks.id });
  if (row) return { id: row.id, duplicate: false };
  const [existing] = await db
    .select({ id: platformWebhooks.id })
    .from(platformWebhooks)
    .where(and(eq(platformWebhooks.platform, input.platform), eq(platformWebhooks.bodyHash, bodyHash)));
  if (!existing) throw new AppError(500, 'internal_error', 'webhook row neither inserted nor found');
  return { id: existing.id, duplicate: true };
}

/** A stored webhook to work, its body decrypted; null when it is done already (or gone). */
export async function takeWebhook(db: DbOrTx, cipher: LeadCipher, id: string) {
  const [row] = await db
    .update(platformWebhooks)
    .set({ attempts: sql`${platformWebhooks.attempts} + 1` })
    .where(and(eq(platformWebhooks.id, id), sql`${platformWebhooks.status} <> 'done'`))
    .returning();
  if (!row?.bodyEncrypted) return null;
  return { ...row, body: cipher.decrypt(row.bodyEncrypted) };
}

/** The webhook worked (its body dropped), or failed with why (its body kept for the next try). */
export async function finishWebhook(db: DbOrTx, id: string, error: string | null, final = true) {
  await db
    .update(platformWebhooks)
    .set(
      error === null
        ? { status: 'done', bodyEncrypted: null, error: null, processedAt: new Date() }
        : { status: 'failed', error: error.slice(0, 500), ...(final ? { bodyEncrypted: null } : {}) },
    )
    .where(eq(platformWebhooks.id, id));
}

/** A webhook left waiting (with why) for the dispatch of stored webhooks to send again. */
export async function postponeWebhook(db: DbOrTx, id: string, error: string) {
  await db
    .update(platformWebhooks)
    .set({ status: 'received', error: error.slice(0, 500) })
    .where(eq(platformWebhooks.id, id));
}

/** Webhooks stored and still waiting a minute later (their work was never queued: an instance stopped between). */
export async function waitingWebhooks(db: DbOrTx, limit = 1000): Promise<string[]> {
  const rows = await db
    .select({ id: platformWebhooks.id })
    .from(platformWebhooks)
    .where(
      and(eq(platformWebhooks.status, 'received'), sql`${platformWebhooks.receivedAt} < now() - interval '1 minute'`),
    )
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Worked webhooks older than WEBHOOK_KEEP_DAYS, deleted (the retention purge). */
export async function purgeWebhooks(db: Db): Promise<number> {
  const rows = await db
    .delete(platformWebhooks)
    .where(sql`${platformWebhooks.receivedAt} < now() - make_interval(days => ${WEBHOOK_KEEP_DAYS})`)
    .returning({ id: platformWebhooks.id });
  return rows.length;
}

export async function findInstall(db: DbOrTx, platform: Platform, storeId: string) {
  const [row] = await db
    .select()
    .from(platformInstalls)
    .where(and(eq(platformInstalls.platform, platform), eq(platformInstalls.storeId, storeId)));
  return row ?? null;
}

/** A merchant's platform install, as the console shows it; null when it did not come from a platform. */
export async function installOfMerchant(db: DbOrTx, merchantId: string) {
  const [i] = await db.select().from(platformInstalls).where(eq(platformInstalls.merchantId, merchantId)).limit(1);
  if (!i) return null;
  return {
    platform: i.platform as Platform,
    name: PLATFORM_NAMES[i.platform as Platform] ?? i.platform,
    storeId: i.storeId,
    status: i.status,
    installedAt: i.installedAt,
    uninstalledAt: i.uninstalledAt,
    // only the Zid and Shopify apps set up webhooks and a script on the platform from the service
    hasSetup: i.platform === 'zid' || i.platform === 'shopify',
    setupAt: i.setupAt,
    setupError: i.setupError,
  };
}

/** A store's merchant slug: `{platform}-{store}`, cut to a slug's 64 characters with a hash of the whole when longer. */
export function storeSlug(platform: Platform, storeId: string): string {
  const slug = `${platform}-${storeId}`.toLowerCase();
  if (slug.length <= 64) return slug;
  const hash = createHash('sha256').update(slug).digest('hex').slice(0, 8);
  return `${slug.slice(0, 55).replace(/-+$/, '')}-${hash}`;
}

/**
 * A store installs the app (or authorizes it again): the first time, a merchant of its own with a
 * live and a test key and a feed source that imports its products through the platform's API;
 * after an uninstall, the same merchant with new keys and its source resumed; otherwise only its
 * tokens are replaced. Safe to run twice and in any order with the other install events.
 */
export async function installStore(
  db: Db,
  cipher: LeadCipher,
  input: {
    platform: Platform;
    storeId: string;
    tokens: PlatformTokens | null;
    store: PlatformStore;
    /** the feed source's URL: the platform's API base */
    apiUrl: string;
    /** the secret the store's webhook subscriptions will carry (Zid): replaced at each install, kept otherwise */
    webhookSecret?: string;
    /** the feed source's kind when it is not the platform's name (Shopify's: `shopify_graphql`) */
    feedKind?: FeedKind;
    /** the store's currency, when the platform says it (the feed's prices are in it) */
    currency?: string;
    /** origins the live key allows besides the store's own (Shopify's myshopify.com domain) */
    origins?: string[];
    /** WooCommerce: the hash of the connect token whose keys these are */
    connectTokenHash?: string;
    /**
     * called in the install's transaction before a store with no install yet gets its merchant
     * (WooCommerce bounds how many it makes): throwing installs nothing
     */
    beforeCreate?: (tx: DbOrTx) => Promise<void>;
  },
): Promise<{ install: PlatformInstallRow; created: boolean; reinstalled: boolean }> {
  return db.transaction(async (tx) => {
    // serialises two install events of one store (app.installed and app.store.authorize arrive together)
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`${input.platform}:${input.storeId}`}))`);
    const existing = await findInstall(tx, input.platform, input.storeId);
    const tokenSet = input.tokens
      ? {
          ...(input.connectTokenHash ? { connectTokenHash: input.connectTokenHash } : {}),
          accessTokenEncrypted: cipher.encrypt(input.tokens.accessToken),
          refreshTokenEncrypted: input.tokens.refreshToken ? cipher.encrypt(input.tokens.refreshToken) : null,
          authTokenEncrypted: input.tokens.authorization ? cipher.encrypt(input.tokens.authorization) : null,
          tokenExpiresAt: input.tokens.expiresAt,
          scope: input.tokens.scope,
        }
      : {};
    if (existing && existing.status === 'installed') {
      const [install] = await tx
        .update(platformInstalls)
        .set({ ...tokenSet, updatedAt: new Date() })
        .where(eq(platformInstalls.id, existing.id))
        .returning();
      return { install: install as PlatformInstallRow, created: false, reinstalled: false };
    }
    if (!existing) await input.beforeCreate?.(tx);
    const merchantId =
      existing?.merchantId ??
      (
        await createMerchant(tx, {
          name: input.store.name ?? `${PLATFORM_NAMES[input.platform]} store ${input.storeId}`,
          slug: storeSlug(input.platform, input.storeId),
        })
      ).id;
    const live = await createKey(tx, merchantId, {
      mode: 'live',
      allowedOrigins: [...new Set([...(input.store.origin ? [input.store.origin] : []), ...(input.origins ?? [])])],
    });
    await createKey(tx, merchantId, { mode: 'test', allowedOrigins: ['*'] });
    let sourceId = existing?.feedSourceId ?? null;
    if (sourceId) {
      await tx
        .update(feedSources)
        .set({ paused: false, nextPullAt: new Date(), claimedUntil: null })
        .where(eq(feedSources.id, sourceId));
    } else {
      const [source] = await tx
        .insert(feedSources)
        .values({
          merchantId,
          kind: input.feedKind ?? input.platform,
          url: input.apiUrl,
          intervalMinutes: 60,
          currency: input.currency ?? null,
        })
        .onConflictDoUpdate({
          target: [feedSources.merchantId, feedSources.url],
          set: { paused: false, nextPullAt: new Date() },
        })
        .returning({ id: feedSources.id });
      sourceId = source?.id ?? null;
    }
    const values = {
      status: 'installed',
      publishableKey: live.key,
      feedSourceId: sourceId,
      uninstalledAt: null,
      installedAt: new Date(),
      updatedAt: new Date(),
      setupAt: null,
      setupError: null,
      webhookSecretEncrypted: input.webhookSecret ? cipher.encrypt(input.webhookSecret) : null,
      ...tokenSet,
    };
    const [install] = existing
      ? await tx.update(platformInstalls).set(values).where(eq(platformInstalls.id, existing.id)).returning()
      : await tx
          .insert(platformInstalls)
          .values({ platform: input.platform, storeId: input.storeId, merchantId, ...values })
          .returning();
    return { install: install as PlatformInstallRow, created: !existing, reinstalled: Boolean(existing) };
  });
}

/**
 * A store uninstalls the app: its tokens forgotten (the platform has made them invalid), its keys
 * revoked (the storefront script stops), its feed paused. The merchant and its history stay, so a
 * reinstall finds them. Answers the revoked keys' hashes (the key store drops them) and the merchant.
 */
export async function uninstallStore(
  db: Db,
  platform: Platform,
  storeId: string,
): Promise<{ merchantId: string; revokedHashes: string[] } | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`${platform}:${storeId}`}))`);
    const existing = await findInstall(tx, platform, storeId);
    if (!existing) return null;
    await tx
      .update(platformInstalls)
      .set({
        status: 'uninstalled',
        accessTokenEncrypted: null,
        refreshTokenEncrypted: null,
        authTokenEncrypted: null,
        webhookSecretEncrypted: null,
        connectTokenHash: null,
        tokenExpiresAt: null,
        publishableKey: null,
        uninstalledAt: existing.uninstalledAt ?? new Date(),
        updatedAt: new Date(),
      })
      .where(eq(platformInstalls.id, existing.id));
    const revoked = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiKeys.merchantId, existing.merchantId), isNull(apiKeys.revokedAt)))
      .returning({ hash: apiKeys.keyHash });
    if (existing.feedSourceId) {
      await tx.update(feedSources).set({ paused: true }).where(eq(feedSources.id, existing.feedSourceId));
    }
    return { merchantId: existing.merchantId, revokedHashes: revoked.map((r) => r.hash) };
  });
}

export class StoreNotInstalled extends AppError {
  constructor(what: string) {
    super(409, 'store_not_installed', what);
  }
}

/** A store's tokens for the platform's API, as the calls send them. */
export interface StoreTokens {
  accessToken: string;
  /** the second token (Zid's `authorization`), when the platform has one */
  authorization: string | null;
}

/**
 * The store's tokens, refreshed first when they expire within `aheadMs` (a day unless the platform
 * says otherwise). The refresh runs with the store's row locked (SELECT … FOR UPDATE) until the
 * new tokens are stored: a refresh token may be single-use (Salla's is: one sent twice revokes the
 * store's tokens), and whoever waited on the lock finds the new tokens and sends nothing. Holds on
 * PostgreSQL across instances and on the embedded database.
 */
export async function storeTokens(
  db: Db,
  cipher: LeadCipher,
  platform: Platform,
  storeId: string,
  refresh: (refreshToken: string) => Promise<PlatformTokens>,
  o: { now?: () => number; aheadMs?: number } = {},
): Promise<StoreTokens> {
  const now = o.now ?? Date.now;
  const ahead = o.aheadMs ?? REFRESH_AHEAD_MS;
  const where = and(eq(platformInstalls.platform, platform), eq(platformInstalls.storeId, storeId));
  const usable = (row: PlatformInstallRow | undefined) => {
    if (row?.status !== 'installed' || !row.accessTokenEncrypted) {
      throw new StoreNotInstalled(`The ${platform} store ${storeId} has not installed the app (or has no tokens)`);
    }
    return row;
  };
  const tokensOf = (row: PlatformInstallRow): StoreTokens => ({
    accessToken: cipher.decrypt(row.accessTokenEncrypted as string),
    authorization: row.authTokenEncrypted ? cipher.decrypt(row.authTokenEncrypted) : null,
  });
  // most calls: the token is fresh (or, Shopify's, cannot be refreshed), no lock is taken
  const seen = usable((await db.select().from(platformInstalls).where(where))[0]);
  if (!seen.refreshTokenEncrypted || !needsRefresh(seen.tokenExpiresAt, now(), ahead)) return tokensOf(seen);
  return db.transaction(async (tx) => {
    const row = usable((await tx.select().from(platformInstalls).where(where).for('update'))[0]);
    if (!row.refreshTokenEncrypted || !needsRefresh(row.tokenExpiresAt, now(), ahead)) return tokensOf(row);
    const tokens = await refresh(cipher.decrypt(row.refreshTokenEncrypted));
    await tx
      .update(platformInstalls)
      .set({
        accessTokenEncrypted: cipher.encrypt(tokens.accessToken),
        // a refresh that gives no new refresh token leaves the one there (Salla and Zid always give one)
        ...(tokens.refreshToken ? { refreshTokenEncrypted: cipher.encrypt(tokens.refreshToken) } : {}),
        ...(tokens.authorization ? { authTokenEncrypted: cipher.encrypt(tokens.authorization) } : {}),
        tokenExpiresAt: tokens.expiresAt,
        ...(tokens.scope ? { scope: tokens.scope } : {}),
        updatedAt: new Date(),
      })
      .where(eq(platformInstalls.id, row.id));
    return { accessToken: tokens.accessToken, authorization: tokens.authorization ?? tokensOf(row).authorization };
  });
}

/** The store's access token (a platform with one token: Salla), refreshed first when due. */
export async function storeAccessToken(
  db: Db,
  cipher: LeadCipher,
  platform: Platform,
  storeId: string,
  refresh: (refreshToken: string) => Promise<PlatformTokens>,
  now: () => number = Date.now,
): Promise<string> {
  return (await storeTokens(db, cipher, platform, storeId, refresh, { now })).accessToken;
}

/** The store's webhook secret (Zid), when it is installed and has one. */
export function webhookSecretOf(cipher: LeadCipher, install: PlatformInstallRow | null): string | null {
  if (install?.status !== 'installed' || !install.webhookSecretEncrypted) return null;
  return cipher.decrypt(install.webhookSecretEncrypted);
}

/** What setting up the store's webhooks and script on the platform came to: null when it all worked. */
export async function recordSetup(db: DbOrTx, installId: string, error: string | null) {
  await db
    .update(platformInstalls)
    .set({ setupAt: new Date(), setupError: error === null ? null : error.slice(0, 500) })
    .where(eq(platformInstalls.id, installId));
}

/**
 * Installed stores whose setup on the platform failed, or never finished though they installed
 * more than ten minutes ago: the periodic retry sends their setup again.
 */
export async function installsToSetUp(db: DbOrTx, platform: Platform, limit = 500): Promise<string[]> {
  const rows = await db
    .select({ storeId: platformInstalls.storeId })
    .from(platformInstalls)
    .where(
      and(
        eq(platformInstalls.platform, platform),
        eq(platformInstalls.status, 'installed'),
        sql`(${platformInstalls.setupError} is not null or (${platformInstalls.setupAt} is null and ${platformInstalls.installedAt} < now() - interval '10 minutes'))`,
      ),
    )
    .limit(limit);
  return rows.map((r) => r.storeId);
}

/** A platform's installed stores whose feed source reads this address (WooCommerce: the installations at one address). */
export async function installedAt(db: DbOrTx, platform: Platform, url: string): Promise<PlatformInstallRow[]> {
  const rows = await db
    .select({ install: platformInstalls })
    .from(platformInstalls)
    .innerJoin(feedSources, eq(feedSources.id, platformInstalls.feedSourceId))
    .where(
      and(eq(platformInstalls.platform, platform), eq(platformInstalls.status, 'installed'), eq(feedSources.url, url)),
    );
  return rows.map((r) => r.install);
}

/** The install of a merchant's platform feed source, when the source is one. */
export async function installOfSource(db: DbOrTx, sourceId: string) {
  const [row] = await db.select().from(platformInstalls).where(eq(platformInstalls.feedSourceId, sourceId));
  return row ?? null;
}

/** A store's public widget settings: its live publishable key, when it is installed. */
export async function storeWidget(db: DbOrTx, platform: Platform, storeId: string) {
  const row = await findInstall(db, platform, storeId);
  if (row?.status !== 'installed' || !row.publishableKey) return null;
  return { publishable_key: row.publishableKey };
}

/**
 * An order the platform reported (its `order.created` webhook), stored as a live purchase without
 * a session. The browser's purchase event for the same order id, when it comes, gives it its
 * session and so its attribution (services/events.ts); one that came first keeps the order, and
 * this one is then a duplicate. Answers whether it was new.
 */
export async function recordPlatformOrder(db: DbOrTx, merchantId: string, order: PlatformOrder): Promise<boolean> {
  const rows = await db
    .insert(purchases)
    .values({
      merchantId,
      sessionId: null,
      test: false,
      orderId: order.orderId,
      total: order.total,
      currency: order.currency,
      items: order.items,
      occurredAt: order.occurredAt,
    })
    .onConflictDoNothing()
    .returning({ id: purchases.id });
  return rows.length > 0;
}

/** A store's feed source's address and currency (a Shopify shop's currency is read at install). */
export async function sourceSettingsOf(
  db: DbOrTx,
  sourceId: string,
): Promise<{ url: string; currency: string | null }> {
  const [row] = await db
    .select({ url: feedSources.url, currency: feedSources.currency })
    .from(feedSources)
    .where(eq(feedSources.id, sourceId));
  return { url: row?.url ?? '', currency: row?.currency ?? null };
}

/** A platform's privacy request for a customer's orders: their purchases deleted. Answers how many. */
export async function redactOrders(db: DbOrTx, merchantId: string, orderIds: string[]): Promise<number> {
  let deleted = 0;
  // a thousand ids a statement: a long list makes no statement too large for the database
  for (let i = 0; i < orderIds.length; i += 1000) {
    const gone = await db
      .delete(purchases)
      .where(and(eq(purchases.merchantId, merchantId), inArray(purchases.orderId, orderIds.slice(i, i + 1000))))
      .returning({ id: purchases.id });
    deleted += gone.length;
  }
  return deleted;
}

/**
 * A platform's privacy request for a whole store, after its uninstall (Shopify's `shop/redact`):
 * what the service holds about its customers (leads, purchases) deleted. The merchant, its products
 * and its anonymous sessions stay, so a reinstall finds its shelf.
 */
export async function redactStore(db: Db, merchantId: string): Promise<{ leads: number; purchases: number }> {
  return db.transaction(async (tx) => {
    const l = await tx.delete(leads).where(eq(leads.merchantId, merchantId)).returning({ id: leads.id });
    const p = await tx.delete(purchases).where(eq(purchases.merchantId, merchantId)).returning({ id: purchases.id });
    return { leads: l.length, purchases: p.length };
  });
}
