import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { type LeadCipher, normalizePhone } from '../privacy/lead-crypto.ts';
import { leads } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';

export interface LeadExport {
  email: string | null;
  phone: string | null;
  consent_at: string;
  consent_version: string;
  session_id: string | null;
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
    test: r.test,
    created_at: r.createdAt.toISOString(),
  }));
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  // a cell starting with = + - @ would run as a formula in a spreadsheet
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export function leadsCsv(rows: LeadExport[]): string {
  const cols = ['email', 'phone', 'consent_at', 'consent_version', 'session_id', 'test', 'created_at'] as const;
  return `${[cols.join(','), ...rows.map((r) => cols.map((c) => csvCell(r[c])).join(','))].join('\n')}\n`;
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
    const wanted = normalizePhone(contact.phone);
    const gone = await db
      .delete(leads)
      .where(and(eq(leads.merchantId, merchant.id), eq(leads.phoneLookup, cipher.phoneLookup(contact.phone))))
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
      const match = older.filter((r) => r.phone && normalizePhone(cipher.decrypt(r.phone)) === wanted).map((r) => r.id);
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
