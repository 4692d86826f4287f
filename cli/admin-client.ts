import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { KEY_INVALIDATION_CHANNEL } from '../auth/key-store.ts';
import type { Config } from '../config.ts';
import { createDatabase, type Database } from '../db/client.ts';
import { AppError } from '../lib/errors.ts';
import { createLeadCipher } from '../privacy/lead-crypto.ts';
import { resolveLeadKey } from '../privacy/lead-key.ts';
import type { IdentityStatus } from '../schema/learning.ts';
import { merchantAnalytics } from '../services/analytics.ts';
import { loadSnapshot } from '../services/catalog.ts';
import { type ConsoleRole, consoleUserView, createConsoleUser } from '../services/console-users.ts';
import { eraseMerchantRows, startErasure } from '../services/erasure.ts';
import {
  claimSource,
  confirmRemoval,
  createSource,
  deleteSource,
  feedPageFetcher,
  listSources,
  pullSource,
  type pullView,
  type SourceInput,
  type SourceView,
  testSource,
  updateSource,
} from '../services/feeds.ts';
import { type IdentityReview, identityView, listIdentities, reviewIdentity } from '../services/identities.ts';
import { createKey, listKeys, revokeKey, updateKeyOrigins } from '../services/keys.ts';
import { eraseLeads, exportLeads, type LeadExport, leadsCsv, purgeExpiredLeads } from '../services/leads.ts';
import { learnMerchant, learnReviewed, learntBarcodeView, listLearntBarcodes } from '../services/learning.ts';
import { createMerchant, listMerchants, merchantView, updateMerchant } from '../services/merchants.ts';
import {
  answerProduct,
  listProducts,
  pinMatch,
  productView,
  type RematchSummary,
  rematchAllMerchants,
  rematchProducts,
  type SyncSummary,
  syncProducts,
  unpinMatch,
} from '../services/products.ts';
import { listProposals, type ProposalStatus, proposalView, reviewProposal } from '../services/proposals.ts';
import { reattributeMerchant } from '../services/purchase-attribution.ts';

type MerchantView = ReturnType<typeof merchantView>;
type LearntBarcodeView = ReturnType<typeof learntBarcodeView>;
type ProposalView = ReturnType<typeof proposalView>;
type IdentityView = ReturnType<typeof identityView>;
type AnswerInput = { notes?: string[]; accords?: string[]; inspired_by?: string | null };
type KeyView = Awaited<ReturnType<typeof listKeys>>[number];
type CreatedKey = Awaited<ReturnType<typeof createKey>>;
type ProductView = ReturnType<typeof productView>;
type Analytics = Awaited<ReturnType<typeof merchantAnalytics>>;
type PullView = ReturnType<typeof pullView>;
type ProductStatus = 'matched' | 'partial' | 'unmatched' | 'pending';

/**
 * The admin operations the CLI offers, each answered either by a running
 * server's admin API (httpClient) or by the services on the database
 * (directClient): the commands are written once, against this.
 */
