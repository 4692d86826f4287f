import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { and, desc, eq, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../db/client.ts';
import { badRequest } from '../lib/errors.ts';
import { isPhoneCountry } from '../lib/phone.ts';
import type { LeadCipher } from '../privacy/lead-crypto.ts';
import { leadDeliveries, merchants } from '../schema/index.ts';
import { getMerchant } from './merchants.ts';
import { guardedLookup, hostOf, isPrivateAddress, namesPrivateHost } from './outbound.ts';

/** the SSRF guard's parts, shared with the feed fetcher, are services/outbound.ts's */
export { guardedLookup, isPrivateAddress } from './outbound.ts';

/**
 * Merchant webhooks: each new lead is posted to the merchant's URL as
 * `lead.created`, signed, retried with exponential backoff, and logged
 * (docs/webhooks.md). Deliveries are rows of lead_deliveries, queued in the
 * lead's own transaction (services/events.ts), sent by plugins/app/webhooks.ts.
 */

export const SIGNATURE_HEADER = 'sillage-signature';
/** a signature older than this is one a receiver should refuse (the docs' example does) */
export const SIGNATURE_TOLERANCE_S = 300;
export const MAX_WEBHOOK_URL = 2000;
/** bytes of a receiver's answer kept for the delivery log's last error */
const ANSWER_EXCERPT = 200;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>` */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64url')}`;

/** A merchant's webhook URL as stored, or a 400 invalid_webhook_url naming what is wrong. */
export function checkWebhookUrl(input: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw badRequest('invalid_webhook_url', 'webhook_url is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw badRequest('invalid_webhook_url', 'webhook_url must be https:// (or http://)');
  }
  if (url.username || url.password) throw badRequest('invalid_webhook_url', 'webhook_url must hold no credentials');
  if (url.href.length > MAX_WEBHOOK_URL) throw badRequest('invalid_webhook_url', 'webhook_url is too long');
  if (!allowPrivate && namesPrivateHost(hostOf(url))) {
    throw badRequest('invalid_webhook_url', 'webhook_url must not point at a loopback or private address');
  }
  return url.href;
}

export interface PostResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/**
 * POSTs a delivery's body, signed now. No redirect is followed (a 3xx is a
 * failure), the whole exchange has a timeout, and the answer's body is read
 * only for a short excerpt of an error.
 */
export function postWebhook(
  url: string,
  body: string,
  secret: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<PostResult> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const host = hostOf(target);
    if (!opts.allowPrivate && isIP(host) && isPrivateAddress(host)) {
      resolve({ ok: false, status: null, error: `refused: ${host} is a private address` });
      return;
    }
    const lib = target.protocol === 'https:' ? https : http;
    let settled = false;
    const done = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const req = lib.request(
      target,
      {
        method: 'POST',
        lookup: guardedLookup(opts.allowPrivate),
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Sillage-Webhook/1',
          ...headers,
          [SIGNATURE_HEADER]: signature(secret, body, Math.floor(Date.now() / 1000)),
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (c: Buffer) => {
          if (kept < ANSWER_EXCERPT) chunks.push(c);
          kept += c.length;
        });
        res.on('end', () => {
          if (status >= 200 && status < 300) return done({ ok: true, status, error: null });
          const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, ANSWER_EXCERPT);
          const why = status >= 300 && status < 400 ? 'a redirect (not followed)' : `HTTP ${status}`;
          done({ ok: false, status, error: excerpt ? `${why}: ${excerpt}` : why });
        });
        res.on('error', (err) => done({ ok: false, status, error: err.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, status: null, error: `no answer within ${opts.timeoutMs} ms` });
    }, opts.timeoutMs);
    req.on('error', (err) => done({ ok: false, status: null, error: err.message }));
    req.end(body);
  });
}

