import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { generateKey, type KeyMode } from '../auth/keys.ts';
import { ANY_ORIGIN, normalizeOriginPattern } from '../auth/origins.ts';
import type { DbOrTx } from '../db/client.ts';
import { AppError, badRequest, notFound } from '../lib/errors.ts';
import { isUuid } from '../lib/ids.ts';
import { apiKeys, keySightings, merchants } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** What a request needs to know about the key it carries. */
export interface ResolvedKey {
  id: string;
  prefix: string;
  mode: KeyMode;
  allowedOrigins: string[];
  revoked: boolean;
  /** learns: whether barcodes other shops taught are used for its products (docs/learning.md) */
  merchant: { id: string; name: string; slug: string; learns: boolean };
}

export const MAX_ALLOWED_ORIGINS = 50;

export function keyView(k: ApiKeyRow) {
  return {
    id: k.id,
    merchant_id: k.merchantId,
    prefix: k.prefix,
    mode: k.mode,
    allowed_origins: k.allowedOrigins,
    revoked: k.revokedAt !== null,
    revoked_at: k.revokedAt?.toISOString() ?? null,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

export function normalizeAllowedOrigins(mode: KeyMode, origins: readonly string[]): string[] {
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    throw badRequest('invalid_origins', `at most ${MAX_ALLOWED_ORIGINS} allowed origins per key`);
  }
  const out = new Set<string>();
  const problems = [];
  for (const [i, origin] of origins.entries()) {
    const r = normalizeOriginPattern(origin);
    if (!r.ok) problems.push({ path: `/allowed_origins/${i}`, message: r.reason });
    else if (r.pattern === ANY_ORIGIN && mode === 'live')
      problems.push({ path: `/allowed_origins/${i}`, message: '"*" (any origin) is allowed on test keys only' });
    else out.add(r.pattern);
  }
  if (problems.length) throw badRequest('invalid_origins', problems[0]?.message ?? 'invalid origins', problems);
  return [...out];
}

export async function createKey(
  db: DbOrTx,
  merchantIdOrSlug: string,
  input: { mode: KeyMode; allowedOrigins: readonly string[] },
) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const allowedOrigins = normalizeAllowedOrigins(input.mode, input.allowedOrigins);
  const generated = generateKey(input.mode);
  const [row] = await db
    .insert(apiKeys)
    .values({
      merchantId: merchant.id,
      mode: input.mode,
      prefix: generated.prefix,
      keyHash: generated.hash,
      allowedOrigins,
    })
    .returning();
  if (!row) throw new AppError(500, 'internal_error', 'key insert returned nothing');
  // the plaintext key leaves the service here and nowhere else
  return { ...keyView(row), key: generated.key };
}

export async function listKeys(db: DbOrTx, merchantIdOrSlug: string) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const rows = await db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.merchantId, merchant.id))
    .orderBy(asc(apiKeys.createdAt));
  return rows.map(keyView);
}

async function getKeyRow(db: DbOrTx, keyId: string): Promise<ApiKeyRow> {
  if (!isUuid(keyId)) throw notFound('key_not_found', `No key with id "${keyId}"`);
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  if (!row) throw notFound('key_not_found', `No key with id "${keyId}"`);
  return row;
}

/** Revokes a key; revoking it again keeps the first revocation time. Returns the key and its hash. */
export async function revokeKey(db: DbOrTx, keyId: string) {
  await getKeyRow(db, keyId);
  await db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
  const row = await getKeyRow(db, keyId);
  return { key: keyView(row), hash: row.keyHash };
}

export async function updateKeyOrigins(db: DbOrTx, keyId: string, origins: readonly string[]) {
  const current = await getKeyRow(db, keyId);
  const allowedOrigins = normalizeAllowedOrigins(current.mode, origins);
  const [row] = await db.update(apiKeys).set({ allowedOrigins }).where(eq(apiKeys.id, keyId)).returning();
  if (!row) throw notFound('key_not_found', `No key with id "${keyId}"`);
  return { key: keyView(row), hash: row.keyHash };
}

export async function findKeyByHash(db: DbOrTx, hash: string): Promise<ResolvedKey | null> {
  const [row] = await db
    .select({
      id: apiKeys.id,
      prefix: apiKeys.prefix,
      mode: apiKeys.mode,
      allowedOrigins: apiKeys.allowedOrigins,
      revokedAt: apiKeys.revokedAt,
      merchantId: merchants.id,
      merchantName: merchants.name,
      merchantSlug: merchants.slug,
      merchantLearns: merchants.learns,
      merchantErasedAt: merchants.erasedAt,
    })
    .from(apiKeys)
    .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
    .where(eq(apiKeys.keyHash, hash))
    .limit(1);
  if (!row) return null;
  return {
    id: row.id,
    prefix: row.prefix,
    mode: row.mode,
    allowedOrigins: row.allowedOrigins,
    // an erased merchant's keys are revoked with it; one read before that is refused all the same
    revoked: row.revokedAt !== null || row.merchantErasedAt !== null,
    merchant: { id: row.merchantId, name: row.merchantName, slug: row.merchantSlug, learns: row.merchantLearns },
  };
}

export async function touchKeys(db: DbOrTx, keyIds: string[]): Promise<void> {
  if (keyIds.length === 0) return;
  await db.update(apiKeys).set({ lastUsedAt: sql`now()` }).where(inArray(apiKeys.id, keyIds));
}

/** One place a key was seen used from, as the key store gathers them (auth/key-store.ts). */
export interface KeySighting {
  keyId: string;
  origin: string;
  widgetVersion: string;
  outcome: string;
  requests: number;
  lastSeenAt: Date;
}

/** Adds sightings to the install check's table; a key deleted since is skipped. */
export async function recordSightings(db: DbOrTx, rows: readonly KeySighting[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(sql`
    insert into ${keySightings} (key_id, origin, widget_version, outcome, requests, last_seen_at)
    select s.key_id, s.origin, s.widget_version, s.outcome, s.requests, s.last_seen_at
    from json_to_recordset(${JSON.stringify(
      rows.map((r) => ({
        key_id: r.keyId,
        origin: r.origin,
        widget_version: r.widgetVersion,
        outcome: r.outcome,
        requests: r.requests,
        last_seen_at: r.lastSeenAt.toISOString(),
      })),
    )}::json) as s(key_id uuid, origin text, widget_version text, outcome text, requests int, last_seen_at timestamptz)
    where exists (select 1 from ${apiKeys} k where k.id = s.key_id)
    on conflict (key_id, origin, widget_version, outcome) do update
      set requests = least(${keySightings}.requests::bigint + excluded.requests, 2147483647),
          last_seen_at = greatest(${keySightings}.last_seen_at, excluded.last_seen_at)`);
}