export interface AdminClient {
  createMerchant(input: { name: string; slug: string }): Promise<MerchantView>;
  listMerchants(): Promise<MerchantView[]>;
  /** whether its shelf teaches every shop, and whether it learns from theirs (docs/learning.md) */
  updateMerchant(merchant: string, change: { teaches?: boolean; learns?: boolean }): Promise<MerchantView>;
  /**
   * erases a merchant (`confirm`: its slug; docs/admin.md): through a server, `erasing` (its job
   * deletes the rows); on the database, `erased` (its rows deleted and what it taught learnt again
   * before it answers)
   */
  eraseMerchant(merchant: string, confirm: string): Promise<{ merchant_id: string; status: 'erasing' | 'erased' }>;
  /** the barcodes the shelves taught: conflicts, or keys */
  listLearntBarcodes(query: {
    status: 'conflict' | 'key';
    limit: number;
  }): Promise<{ barcodes: LearntBarcodeView[]; total: number }>;
  /** what merchants' own answers propose about perfumes, for review */
  listProposals(query: {
    status: ProposalStatus;
    limit: number;
  }): Promise<{ proposals: ProposalView[]; total: number }>;
  reviewProposal(
    perfumeId: string,
    review: { decision: 'approve' | 'reject'; items?: string[]; why: string },
  ): Promise<ProposalView>;
  /** new perfumes the shelves propose (docs/learning.md "New identities") */
  listIdentities(query: { status: IdentityStatus | 'all'; limit: number }): Promise<{
    identities: IdentityView[];
    total: number;
  }>;
  /** approves (a catalog record is made; every shelf matched again) or rejects a proposed perfume */
  reviewIdentity(id: string, review: IdentityReview): Promise<IdentityView>;
  createKey(merchant: string, input: { mode: 'test' | 'live'; allowed_origins: string[] }): Promise<CreatedKey>;
  listKeys(merchant: string): Promise<KeyView[]>;
  revokeKey(keyId: string): Promise<KeyView>;
  updateKeyOrigins(keyId: string, origins: string[]): Promise<KeyView>;
  syncProducts(merchant: string, products: unknown[], replace: boolean): Promise<SyncSummary>;
  listProducts(
    merchant: string,
    query: { status?: ProductStatus; limit: number },
  ): Promise<{ products: ProductView[]; total: number }>;
  rematchProducts(merchant: string): Promise<RematchSummary>;
  pinProduct(merchant: string, merchantProductId: string, perfumeId: string): Promise<ProductView>;
  unpinProduct(merchant: string, merchantProductId: string): Promise<ProductView>;
  /** the merchant's own answer for a product (none clears it): docs/learning.md */
  answerProduct(merchant: string, merchantProductId: string, answer: AnswerInput): Promise<ProductView>;
  analytics(merchant: string, period: { from: Date; to: Date; test: boolean }): Promise<Analytics>;
  reattribute(merchant: string): Promise<{ slug: string; attribution_window_days: number }>;
  exportLeads(merchant: string): Promise<LeadExport[]>;
  exportLeadsCsv(merchant: string): Promise<string>;
  eraseLeads(merchant: string, who: { email?: string; phone?: string }): Promise<number>;
  purgeLeads(): Promise<{ purged: number; retention_days: number }>;
  createConsoleUser(input: {
    email: string;
    password: string;
    role: ConsoleRole;
    merchant?: string;
  }): Promise<ReturnType<typeof consoleUserView>>;
  createFeed(merchant: string, input: SourceInput): Promise<SourceView>;
  listFeeds(merchant: string): Promise<SourceView[]>;
  updateFeed(id: string, patch: { paused?: boolean; interval_minutes?: number }): Promise<SourceView>;
  removeFeed(id: string): Promise<void>;
  testFeed(id: string): Promise<Awaited<ReturnType<typeof testSource>>>;
  pullFeed(id: string, o: { confirm: boolean; force: boolean }): Promise<PullView>;
  /** The database itself, for what the admin API does not offer (migrate, catalog:import). */
  database(): Database;
  close(): Promise<void>;
}

/** Commands that work on the database only: the admin API has no equivalent. */
export const DATABASE_ONLY_COMMANDS = new Set(['migrate', 'catalog:import']);

/** The lead key as the service uses it (configured, or the embedded database's local one). */
function leadCipherFor(config: Config) {
  const key = resolveLeadKey(config, false);
  if (!key) throw new AppError(400, 'usage', 'no lead key: set LEAD_ENCRYPTION_KEY (the one the service uses)');
  return createLeadCipher(key);
}

/** Tells running instances to drop a changed key from their caches. */
async function broadcastKeyChange(config: Config, hash: string) {
  if (!config.redisUrl) return;
  const redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await redis.connect();
    await redis.publish(KEY_INVALIDATION_CHANNEL, hash);
  } catch {
    process.stderr.write('warning: could not reach Redis; running instances notice within a second anyway\n');
  } finally {
    redis.disconnect();
  }
}

