import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import { parseKey } from '../auth/keys.ts';
import { originAllowed } from '../auth/origins.ts';
import { DATA_DIR } from '../catalog/bundled.ts';
import type { CatalogSnapshot } from '../catalog/store.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { dataFile } from '../db/data-files.ts';
import { merchantProducts } from '../schema/index.ts';
import { createConsoleUser, deleteConsoleUserByEmail, signInUser } from './console-users.ts';
import { createKey, findKeyByHash, revokeKey } from './keys.ts';
import { createMerchant, findMerchant } from './merchants.ts';
import { type ProductRow, type SyncSummary, syncProducts } from './products.ts';

export const DEMO_SLUG = 'demo';
export const DEMO_NAME = 'Sillage Demo Store';

export interface DemoInfo {
  merchant: { id: string; slug: string; name: string };
  key: string;
  /** true when the key was created by this start */
  created: boolean;
  /** the demo feed's sync, when this start loaded it */
  feed: SyncSummary | null;
  /** the demo merchant's owner in the merchant console */
  console: { email: string; password: string };
}

export const DEMO_OWNER_EMAIL = 'owner@demo.sillage.example';

/**
 * The demo merchant's console owner, so a first start can sign in to /console. Its password is
 * random, kept beside the embedded database (mode 600) like the demo key and printed at each
 * start; without that file (in memory, PostgreSQL) a new one each start.
 */
export async function ensureDemoOwner(db: Db, merchantId: string, file: string | null) {
  if (file) {
    try {
      const saved = readFileSync(file, 'utf8').trim();
      if (saved && (await signInUser(db, DEMO_OWNER_EMAIL, saved))) return { email: DEMO_OWNER_EMAIL, password: saved };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  await deleteConsoleUserByEmail(db, DEMO_OWNER_EMAIL);
  const password = randomBytes(12).toString('base64url');
  await createConsoleUser(db, { email: DEMO_OWNER_EMAIL, password, role: 'owner', merchant: merchantId });
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return { email: DEMO_OWNER_EMAIL, password };
}

/**
 * The demo store's product feed (catalog/data/demo-feed.json): listings in the
 * mixed Arabic and English styles real shop feeds use, with demo prices in
 * SAR, and a few that cannot be matched (a deodorant, gift wrapping, local
 * blends). Product links point at the demo storefront.
 */
export async function ensureDemoFeed(
  db: Db,
  snapshot: CatalogSnapshot,
  config: Pick<Config, 'publicBaseUrl'>,
  merchantId: string,
) {
  const [existing] = await db
    .select({ n: count() })
    .from(merchantProducts)
    .where(eq(merchantProducts.merchantId, merchantId));
  if (Number(existing?.n ?? 0) > 0) return null;
  const feed = (
    JSON.parse(readFileSync(join(DATA_DIR, 'demo-feed.json'), 'utf8')) as { merchant_product_id: string }[]
  ).map((p) => ({
    ...p,
    currency: 'SAR',
    product_url: `${config.publicBaseUrl}/demo/products/${encodeURIComponent(p.merchant_product_id)}`,
  }));
  return syncProducts(db, snapshot, merchantId, feed);
}

/** Origins the demo key accepts: the service's own pages (the demo storefront). */
export function demoOrigins(config: Pick<Config, 'publicBaseUrl' | 'port'>): string[] {
  // an origin has no path: PUBLIC_BASE_URL may be https://example.com/sillage behind a proxy
  const own = new URL(config.publicBaseUrl).origin;
  return [...new Set([own, `http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`])];
}

/**
 * Makes sure the demo merchant and a working test key exist. The key's
 * plaintext is kept in a local file (mode 600) beside the embedded database so
 * the next start can print it again; a missing or revoked key is replaced, and
 * so is one that no longer accepts every demo origin (PORT or PUBLIC_BASE_URL
 * changed since it was made), or the demo storefront's widget would be refused.
 */
export async function ensureDemo(
  db: Db,
  config: Config,
  keyFile: string | null,
  snapshot: CatalogSnapshot | null = null,
): Promise<DemoInfo> {
  const merchant =
    (await findMerchant(db, DEMO_SLUG)) ?? (await createMerchant(db, { name: DEMO_NAME, slug: DEMO_SLUG }));
  const feed =
    snapshot && snapshot.perfumes.length > 0 ? await ensureDemoFeed(db, snapshot, config, merchant.id) : null;
  const owner = await ensureDemoOwner(db, merchant.id, keyFile ? dataFile(dirname(keyFile), 'demo-console') : null);

  if (keyFile) {
    try {
      const saved = readFileSync(keyFile, 'utf8').trim();
      const parsed = parseKey(saved);
      const existing = parsed.ok ? await findKeyByHash(db, parsed.hash) : null;
      if (existing && !existing.revoked && existing.merchant.id === merchant.id) {
        const origins = existing.allowedOrigins;
        if (demoOrigins(config).every((o) => originAllowed(o, origins))) {
          return { merchant: pick(merchant), key: saved, created: false, feed, console: owner };
        }
        // revoked, not left behind: the demo merchant keeps one working key instead of a pile of them
        await revokeKey(db, existing.id);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  const created = await createKey(db, merchant.id, { mode: 'test', allowedOrigins: demoOrigins(config) });
  if (keyFile) {
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, `${created.key}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
  }
  return { merchant: pick(merchant), key: created.key, created: true, feed, console: owner };
}

/** Most products the demo storefront lists; the demo feed has 46, a merchant feed could have 50,000. */
export const DEMO_SHOP_LIMIT = 200;

/** The demo merchant's products for the shop page: matched first, then partial, then the rest. */
export async function listDemoProducts(db: Db, merchantId: string): Promise<ProductRow[]> {
  return db
    .select()
    .from(merchantProducts)
    .where(eq(merchantProducts.merchantId, merchantId))
    .orderBy(
      sql`case ${merchantProducts.matchStatus} when 'matched' then 0 when 'partial' then 1 else 2 end`,
      asc(merchantProducts.merchantProductId),
    )
    .limit(DEMO_SHOP_LIMIT);
}

export async function findDemoProduct(db: Db, merchantId: string, merchantProductId: string) {
  const [row] = await db
    .select()
    .from(merchantProducts)
    .where(and(eq(merchantProducts.merchantId, merchantId), eq(merchantProducts.merchantProductId, merchantProductId)))
    .limit(1);
  return row ?? null;
}

const pick = (m: { id: string; slug: string; name: string }) => ({ id: m.id, slug: m.slug, name: m.name });
