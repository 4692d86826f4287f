import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { DEFAULT_PHONE_COUNTRY, toE164 } from '../lib/phone.ts';
import { type LeadCipher, normalizePhone } from '../privacy/lead-crypto.ts';
import { leads, merchantProducts, merchants } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';

/** A recommendation the shopper was shown in the lead's session. */
export interface LeadPick {
  merchant_product_id: string;
  /** the product's name in the merchant's catalog; null when it is not there (an inline-catalog score) */
  name: string | null;
  /** its page in the shop, when the catalog has one */
  url: string | null;
}

/** the most picks a lead keeps: a score shows far fewer recommendations */
export const MAX_PICKS = 20;

/** The recommendations of a stored `shown` list, in their order, at most MAX_PICKS. */
export function recommendationsShown(shown: unknown): string[] {
  if (!Array.isArray(shown)) return [];
  return shown
    .filter(
      (p): p is { merchant_product_id: string; position: number } =>
        !!p && typeof p === 'object' && (p as { list?: unknown }).list === 'recommendations',
    )
    .sort((a, b) => a.position - b.position)
    .map((p) => p.merchant_product_id)
    .slice(0, MAX_PICKS);
}

/**
 * What a lead of this merchant takes from the database: the country its phone
 * is read in, and the names of the recommendations its session showed (one
 * query each, at most MAX_PICKS products).
 */
export async function leadContext(
  db: DbOrTx,
  merchantId: string,
  shown: unknown,
): Promise<{ phoneCountry: string; picks: LeadPick[] }> {
  const ids = recommendationsShown(shown);
  const [m] = await db
    .select({ phoneCountry: merchants.phoneCountry })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  const found = new Map<string, { name: string; url: string | null }>();
  if (ids.length) {
    const rows = await db
      .select({ id: merchantProducts.merchantProductId, name: merchantProducts.name, url: merchantProducts.productUrl })
      .from(merchantProducts)
      .where(and(eq(merchantProducts.merchantId, merchantId), inArray(merchantProducts.merchantProductId, ids)));
    for (const r of rows) found.set(r.id, { name: r.name, url: r.url });
  }
  return {
    phoneCountry: m?.phoneCountry ?? DEFAULT_PHONE_COUNTRY,
    picks: ids.map((id) => ({
      merchant_product_id: id,
      name: found.get(id)?.name ?? null,
      url: found.get(id)?.url ?? null,
    })),
  };
}

export interface LeadExport {
  email: string | null;
  phone: string | null;
  consent_at: string;
  consent_version: string;
  session_id: string | null;
  locale: string | null;
  picks: LeadPick[];
  test: boolean;
  created_at: string;
}

/** A merchant's leads, decrypted: the only place contact details leave the service. */
export async function exportLeads(db: DbOrTx, cipher: LeadCipher, merchantIdOrSlug: string): Promise<LeadExport[]> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const rows = await db.select().from(leads).where(eq(leads.merchantId, merchant.id)).orderBy(asc(leads.createdAt));
  return rows.map((r) => ({
    email: r.emailEncrypted ? cipher.decrypt(r.emailEncrypted) : null,
    phone: r.phoneEncrypted ? cipher.decrypt(r.phoneEncrypted) : null,
    consent_at: r.consentAt.toISOString(),
    consent_version: r.consentVersion,
    session_id: r.sessionId,
    locale: r.locale,
    picks: (r.picks as LeadPick[]) ?? [],
    test: r.test,
    created_at: r.createdAt.toISOString(),
  }));
}

/** a phone in E.164, or a plain number: starts with + or - and is no formula */
const PLAIN_NUMBER = /^(\+[1-9]\d{6,14}|[+-]?\d+(\.\d+)?)$/;

/**
 * One CSV cell, its value as it is. Only a value a spreadsheet would run as a
 * formula (starting with =, +, -, @, a tab or a carriage return, and not a
 * phone in E.164 nor a number) is prefixed with a single quote; a value with a
 * comma, a quote or a line break is quoted (RFC 4180). docs/security.md.
 */
