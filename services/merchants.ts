import { and, asc, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { AppError, badRequest, conflict, notFound, pgErrorCode } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { merchants } from '../schema/index.ts';

export type Merchant = typeof merchants.$inferSelect;

export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$';
const slugRe = new RegExp(SLUG_PATTERN);

export function merchantView(m: Merchant) {
  return {
    id: m.id,
    name: m.name,
    slug: m.slug,
    teaches: m.teaches,
    learns: m.learns,
    created_at: m.createdAt.toISOString(),
  };
}

/**
 * A merchant's choices about learning (docs/learning.md). A change is learnt again from its shelf
 * at the next dispatch: what it taught goes when it stops teaching.
 */
export async function updateMerchant(
  db: DbOrTx,
  idOrSlug: string,
  change: { teaches?: boolean; learns?: boolean },
): Promise<Merchant> {
  const m = await getMerchant(db, idOrSlug);
  const [row] = await db
    .update(merchants)
    .set({ ...change, learntVersion: null })
    .where(eq(merchants.id, m.id))
    .returning();
  return row as Merchant;
}

export async function createMerchant(db: DbOrTx, input: { name: string; slug: string }): Promise<Merchant> {
  const name = input.name.trim();
  const slug = input.slug.trim().toLowerCase();
  if (!name) throw badRequest('invalid_merchant', 'name must not be empty');
  if (!slugRe.test(slug)) {
    throw badRequest(
      'invalid_merchant',
      'slug must be 1–64 lower-case letters, digits or hyphens, not starting or ending with a hyphen',
    );
  }
  try {
    const [row] = await db.insert(merchants).values({ name, slug }).returning();
    if (!row) throw new AppError(500, 'internal_error', 'merchant insert returned nothing');
    return row;
  } catch (err) {
    if (pgErrorCode(err) === '23505') throw conflict('slug_taken', `A merchant with slug "${slug}" already exists`);
    throw err;
  }
}

/** Every merchant but those being erased. */
export async function listMerchants(db: DbOrTx): Promise<Merchant[]> {
  return db
    .select()
    .from(merchants)
    .where(isNull(merchants.erasedAt))
    .orderBy(asc(merchants.createdAt), asc(merchants.slug));
}

/**
 * Finds a merchant by its id or its slug (the CLI and admin URLs accept both). One being erased
 * (services/erasure.ts) is gone for every read, unless `erasing` asks for it too.
 */
export async function findMerchant(
  db: DbOrTx,
  idOrSlug: string,
  o: { erasing?: boolean } = {},
): Promise<Merchant | undefined> {
  const where = isUuid(idOrSlug) ? eq(merchants.id, idOrSlug) : eq(merchants.slug, idOrSlug.toLowerCase());
  const [row] = await db
    .select()
    .from(merchants)
    .where(o.erasing ? where : and(where, isNull(merchants.erasedAt)))
    .limit(1);
  return row;
}

export async function getMerchant(db: DbOrTx, idOrSlug: string): Promise<Merchant> {
  const m = await findMerchant(db, idOrSlug);
  if (!m) throw notFound('merchant_not_found', `No merchant with id or slug "${idOrSlug}"`);
  return m;
}
