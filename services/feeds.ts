import { and, asc, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import type { CatalogSnapshot } from '../catalog/store.ts';
import { type Db, type DbOrTx, rowsOf } from '../db/client.ts';
import { connectorFor } from '../feeds/index.ts';
import type { FeedKind, FeedProblem, FeedRow, FeedSource } from '../feeds/types.ts';
import { AppError, badRequest, notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { turnAt } from '../lib/turns.ts';
import type { ProductSize } from '../matching/listing.ts';
import { inProcessMatcher, type ListingMatcher } from '../matching/recognise.ts';
import type { LeadCipher } from '../privacy/lead-crypto.ts';
import type { NotePyramid } from '../schema/catalog.ts';
import { feedPulls, feedSources, merchantProducts, merchants } from '../schema/index.ts';
import { fetchFeedPage } from './feed-fetch.ts';
import { getMerchant } from './merchants.ts';
import { syncProducts } from './products.ts';

export type FeedSourceRow = typeof feedSources.$inferSelect;
export type FeedPullRow = typeof feedPulls.$inferSelect;

export const FEED_KINDS: readonly FeedKind[] = [
  'shopify',
  'shopify_admin',
  'shopify_graphql',
  'woocommerce',
  'salla',
  'zid',
  'google',
  'csv',
  'json',
];
/** One document, so its ETag covers the whole feed: a 304 means nothing changed (paged APIs are read in full). */
const SINGLE_DOCUMENT: ReadonlySet<FeedKind> = new Set(['google', 'csv', 'json']);

/** The bounds of one pull (docs/feeds.md). */
export const FEED_LIMITS = {
  /** pages one pull reads at most */
  maxPages: 200,
  /** bytes one pull reads at most, all pages together */
  maxFeedBytes: 200 * 1024 * 1024,
  /** bytes one page of a paged API may have */
  maxPageBytes: 20 * 1024 * 1024,
  /** bytes a feed in one document (google, csv, json) may have: a 20,000-product RSS feed is about 24 MB */
  maxDocumentBytes: 64 * 1024 * 1024,
  /** products one feed may hold (the product sync's own limit) */
  maxRows: 50_000,
  /** rejected rows a pull record keeps */
  keptRejections: 50,
  /** stored products a pull reads at a time to compare them with the feed */
  comparePage: 1000,
  minIntervalMinutes: 5,
  maxIntervalMinutes: 7 * 24 * 60,
} as const;

/** What fetching a page answers; failures are thrown as FeedFetchError. */
export type FetchedPage =
  | { status: 200; body: string; etag: string | null; lastModified: string | null; headers: Record<string, string> }
  | { status: 304 };

export type PageFetcher = (
  url: string,
  o: {
    headers: Record<string, string>;
    etag: string | null;
    lastModified: string | null;
    maxBytes: number;
    /** the page is asked for with this body (POST): a GraphQL query */
    body?: string;
  },
) => Promise<FetchedPage>;

/** Pages fetched through the SSRF guard and the caps (services/feed-fetch.ts), as a pull reads them. */
export function feedPageFetcher(allowPrivateHosts: readonly string[]): PageFetcher {
  return async (url, o) => {
    const r = await fetchFeedPage(url, {
      headers: o.headers,
      etag: o.etag,
      lastModified: o.lastModified,
      maxBytes: o.maxBytes,
      budgetBytes: o.maxBytes,
      allowPrivateHosts,
      body: o.body,
    });
    if (r.status === 'error') throw new FeedFetchError(r.code, r.message);
    if (r.status === 304) return { status: 304 };
    const headers: Record<string, string> = {};
    if (r.contentType) headers['content-type'] = r.contentType;
    if (r.link) headers.link = r.link;
    if (r.totalPages) headers['x-wp-totalpages'] = r.totalPages;
    return { status: 200, body: r.body, etag: r.etag, lastModified: r.lastModified, headers };
  };
}

/**
 * How a source is read: its secret (by default its own, stored encrypted: a Shopify Admin token; a
 * platform store's is its current access token, refreshed when due: plugins/app/platforms.ts), and
 * what the connector is told besides the stored settings (a Salla store's brands by id).
 */
export type SourceAccess = (s: FeedSourceRow) => Promise<{ secret: string | null; extras?: Partial<FeedSource> }>;

export const storedAccess =
  (cipher: LeadCipher): SourceAccess =>
  async (s) => ({ secret: s.secretEncrypted ? cipher.decrypt(s.secretEncrypted) : null });

/** A failed fetch or read, with a code a merchant can look up (docs/feeds.md). */
export class FeedFetchError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sourceView(s: FeedSourceRow, last: FeedPullRow | null) {
  return {
    id: s.id,
    merchant_id: s.merchantId,
    kind: s.kind as FeedKind,
    url: s.url,
    mapping: s.mapping ?? null,
    currency: s.currency,
    token_set: s.secretEncrypted !== null,
    interval_minutes: s.intervalMinutes,
    paused: s.paused,
    max_removal_share: s.maxRemovalShare,
    next_pull_at: s.nextPullAt.toISOString(),
    created_at: s.createdAt.toISOString(),
    last_pull: last ? pullView(last) : null,
  };
}

export function pullView(p: FeedPullRow) {
  return {
    id: p.id,
    status: p.status as 'applied' | 'not_modified' | 'held' | 'failed' | 'running',
    started_at: p.startedAt.toISOString(),
    finished_at: p.finishedAt?.toISOString() ?? null,
    pages: p.pages,
    bytes: p.bytes,
    received: p.received,
    added: p.added,
    changed: p.changed,
    removed: p.removed,
    rejected: p.rejected,
    rejections: (p.rejections as FeedProblem[]) ?? [],
    error: p.error,
    error_code: p.errorCode,
  };
}

export type SourceView = ReturnType<typeof sourceView>;

export interface SourceInput {
  kind: FeedKind;
  url: string;
  mapping?: Record<string, string> | null;
  currency?: string | null;
  token?: string | null;
  interval_minutes?: number;
  max_removal_share?: number;
  paused?: boolean;
}

function checkSourceUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw badRequest('invalid_feed', 'url is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('invalid_feed', 'url must be https://');
  if (url.username || url.password) throw badRequest('invalid_feed', 'url must hold no credentials: give a token');
  return url.href;
}

async function lastPulls(db: DbOrTx, sourceIds: string[]): Promise<Map<string, FeedPullRow>> {
  if (sourceIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([feedPulls.sourceId])
    .from(feedPulls)
    .where(inArray(feedPulls.sourceId, sourceIds))
    .orderBy(feedPulls.sourceId, desc(feedPulls.startedAt));
  return new Map(rows.map((r) => [r.sourceId, r]));
}

export async function createSource(db: DbOrTx, cipher: LeadCipher, merchantIdOrSlug: string, input: SourceInput) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  if (!FEED_KINDS.includes(input.kind)) throw badRequest('invalid_feed', `kind is one of ${FEED_KINDS.join(', ')}`);
  if ((input.kind === 'shopify_admin' || input.kind === 'shopify_graphql') && !input.token) {
    throw badRequest('invalid_feed', "a Shopify Admin API source needs the shop's access token");
  }
  if (input.kind === 'zid') {
    throw badRequest('invalid_feed', "a Zid store's source is made when the store installs the Zid app");
  }
  if (input.kind === 'salla' && !input.token) {
    throw badRequest('invalid_feed', "a Salla source needs the store's access token");
  }
  const url = checkSourceUrl(input.url);
  const [row] = await db
    .insert(feedSources)
    .values({
      merchantId: merchant.id,
      kind: input.kind,
      url,
      mapping: input.mapping ?? null,
      currency: input.currency?.toUpperCase() ?? null,
      secretEncrypted: input.token ? cipher.encrypt(input.token) : null,
      intervalMinutes: input.interval_minutes ?? 60,
      maxRemovalShare: input.max_removal_share ?? 0.2,
      paused: input.paused ?? false,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new AppError(409, 'feed_exists', 'The merchant already has a feed source with this URL');
  return sourceView(row, null);
}

export async function listSources(db: DbOrTx, merchantIdOrSlug: string) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const rows = await db
    .select()
    .from(feedSources)
    .where(eq(feedSources.merchantId, merchant.id))
    .orderBy(asc(feedSources.createdAt));
  const last = await lastPulls(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => sourceView(r, last.get(r.id) ?? null));
}

export async function getSource(db: DbOrTx, id: string): Promise<FeedSourceRow> {
  if (!isUuid(id)) throw notFound('feed_not_found', `No feed source with id "${id.slice(0, 80)}"`);
  // an erased merchant's sources are gone with it (services/erasure.ts)
  const [row] = await db
    .select()
    .from(feedSources)
    .where(
      and(
        eq(feedSources.id, id),
        sql`not exists (select 1 from ${merchants} m where m.id = ${feedSources.merchantId} and m.erased_at is not null)`,
      ),
    )
    .limit(1);
  if (!row) throw notFound('feed_not_found', `No feed source with id "${id.slice(0, 80)}"`);
  return row;
}

export async function sourceWithLastPull(db: DbOrTx, id: string) {
  const row = await getSource(db, id);
  return sourceView(row, (await lastPulls(db, [row.id])).get(row.id) ?? null);
}

/** Changes a source (pause, resume, interval, removal share, token); fields left out are kept. */
export async function updateSource(
  db: DbOrTx,
  cipher: LeadCipher,
  id: string,
  patch: Partial<
    Pick<SourceInput, 'paused' | 'interval_minutes' | 'max_removal_share' | 'token' | 'mapping' | 'currency'>
  >,
) {
  await getSource(db, id);
  const set: Partial<typeof feedSources.$inferInsert> = {};
  if (patch.paused !== undefined) set.paused = patch.paused;
  if (patch.interval_minutes !== undefined) set.intervalMinutes = patch.interval_minutes;
  if (patch.max_removal_share !== undefined) set.maxRemovalShare = patch.max_removal_share;
  if (patch.mapping !== undefined) set.mapping = patch.mapping;
  if (patch.currency !== undefined) set.currency = patch.currency?.toUpperCase() ?? null;
  if (patch.token !== undefined) set.secretEncrypted = patch.token ? cipher.encrypt(patch.token) : null;
  // resumed, or asked sooner: due at once
  if (patch.paused === false || patch.interval_minutes !== undefined) set.nextPullAt = new Date();
  if (Object.keys(set).length > 0) await db.update(feedSources).set(set).where(eq(feedSources.id, id));
  return sourceWithLastPull(db, id);
}

/** Removes a source and its pull records; the products it brought stay (unowned: no pull removes them). */
export async function deleteSource(db: Db, id: string): Promise<void> {
  await getSource(db, id);
  await db.transaction(async (tx) => {
    await tx.update(merchantProducts).set({ feedSourceId: null }).where(eq(merchantProducts.feedSourceId, id));
    await tx.delete(feedSources).where(eq(feedSources.id, id));
  });
}

export async function listPulls(db: DbOrTx, id: string, limit = 50) {
  await getSource(db, id);
  const rows = await db
    .select()
    .from(feedPulls)
    .where(eq(feedPulls.sourceId, id))
    .orderBy(desc(feedPulls.startedAt))
    .limit(limit);
  return rows.map(pullView);
}

function feedSourceOf(s: FeedSourceRow): FeedSource {
  return {
    kind: s.kind as FeedKind,
    url: s.url,
    ...(s.mapping ? { mapping: s.mapping } : {}),
    ...(s.currency ? { currency: s.currency } : {}),
  };
}

/** Reads a source's pages, one after the other, within the pull's bounds. */
async function readFeed(
  s: FeedSourceRow,
  access: SourceAccess,
  fetchPage: PageFetcher,
  o: { conditional: boolean; maxPages: number },
): Promise<
  | { notModified: true }
  | {
      notModified: false;
      rows: FeedRow[];
      rejected: FeedProblem[];
      pages: number;
      bytes: number;
      etag: string | null;
      lastModified: string | null;
    }
> {
  const { secret, extras } = await access(s);
  const source = { ...feedSourceOf(s), ...extras };
  const connector = connectorFor(source.kind);
  const headers = connector.headers?.(source, secret) ?? {};
  const rows: FeedRow[] = [];
  const rejected: FeedProblem[] = [];
  const seen = new Set<string>();
  let url: string | null = connector.firstUrl(source);
  let pages = 0;
  let bytes = 0;
  let etag: string | null = null;
  let lastModified: string | null = null;
  /** a page whose prices depend on when it is read: its validators are not kept */
  let timed = false;
  const conditional = o.conditional && SINGLE_DOCUMENT.has(source.kind);
  while (url && pages < o.maxPages) {
    const left = FEED_LIMITS.maxFeedBytes - bytes;
    if (left <= 0)
      throw new FeedFetchError('feed_too_large', `the feed is larger than ${FEED_LIMITS.maxFeedBytes} bytes`);
    const page = await fetchPage(url, {
      headers,
      etag: conditional && pages === 0 ? s.etag : null,
      lastModified: conditional && pages === 0 ? s.lastModified : null,
      maxBytes: Math.min(
        SINGLE_DOCUMENT.has(source.kind) ? FEED_LIMITS.maxDocumentBytes : FEED_LIMITS.maxPageBytes,
        left,
      ),
      body: connector.body?.(url, source),
    });
    if (page.status === 304) return { notModified: true };
    if (pages === 0) {
      etag = page.etag;
      lastModified = page.lastModified;
    }
    pages++;
    bytes += Buffer.byteLength(page.body);
    const read = connector.parse(page.body, url, source, page.headers);
    if (read.failed && pages > 1) {
      throw new FeedFetchError(
        'feed_unreadable',
        `Page ${pages} could not be read (${read.rejected[0]?.reason ?? 'unknown format'}): nothing of this pull was applied`,
      );
    }
    for (const row of read.rows) {
      // a row a page repeats (a shop's paging shifting under new arrivals) is read once
      if (seen.has(row.merchant_product_id)) continue;
      seen.add(row.merchant_product_id);
      if (rows.length >= FEED_LIMITS.maxRows) {
        throw new FeedFetchError('feed_too_large', `the feed holds more than ${FEED_LIMITS.maxRows} products`);
      }
      rows.push(row);
    }
    rejected.push(...read.rejected);
    if (read.timed) timed = true;
    // a next page that is this one again would loop for ever
    url = read.next && read.next !== url ? read.next : null;
  }
  if (url) throw new FeedFetchError('feed_too_many_pages', `the feed has more than ${o.maxPages} pages`);
  // nothing readable at all: a broken feed (not JSON, not XML, a login page), not an empty shop
  if (rows.length === 0 && rejected.length > 0) {
    throw new FeedFetchError('feed_unreadable', `No product could be read: ${rejected[0]?.reason ?? 'unknown format'}`);
  }
  // a sale with dates begins or ends without the document changing: such a feed is read in full each time
  return {
    notModified: false,
    rows,
    rejected,
    pages,
    bytes,
    etag: timed ? null : etag,
    lastModified: timed ? null : lastModified,
  };
}

/** A row's fields that a pull compares to tell a changed product from an unchanged one. */
const fingerprint = (r: {
  name: string;
  house: string;
  price: number | null;
  sale_price: number | null;
  currency: string;
  available: boolean;
  image_url: string | null;
  product_url: string | null;
  description: string | null;
  sizes: ProductSize[] | null;
  accords: string[] | null;
  notes: NotePyramid | null;
  barcode: string | null;
}) =>
  JSON.stringify([
    r.name,
    r.house,
    r.price,
    r.sale_price,
    r.currency,
    r.available,
    r.image_url,
    r.product_url,
    r.description,
    // field by field: jsonb stores an object's keys in its own order
    (r.sizes ?? []).map((z) => [z.label, z.ml, z.price, z.sale_price, z.available, z.barcode ?? null]),
    r.accords ?? [],
    [r.notes?.top ?? [], r.notes?.heart ?? [], r.notes?.base ?? []],
    r.barcode,
  ]);

/** The merchant's stored products as a pull compares them: each one's fingerprint and source, read a page at a time. */
async function storedPrints(db: Db, merchantId: string) {
  const before = new Map<string, { print: string; source: string | null }>();
  for (let after = ''; ; ) {
    const page = await db
      .select({
        id: merchantProducts.merchantProductId,
        name: merchantProducts.name,
        house: merchantProducts.house,
        price: merchantProducts.price,
        sale_price: merchantProducts.salePrice,
        currency: merchantProducts.currency,
        available: merchantProducts.available,
        image_url: merchantProducts.imageUrl,
        product_url: merchantProducts.productUrl,
        description: merchantProducts.description,
        sizes: merchantProducts.sizes,
        accords: merchantProducts.accords,
        notes: merchantProducts.notes,
        barcode: merchantProducts.barcode,
        source: merchantProducts.feedSourceId,
      })
      .from(merchantProducts)
      .where(and(eq(merchantProducts.merchantId, merchantId), gt(merchantProducts.merchantProductId, after)))
      .orderBy(asc(merchantProducts.merchantProductId))
      .limit(FEED_LIMITS.comparePage);
    for (const e of page) before.set(e.id, { print: fingerprint(e), source: e.source });
    const last = page.at(-1);
    if (!last || page.length < FEED_LIMITS.comparePage) return before;
    after = last.id;
  }
}

/**
 * Pulls a source now and applies it (docs/feeds.md): every page read first, then stored in one
 * transaction, so a pull that fails at any page changes nothing and the last good products stay; a
 * pull that would remove more than the source's share of its products is held, unless confirmed.
 * Every pull is recorded. The rows are recognised by `match`: in the service, the matcher's worker
 * thread a slice at a time (plugins/app/inline-matcher.ts), never the event loop that answers
 * every shop; in process when none is given (the tests).
 */
export async function pullSource(
  db: Db,
  snapshot: CatalogSnapshot,
  cipher: LeadCipher,
  sourceId: string,
  fetchPage: PageFetcher,
  o: { confirm?: boolean; force?: boolean; access?: SourceAccess; match?: ListingMatcher } = {},
) {
  const s = await getSource(db, sourceId);
  const [pull] = await db
    .insert(feedPulls)
    .values({ sourceId: s.id, merchantId: s.merchantId, status: 'running' })
    .returning();
  if (!pull) throw new AppError(500, 'internal_error', 'pull insert returned nothing');
  const finish = async (set: Partial<typeof feedPulls.$inferInsert>) => {
    const [row] = await db
      .update(feedPulls)
      .set({ ...set, finishedAt: new Date() })
      .where(eq(feedPulls.id, pull.id))
      .returning();
    await db
      .update(feedSources)
      .set({ nextPullAt: sql`now() + make_interval(mins => ${s.intervalMinutes})`, claimedUntil: null })
      .where(eq(feedSources.id, s.id));
    return { pull: pullView(row as FeedPullRow), merchantId: s.merchantId };
  };
  try {
    const read = await readFeed(s, o.access ?? storedAccess(cipher), fetchPage, {
      conditional: !o.force,
      maxPages: FEED_LIMITS.maxPages,
    });
    if (read.notModified) return await finish({ status: 'not_modified', pages: 1 });
    const before = await storedPrints(db, s.merchantId);
    // the rows as the product sync will store them (validated, so the comparison is like for like)
    const { recognised, problems } = await (o.match ?? inProcessMatcher(snapshot)).listings(s.merchantId, read.rows);
    const incoming = new Set(recognised.map((r) => r.listing.merchantProductId));
    let added = 0;
    let changed = 0;
    /** what a pull writes: products new to the shop or changed since, not the unchanged rest */
    const writeIds = new Set<string>();
    for (const [i, r] of recognised.entries()) {
      await turnAt(i);
      const l = r.listing;
      const was = before.get(l.merchantProductId);
      const now = fingerprint({
        name: l.name,
        house: l.house,
        price: l.price,
        sale_price: l.salePrice,
        currency: l.currency,
        available: l.available,
        image_url: l.imageUrl,
        product_url: l.productUrl,
        description: l.description,
        sizes: l.sizes,
        accords: l.accords,
        notes: l.notes,
        barcode: l.barcode,
      });
      if (!was) added++;
      else if (was.print !== now) changed++;
      else if (was.source === s.id) continue;
      // unchanged but brought by an upload: written so that this source owns it from now on
      writeIds.add(l.merchantProductId);
    }
    const own = [...before].filter(([, e]) => e.source === s.id).map(([id]) => id);
    const gone = own.filter((id) => !incoming.has(id));
    const removing = gone.length;
    const rejections = [
      ...read.rejected,
      ...problems.map((p) => ({ ...(p.merchantProductId ? { id: p.merchantProductId } : {}), reason: p.message })),
    ];
    const counts = {
      pages: read.pages,
      bytes: read.bytes,
      received: read.rows.length + read.rejected.length,
      rejected: rejections.length,
      rejections: rejections.slice(0, FEED_LIMITS.keptRejections),
    };
    // an empty feed, or one that drops a large share at once, is more likely a broken feed than a shop
    // that sold out: held until someone confirms it
    const confirmed = o.confirm === true || s.confirmRemoval;
    if (!confirmed && removing > 0 && (recognised.length === 0 || removing > s.maxRemovalShare * own.length)) {
      return await finish({
        status: 'held',
        ...counts,
        added,
        changed,
        removed: removing,
        errorCode: 'feed_removal_held',
        error: `This pull would remove ${removing} of the feed's ${own.length} products (more than ${Math.round(
          s.maxRemovalShare * 100,
        )}%): nothing was changed. Confirm it to apply it.`,
      });
    }
    const validators = { etag: read.etag, lastModified: read.lastModified, confirmRemoval: false };
    if (writeIds.size === 0 && removing === 0) {
      // nothing to write: the shop's products, their matches and the merchant's caches stay as they are
      await db.update(feedSources).set(validators).where(eq(feedSources.id, s.id));
      return await finish({ status: 'applied', ...counts, added, changed, removed: 0 });
    }
    const summary = await syncProducts(
      db,
      snapshot,
      s.merchantId,
      read.rows.filter((r) => writeIds.has(r.merchant_product_id)),
      {
        sourceId: s.id,
        recognised: { recognised: recognised.filter((r) => writeIds.has(r.listing.merchantProductId)), problems: [] },
        remove: gone,
      },
    );
    await db.update(feedSources).set(validators).where(eq(feedSources.id, s.id));
    return await finish({ status: 'applied', ...counts, added, changed, removed: summary.removed });
  } catch (err) {
    const code = err instanceof FeedFetchError ? err.code : err instanceof AppError ? err.code : 'feed_failed';
    const message = err instanceof FeedFetchError || err instanceof AppError ? err.message : 'the pull failed';
    return await finish({ status: 'failed', errorCode: code, error: message.slice(0, 500) });
  }
}

/** Confirms a held pull: the next pull (run now) may remove what the held one would have. */
export async function confirmRemoval(db: DbOrTx, sourceId: string): Promise<void> {
  await getSource(db, sourceId);
  await db
    .update(feedSources)
    .set({ confirmRemoval: true, nextPullAt: new Date() })
    .where(eq(feedSources.id, sourceId));
}

/**
 * "Fetch the first page and show how it would be read": the first page's rows as the feed gives
 * them, each recognised against our catalog, and what was refused. Nothing is stored.
 */
export async function testSource(
  db: DbOrTx,
  snapshot: CatalogSnapshot,
  cipher: LeadCipher,
  sourceId: string,
  fetchPage: PageFetcher,
  access: SourceAccess = storedAccess(cipher),
  /** what recognises the rows (the service's matcher worker); in process when none is given */
  match: ListingMatcher = inProcessMatcher(snapshot),
) {
  const s = await getSource(db, sourceId);
  try {
    const page = await readFirstPage(s, access, fetchPage);
    const { recognised, problems } = await match.listings(s.merchantId, page.rows.slice(0, 50));
    return {
      ok: true as const,
      rows: page.rows.length,
      rejected: page.rejected.slice(0, FEED_LIMITS.keptRejections),
      products: recognised.map((r) => ({
        merchant_product_id: r.listing.merchantProductId,
        name: r.listing.name,
        house: r.listing.house,
        price: r.listing.price,
        sale_price: r.listing.salePrice,
        currency: r.listing.currency,
        available: r.listing.available,
        sizes: r.listing.sizes,
        status: r.status,
        quality: r.quality,
        sillage_perfume_id: r.perfume?.id ?? null,
      })),
      problems: problems.map((p) => ({ merchant_product_id: p.merchantProductId ?? null, reason: p.message })),
    };
  } catch (err) {
    if (err instanceof FeedFetchError) return { ok: false as const, error: err.message, code: err.code };
    throw err;
  }
}

async function readFirstPage(s: FeedSourceRow, access: SourceAccess, fetchPage: PageFetcher) {
  const { secret, extras } = await access(s);
  const source = { ...feedSourceOf(s), ...extras };
  const connector = connectorFor(source.kind);
  const url = connector.firstUrl(source);
  const page = await fetchPage(url, {
    headers: connector.headers?.(source, secret) ?? {},
    etag: null,
    lastModified: null,
    maxBytes: FEED_LIMITS.maxPageBytes,
    body: connector.body?.(url, source),
  });
  if (page.status === 304) return { rows: [], rejected: [] };
  const read = connector.parse(page.body, url, source, page.headers);
  return { rows: read.rows, rejected: read.rejected };
}

/**
 * Claims one source for a pull (an operator's "pull now", or a scheduled one while still due) for
 * `holdMs`: false when a pull of it is under way elsewhere. Two instances never pull one feed at
 * once, and a claim of an instance that died lapses.
 */
export async function claimSource(
  db: DbOrTx,
  sourceId: string,
  holdMs: number,
  /** only while it is due and not paused (a scheduled pull; "pull now" takes it whenever it is free) */
  o: { due?: boolean } = {},
): Promise<boolean> {
  await getSource(db, sourceId);
  const due = o.due ? sql`and not paused and next_pull_at <= now()` : sql``;
  const rows = await db.execute(sql`
    update ${feedSources} set claimed_until = now() + make_interval(secs => ${holdMs / 1000})
    where id = ${sourceId} and (claimed_until is null or claimed_until < now()) ${due}
    returning id`);
  return rowsOf<{ id: string }>(rows).length > 0;
}

/** The sources due now and not being pulled, longest waiting first: what the dispatch sends to be pulled. */
export async function dueSourceIds(db: DbOrTx, limit = 1000): Promise<string[]> {
  const rows = await db.execute(sql`
    select id from ${feedSources}
    where not paused and next_pull_at <= now() and (claimed_until is null or claimed_until < now())
    order by next_pull_at
    limit ${limit}`);
  return rowsOf<{ id: string }>(rows).map((r) => r.id);
}