/** The operations on the database, through the services; `owned`: closed with the client. */
export function directClient(config: Config, database: Database, owned = false): AdminClient {
  const db = database.db;
  const changedKey = async ({ key, hash }: { key: KeyView; hash: string }) => {
    await broadcastKeyChange(config, hash);
    return key;
  };
  return {
    createMerchant: async (input) => merchantView(await createMerchant(db, input)),
    listMerchants: async () => (await listMerchants(db)).map(merchantView),
    // with no server running, what a change teaches is learnt at once (the service learns in the background)
    // with no server running, the erasure is finished at once: its rows deleted (the same bounded
    // statements as the job's), then what it taught learnt again
    eraseMerchant: async (merchant, confirm) => {
      const started = await startErasure(db, merchant, confirm);
      for (const hash of started.keyHashes) await broadcastKeyChange(config, hash);
      const id = started.merchant.id;
      // one run deletes every row, ERASE_BATCH_ROWS a statement (nothing stops it halfway here)
      const erased = await eraseMerchantRows(db, id);
      if (!erased.done)
        throw new AppError(500, 'internal_error', `merchant ${id} was not erased; run the command again`);
      await learnMerchant(db, await loadSnapshot(db), id);
      return { merchant_id: id, status: 'erased' as const };
    },
    updateMerchant: async (merchant, change) => {
      const m = await updateMerchant(db, merchant, change);
      await learnMerchant(db, await loadSnapshot(db), m.id);
      return merchantView(m);
    },
    listLearntBarcodes: async (query) => {
      const { rows, total } = await listLearntBarcodes(db, { ...query, offset: 0 });
      const snapshot = await loadSnapshot(db);
      return { barcodes: rows.map((r) => learntBarcodeView(r, snapshot)), total };
    },
    listProposals: async (query) => {
      const { rows, total } = await listProposals(db, { ...query, offset: 0 });
      const snapshot = await loadSnapshot(db);
      return { proposals: rows.map((r) => proposalView(r, snapshot)), total };
    },
    // with no server running, a review reaches the perfume's products at once
    reviewProposal: async (perfumeId, review) => {
      const row = await reviewProposal(db, perfumeId, review);
      const snapshot = await loadSnapshot(db);
      await learnReviewed(db, snapshot, [row.perfumeId]);
      return proposalView(row, snapshot);
    },
    listIdentities: async (query) => {
      const { rows, total } = await listIdentities(db, { ...query, offset: 0 });
      return { identities: rows.map(identityView), total };
    },
    // with no server running, every shelf is matched again against the new catalog before it answers
    reviewIdentity: async (id, review) => {
      const { row, catalogVersion } = await reviewIdentity(db, await loadSnapshot(db), id, review);
      if (catalogVersion) await rematchAllMerchants(db, await loadSnapshot(db));
      return identityView(row);
    },
    createKey: (merchant, input) =>
      createKey(db, merchant, { mode: input.mode, allowedOrigins: input.allowed_origins }),
    listKeys: (merchant) => listKeys(db, merchant),
    revokeKey: async (keyId) => changedKey(await revokeKey(db, keyId)),
    updateKeyOrigins: async (keyId, origins) => changedKey(await updateKeyOrigins(db, keyId, origins)),
    syncProducts: async (merchant, products, replace) => {
      const snapshot = await loadSnapshot(db);
      const summary = await syncProducts(db, snapshot, merchant, products, { replace });
      await learnMerchant(db, snapshot, summary.merchant_id);
      return summary;
    },
    listProducts: async (merchant, query) => {
      const { rows, total } = await listProducts(db, merchant, { ...query, offset: 0 });
      const snapshot = await loadSnapshot(db);
      return { products: rows.map((r) => productView(r, snapshot)), total };
    },
    rematchProducts: async (merchant) => rematchProducts(db, await loadSnapshot(db), merchant),
    pinProduct: async (merchant, productId, perfumeId) => {
      const snapshot = await loadSnapshot(db);
      return productView(await pinMatch(db, snapshot, merchant, productId, perfumeId), snapshot);
    },
    unpinProduct: async (merchant, productId) => {
      const snapshot = await loadSnapshot(db);
      return productView(await unpinMatch(db, snapshot, merchant, productId), snapshot);
    },
    answerProduct: async (merchant, productId, answer) => {
      const snapshot = await loadSnapshot(db);
      const row = await answerProduct(db, snapshot, merchant, productId, answer);
      await learnMerchant(db, snapshot, row.merchantId);
      return productView(row, snapshot);
    },
    analytics: (merchant, period) =>
      merchantAnalytics(db, merchant, { ...period, attributionWindowDays: config.attributionWindowDays }),
    reattribute: (merchant) => reattributeMerchant(db, merchant, config.attributionWindowDays),
    exportLeads: (merchant) => exportLeads(db, leadCipherFor(config), merchant),
    exportLeadsCsv: async (merchant) => leadsCsv(await exportLeads(db, leadCipherFor(config), merchant)),
    eraseLeads: (merchant, who) => eraseLeads(db, leadCipherFor(config), merchant, who),
    purgeLeads: async () => ({
      purged: await purgeExpiredLeads(db, config.leadRetentionDays),
      retention_days: config.leadRetentionDays,
    }),
    createConsoleUser: async (input) => consoleUserView(await createConsoleUser(db, input)),
    createFeed: (merchant, input) => createSource(db, leadCipherFor(config), merchant, input),
    listFeeds: (merchant) => listSources(db, merchant),
    updateFeed: (id, patch) => updateSource(db, leadCipherFor(config), id, patch),
    removeFeed: (id) => deleteSource(db, id),
    testFeed: async (id) =>
      testSource(
        db,
        await loadSnapshot(db),
        leadCipherFor(config),
        id,
        feedPageFetcher(config.feeds.allowPrivateHosts),
      ),
    pullFeed: async (id, o) => {
      if (o.confirm) await confirmRemoval(db, id);
      if (!(await claimSource(db, id, 15 * 60_000))) {
        throw new AppError(409, 'feed_busy', 'A pull of this feed is under way: its record shows when it ends');
      }
      const { pull } = await pullSource(
        db,
        await loadSnapshot(db),
        leadCipherFor(config),
        id,
        feedPageFetcher(config.feeds.allowPrivateHosts),
        {
          force: o.force,
        },
      );
      return pull;
    },
    database: () => database,
    close: async () => {
      if (owned) await database.close();
    },
  };
}