export function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  const safe = /^[=+\-@\t\r]/.test(s) && !PLAIN_NUMBER.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** The export as CSV: one lead a row; its picks as two columns, ids and names, each joined by " | ". */
export function leadsCsv(rows: LeadExport[]): string {
  const cols = [
    'email',
    'phone',
    'consent_at',
    'consent_version',
    'session_id',
    'locale',
    'test',
    'created_at',
  ] as const;
  const head = [...cols, 'pick_ids', 'pick_names'].join(',');
  const line = (r: LeadExport) =>
    [
      ...cols.map((c) => csvCell(r[c])),
      csvCell(r.picks.map((p) => p.merchant_product_id).join(' | ')),
      csvCell(r.picks.map((p) => p.name ?? '').join(' | ')),
    ].join(',');
  return `${[head, ...rows.map(line)].join('\n')}\n`;
}

/** Right to erasure: removes every lead of the merchant with this email. */
/** Leads of one merchant read at a time when erasure must decrypt (phones stored before phone_lookup). */
const ERASE_SCAN_BATCH = 1000;

/**
 * Right to erasure: deletes every lead of the merchant with this email or
 * this phone, found by their keyed hashes. Leads stored with a phone before
 * phones had one are decrypted and compared, a thousand at a time.
 */
export async function eraseLeads(
  db: DbOrTx,
  cipher: LeadCipher,
  merchantIdOrSlug: string,
  contact: { email?: string | null; phone?: string | null },
): Promise<number> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  let deleted = 0;
  if (contact.email) {
    const gone = await db
      .delete(leads)
      .where(and(eq(leads.merchantId, merchant.id), eq(leads.emailLookup, cipher.emailLookup(contact.email))))
      .returning({ id: leads.id });
    deleted += gone.length;
  }
  if (contact.phone) {
    // leads store phones in E.164 (read in the merchant's country); older ones as their digits were typed
    const e164 = toE164(contact.phone, merchant.phoneCountry);
    const wanted = normalizePhone(contact.phone);
    const lookups = [...new Set([cipher.phoneLookup(contact.phone), ...(e164 ? [cipher.phoneLookup(e164)] : [])])];
    const gone = await db
      .delete(leads)
      .where(and(eq(leads.merchantId, merchant.id), inArray(leads.phoneLookup, lookups)))
      .returning({ id: leads.id });
    deleted += gone.length;
    let after = '';
    for (;;) {
      const older = await db
        .select({ id: leads.id, phone: leads.phoneEncrypted })
        .from(leads)
        .where(
          and(
            eq(leads.merchantId, merchant.id),
            isNull(leads.phoneLookup),
            isNotNull(leads.phoneEncrypted),
            gt(leads.id, after || '00000000-0000-0000-0000-000000000000'),
          ),
        )
        .orderBy(asc(leads.id))
        .limit(ERASE_SCAN_BATCH);
      const match = older
        .filter((r) => {
          if (!r.phone) return false;
          const stored = normalizePhone(cipher.decrypt(r.phone));
          return stored === wanted || (e164 !== null && stored === normalizePhone(e164));
        })
        .map((r) => r.id);
      if (match.length) {
        const g = await db.delete(leads).where(inArray(leads.id, match)).returning({ id: leads.id });
        deleted += g.length;
      }
      if (older.length < ERASE_SCAN_BATCH) break;
      after = older[older.length - 1]?.id ?? after;
    }
  }
  return deleted;
}

export async function purgeExpiredLeads(db: DbOrTx, retentionDays: number): Promise<number> {
  const gone = await db
    .delete(leads)
    .where(lt(leads.createdAt, sql`now() - make_interval(days => ${retentionDays})`))
    .returning({ id: leads.id });
  return gone.length;
}
