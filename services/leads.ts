import { and, asc, eq, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import type { LeadCipher } from '../privacy/lead-crypto.ts';
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
export async function eraseLeadsByEmail(
  db: DbOrTx,
  cipher: LeadCipher,
  merchantIdOrSlug: string,
  email: string,
): Promise<number> {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const gone = await db
    .delete(leads)
    .where(and(eq(leads.merchantId, merchant.id), eq(leads.emailLookup, cipher.emailLookup(email))))
    .returning({ id: leads.id });
  return gone.length;
}

export async function purgeExpiredLeads(db: DbOrTx, retentionDays: number): Promise<number> {
  const gone = await db
    .delete(leads)
    .where(lt(leads.createdAt, sql`now() - make_interval(days => ${retentionDays})`))
    .returning({ id: leads.id });
  return gone.length;
}