/** A failure to reach the server, or an answer that is not the admin API's. */
export class ServerError extends Error {
  override name = 'ServerError';
}

/** The operations through the admin API of the server at `baseUrl` (its /api/admin/*). */
export function httpClient(baseUrl: string, token: string): AdminClient {
  const merchantPath = (merchant: string) => `/merchants/${encodeURIComponent(merchant)}`;
  async function call<T>(
    method: string,
    path: string,
    opts: { query?: Record<string, string | undefined>; body?: unknown; text?: boolean } = {},
  ): Promise<T> {
    const url = new URL(`${baseUrl}/api/admin${path}`);
    for (const [name, value] of Object.entries(opts.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      });
      text = await res.text();
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      const change = method === 'GET' ? '' : '; the change may or may not have been made: read it back before retrying';
      throw new ServerError(`could not reach the server at ${baseUrl} (${why})${change}`);
    }
    if (res.ok) {
      if (opts.text) return text as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ServerError(`the server at ${baseUrl} answered ${method} ${url.pathname} with something not JSON`);
      }
    }
    let answer: { error?: unknown; code?: unknown } | null = null;
    try {
      answer = JSON.parse(text);
    } catch {
      // not the service's error shape (a proxy's page): said by status below
    }
    if (answer && typeof answer.error === 'string' && typeof answer.code === 'string') {
      throw new AppError(res.status, answer.code, answer.error);
    }
    throw new ServerError(
      `the server at ${baseUrl} answered ${res.status} ${res.statusText} to ${method} ${url.pathname}`,
    );
  }

  return {
    createMerchant: (input) => call('POST', '/merchants', { body: input }),
    listMerchants: async () => (await call<{ merchants: MerchantView[] }>('GET', '/merchants')).merchants,
    updateMerchant: (merchant, change) => call('PATCH', merchantPath(merchant), { body: change }),
    eraseMerchant: (merchant, confirm) => call('DELETE', merchantPath(merchant), { body: { confirm } }),
    listLearntBarcodes: (query) =>
      call('GET', '/learning/barcodes', { query: { status: query.status, limit: String(query.limit) } }),
    listProposals: (query) =>
      call('GET', '/learning/proposals', { query: { status: query.status, limit: String(query.limit) } }),
    reviewProposal: (perfumeId, review) =>
      call('POST', `/learning/proposals/${encodeURIComponent(perfumeId)}/review`, { body: review }),
    listIdentities: (query) =>
      call('GET', '/learning/identities', { query: { status: query.status, limit: String(query.limit) } }),
    reviewIdentity: (id, review) =>
      call('POST', `/learning/identities/${encodeURIComponent(id)}/review`, { body: review }),
    createKey: (merchant, input) => call('POST', `${merchantPath(merchant)}/keys`, { body: input }),
    listKeys: async (merchant) => (await call<{ keys: KeyView[] }>('GET', `${merchantPath(merchant)}/keys`)).keys,
    revokeKey: (keyId) => call('POST', `/keys/${encodeURIComponent(keyId)}/revoke`),
    updateKeyOrigins: (keyId, origins) =>
      call('PATCH', `/keys/${encodeURIComponent(keyId)}`, { body: { allowed_origins: origins } }),
    syncProducts: (merchant, products, replace) =>
      call('PUT', `${merchantPath(merchant)}/products`, { body: { products, replace } }),
    listProducts: (merchant, query) =>
      call('GET', `${merchantPath(merchant)}/products`, {
        query: { status: query.status, limit: String(query.limit) },
      }),
    rematchProducts: (merchant) => call('POST', `${merchantPath(merchant)}/products/rematch`),
    pinProduct: (merchant, productId, perfumeId) =>
      call('PUT', `${merchantPath(merchant)}/products/${encodeURIComponent(productId)}/match`, {
        body: { sillage_perfume_id: perfumeId },
      }),
    unpinProduct: (merchant, productId) =>
      call('DELETE', `${merchantPath(merchant)}/products/${encodeURIComponent(productId)}/match`),
    answerProduct: (merchant, productId, answer) =>
      call('PUT', `${merchantPath(merchant)}/products/${encodeURIComponent(productId)}/answer`, { body: answer }),
    analytics: (merchant, period) =>
      call('GET', `${merchantPath(merchant)}/analytics`, {
        query: {
          from: period.from.toISOString(),
          to: period.to.toISOString(),
          traffic: period.test ? 'test' : 'live',
        },
      }),
    reattribute: (merchant) => call('POST', `${merchantPath(merchant)}/analytics/reattribute`),
    exportLeads: async (merchant) =>
      (await call<{ leads: LeadExport[] }>('GET', `${merchantPath(merchant)}/leads`)).leads,
    exportLeadsCsv: (merchant) =>
      call('GET', `${merchantPath(merchant)}/leads`, { query: { format: 'csv' }, text: true }),
    eraseLeads: async (merchant, who) =>
      (await call<{ deleted: number }>('DELETE', `${merchantPath(merchant)}/leads`, { query: who })).deleted,
    purgeLeads: () => call('POST', '/leads/purge'),
    createConsoleUser: (input) => call('POST', '/console-users', { body: input }),
    createFeed: (merchant, input) => call('POST', `${merchantPath(merchant)}/feeds`, { body: input }),
    listFeeds: async (merchant) =>
      (await call<{ feeds: SourceView[] }>('GET', `${merchantPath(merchant)}/feeds`)).feeds,
    updateFeed: (id, patch) => call('PATCH', `/feeds/${encodeURIComponent(id)}`, { body: patch }),
    removeFeed: async (id) => {
      await call('DELETE', `/feeds/${encodeURIComponent(id)}`);
    },
    testFeed: (id) => call('POST', `/feeds/${encodeURIComponent(id)}/test`),
    pullFeed: (id, o) => call('POST', `/feeds/${encodeURIComponent(id)}/pull`, { body: o }),
    database: () => {
      throw new ServerError('this command works on the database, not through the admin API: use --direct');
    },
    close: async () => {},
  };
}