/** Wait before attempt n+1 after n failed: base × 2^(n−1), at most an hour, with ±20% jitter. */
export function backoffMs(attempts: number, baseMs: number): number {
  const plain = Math.min(3_600_000, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(plain * (0.8 + Math.random() * 0.4));
}

export interface DueDelivery {
  id: string;
  merchant_id: string;
  merchant_name: string;
  /** lead.created (the webhook) or picks.email */
  event: string;
  attempts: number;
  body_encrypted: string;
  webhook_url: string | null;
  webhook_secret_encrypted: string | null;
}

/**
 * Claims up to `limit` deliveries due now (on any instance: rows are locked
 * and skipped by the others), counting the attempt and leasing them for
 * `leaseMs` so one whose instance died is taken up again after it.
 */
export async function claimDue(db: DbOrTx, limit: number, leaseMs: number): Promise<DueDelivery[]> {
  return rowsOf<DueDelivery>(
    await db.execute(sql`
      with due as (
        select id from ${leadDeliveries}
        where status = 'pending' and next_attempt_at <= now()
          -- an erased merchant's deliveries are sent no more (services/erasure.ts deletes them)
          and not exists (select 1 from ${merchants} x where x.id = merchant_id and x.erased_at is not null)
        order by next_attempt_at
        limit ${limit}
        for update skip locked
      )
      update ${leadDeliveries} d
      set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
      from due, ${merchants} m
      where d.id = due.id and m.id = d.merchant_id
      returning d.id, d.merchant_id, m.name as merchant_name, d.event, d.attempts, d.body_encrypted,
        m.webhook_url, m.webhook_secret_encrypted`),
  );
}

/** Records an attempt's outcome: delivered; or pending again after `retryInMs`; or failed (null). */
export async function recordAttempt(
  db: DbOrTx,
  id: string,
  result: PostResult,
  retryInMs: number | null,
): Promise<void> {
  const status = result.ok ? 'delivered' : retryInMs === null ? 'failed' : 'pending';
  await db
    .update(leadDeliveries)
    .set({
      status,
      lastStatus: result.status,
      lastError: result.error,
      ...(result.ok ? { deliveredAt: new Date() } : {}),
      ...(retryInMs !== null && !result.ok ? { nextAttemptAt: new Date(Date.now() + retryInMs) } : {}),
    })
    .where(eq(leadDeliveries.id, id));
}

/** Delivery log entries kept, at most, per listing */
export const DELIVERY_LOG_LIMIT = 100;

export async function listDeliveries(db: DbOrTx, merchantIdOrSlug: string, limit = DELIVERY_LOG_LIMIT) {
  const merchant = await getMerchant(db, merchantIdOrSlug);
  const rows = await db
    .select()
    .from(leadDeliveries)
    .where(eq(leadDeliveries.merchantId, merchant.id))
    .orderBy(desc(leadDeliveries.createdAt), desc(leadDeliveries.id))
    .limit(Math.min(limit, DELIVERY_LOG_LIMIT));
  return rows.map((r) => ({
    id: r.id,
    event: r.event,
    test: r.test,
    status: r.status as 'pending' | 'delivered' | 'failed' | 'dropped',
    attempts: r.attempts,
    last_status: r.lastStatus,
    last_error: r.lastError,
    created_at: r.createdAt.toISOString(),
    next_attempt_at: r.status === 'pending' ? r.nextAttemptAt.toISOString() : null,
    delivered_at: r.deliveredAt ? r.deliveredAt.toISOString() : null,
  }));
}

/** Deliveries finished (delivered, failed, dropped) longer ago than this are deleted. */
export async function purgeOldDeliveries(db: DbOrTx, days: number): Promise<number> {
  const gone = await db
    .delete(leadDeliveries)
    .where(
      and(
        sql`${leadDeliveries.status} <> 'pending'`,
        sql`${leadDeliveries.createdAt} < now() - make_interval(days => ${days})`,
      ),
    )
    .returning({ id: leadDeliveries.id });
  return gone.length;
}

export interface LeadSettings {
  phone_country: string;
  webhook_url: string | null;
  webhook_secret_set: boolean;
}

const settingsOf = (m: {
  phoneCountry: string;
  webhookUrl: string | null;
  webhookSecretEncrypted: string | null;
}): LeadSettings => ({
  phone_country: m.phoneCountry,
  webhook_url: m.webhookUrl,
  webhook_secret_set: m.webhookSecretEncrypted !== null,
});

export async function getLeadSettings(db: DbOrTx, merchantIdOrSlug: string): Promise<LeadSettings> {
  return settingsOf(await getMerchant(db, merchantIdOrSlug));
}

/**
 * Changes a merchant's lead settings. Setting a webhook URL when there is no
 * secret yet, or `rotate_secret`, makes a new signing secret, answered once as
 * `webhook_secret` and stored encrypted; clearing the URL (null) keeps no secret.
 */
export async function updateLeadSettings(
  db: DbOrTx,
  cipher: Pick<LeadCipher, 'encrypt'>,
  merchantIdOrSlug: string,
  input: { phone_country?: string; webhook_url?: string | null; rotate_secret?: boolean },
  allowPrivate: boolean,
): Promise<LeadSettings & { webhook_secret?: string }> {
  const m = await getMerchant(db, merchantIdOrSlug);
  const set: Partial<typeof merchants.$inferInsert> = {};
  if (input.phone_country !== undefined) {
    const c = input.phone_country.toUpperCase();
    if (!isPhoneCountry(c)) {
      throw badRequest(
        'validation_failed',
        `phone_country "${input.phone_country}" is not a country code (ISO 3166 alpha-2)`,
      );
    }
    set.phoneCountry = c;
  }
  let secret: string | undefined;
  if (input.webhook_url === null) {
    set.webhookUrl = null;
    set.webhookSecretEncrypted = null;
  } else {
    if (input.webhook_url !== undefined) set.webhookUrl = checkWebhookUrl(input.webhook_url, allowPrivate);
    const url = set.webhookUrl ?? m.webhookUrl;
    if (input.rotate_secret && !url) {
      throw badRequest('validation_failed', 'rotate_secret needs a webhook_url: set one first');
    }
    if (url && (input.rotate_secret || !m.webhookSecretEncrypted)) {
      secret = newWebhookSecret();
      set.webhookSecretEncrypted = cipher.encrypt(secret);
    }
  }
  const [row] = Object.keys(set).length
    ? await db.update(merchants).set(set).where(eq(merchants.id, m.id)).returning()
    : [m];
  return { ...settingsOf(row ?? m), ...(secret ? { webhook_secret: secret } : {}) };
}