/**
 * Whether our service answers at `baseUrl`: /healthz says `{"status":"ok"}` and
 * echoes the request id it was sent (any other HTTP server does not both).
 */
export async function serviceAnswers(baseUrl: string, timeoutMs = 500): Promise<boolean> {
  const id = `admin-cli-${randomUUID()}`;
  try {
    const res = await fetch(`${baseUrl}/healthz`, {
      headers: { 'x-request-id': id },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200 || res.headers.get('x-request-id') !== id) return false;
    const body = (await res.json()) as unknown;
    return JSON.stringify(body) === '{"status":"ok"}';
  } catch {
    return false;
  }
}

export interface ConnectOptions {
  command: string;
  /** --server: the server to talk to (ADMIN_URL otherwise) */
  server?: string;
  /** --direct: the database, even with a server running */
  direct: boolean;
  /** a database the caller holds open: used when no server is named */
  database?: Database;
  /** one line on stderr about the path taken, when it is worth saying */
  note?: (line: string) => void;
}

export type Route =
  | { to: 'database'; note?: string }
  | { to: 'server'; url: string; note?: string }
  | { to: 'refused'; message: string };

/**
 * Which way a command goes: to the database when told (--direct) or handed one;
 * to a named server (--server, ADMIN_URL); to the local server at PORT when it
 * answers; to the database otherwise. A running server owns the embedded
 * database (one process opens it), so there the CLI refuses rather than open it
 * beside the server: without ADMIN_TOKEN, and for migrate and catalog:import.
 * PostgreSQL takes both, so those go to the database.
 */
export function route(s: {
  command: string;
  direct: boolean;
  handed: boolean;
  /** --server or ADMIN_URL */
  named: string | null;
  /** the local server's URL when it answered, null when it did not or was not asked */
  localServer: string | null;
  embedded: boolean;
  token: boolean;
}): Route {
  if (s.direct || (s.handed && !s.named)) return { to: 'database' };
  const url = s.named ?? s.localServer;
  if (!url) return { to: 'database' };
  if (DATABASE_ONLY_COMMANDS.has(s.command)) {
    if (!s.embedded) return { to: 'database' };
    return {
      to: 'refused',
      message: `${s.command} works on the database itself, and the server at ${url} holds the embedded database: stop the server and run it again${s.command === 'migrate' ? ' (or just start the server: it applies migrations when it starts)' : ''}; --direct if that server uses another database`,
    };
  }
  if (s.token) return { to: 'server', url, ...(s.named ? {} : { note: `via the running server at ${url}` }) };
  if (s.named) {
    return {
      to: 'refused',
      message: `ADMIN_TOKEN is not set: the admin API of ${url} needs it (set it to the server's token), or use --direct`,
    };
  }
  if (!s.embedded) {
    return { to: 'database', note: `a server answers at ${url}, but ADMIN_TOKEN is not set: working on the database` };
  }
  return {
    to: 'refused',
    message: `a server is running at ${url} on the embedded database, which one process opens at a time: set ADMIN_TOKEN to the server's admin token (in the environment or .env) so the CLI goes through its admin API, or stop the server`,
  };
}

/** The client for a command: the running server's admin API or the database, as `route` decides. */
export async function connect(config: Config, opts: ConnectOptions): Promise<AdminClient> {
  const named = opts.server?.replace(/\/+$/, '') ?? config.adminUrl;
  const local = `http://127.0.0.1:${config.port}`;
  // PORT=0 listens on any free port: no local server to find at a known address
  const ask = !opts.direct && !named && !opts.database && config.port > 0;
  const r = route({
    command: opts.command,
    direct: opts.direct,
    handed: opts.database !== undefined,
    named,
    localServer: ask && (await serviceAnswers(local)) ? local : null,
    embedded: config.database.kind === 'pglite',
    token: config.adminToken !== null,
  });
  if (r.to === 'refused') throw new AppError(400, 'usage', r.message);
  if (r.note) opts.note?.(r.note);
  if (r.to === 'server') return httpClient(r.url, config.adminToken as string);
  if (opts.database) return directClient(config, opts.database);
  const database = await createDatabase(config);
  try {
    if (opts.command !== 'migrate') await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  return directClient(config, database, true);
}
