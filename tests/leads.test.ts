import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldDigits, toE164 } from '../lib/phone.ts';
import { createLeadCipher } from '../privacy/lead-crypto.ts';
import { leadDeliveries, leads } from '../schema/index.ts';
import { MAX_PENDING_DELIVERIES } from '../services/events.ts';
import { csvCell } from '../services/leads.ts';
import { checkWebhookUrl, guardedLookup, isPrivateAddress, postWebhook, signature } from '../services/webhooks.ts';
import {
  adminHeaders,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  LEAD_KEY,
  submitLead,
  type TestApp,
} from './helper.ts';

const ORIGIN = 'https://shop.example';
const feed = [
  {
    merchant_product_id: 'oud-1',
    name: 'Oud Wood 100ml',
    house: 'Tom Ford',
    price: 1290,
    product_url: 'https://shop.example/p/oud-1',
  },
  { merchant_product_id: 'oud-2', name: 'Black Aoud EDP', house: 'Montale', price: 540 },
  { merchant_product_id: 'sw-1', name: 'Khamrah', house: 'Lattafa', price: 145 },
  { merchant_product_id: 'rose-1', name: 'Kalemat', house: 'Arabian Oud', price: 420 },
];

let app: TestApp;
const cipher = createLeadCipher(Buffer.from(LEAD_KEY, 'hex'));

beforeAll(async () => {
  // webhooks to a receiver on this machine: the operator's allow setting; retries 30 ms apart
  app = await buildTestApp({
    REDIS_URL: undefined,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_BASE_MS: '30',
    WEBHOOK_POLL_MS: '20',
    WEBHOOK_MAX_ATTEMPTS: '3',
    WEBHOOK_TIMEOUT_MS: '1000',
  });
});
afterAll(() => closeTestApp(app));

async function shop() {
  const m = await createMerchantWithKey(app, { origins: [ORIGIN] });
  const res = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${m.merchant.id}/products`,
    payload: { products: feed },
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(200);
  return m;
}

async function score(key: string, locale = 'ar') {
  const session = randomUUID();
  const res = await app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, session_id: session, locale, quiz: { families: ['oud'] } },
    headers: { origin: ORIGIN },
  });
  expect(res.statusCode).toBe(200);
  const recs = res.json().recommendations as { merchant_product_id: string; name: string }[];
  return { session, recs };
}

const lead = (key: string, session: string, contact: { email?: string; phone?: string }) =>
  submitLead(app, key, session, contact, ORIGIN);

const storedPhone = async (session: string) => {
  const [row] = await app.db.select().from(leads).where(eq(leads.sessionId, session));
  return row?.phoneEncrypted ? cipher.decrypt(row.phoneEncrypted) : null;
};

describe('phone numbers', () => {
  it.each([
    ['٠٥٥١٢٣٤٥٦٧', '+966551234567'],
    ['۰۵۰۱۲۳۴۵۶۷', '+966501234567'],
    ['٠٥٠-١٢٣-٤٥٦٧', '+966501234567'],
    ['\u200f٠٥٠ ١٢٣ ٤٥٦٧', '+966501234567'],
    ['٠٠٩٦٦٥٠١٢٣٤٥٦٧', '+966501234567'],
    ['+966 (50) 123-4567', '+966501234567'],
    ['00971 50 123 4567', '+971501234567'],
    ['050.123.4567', '+966501234567'],
  ])('%s is taken end to end and stored as %s', async (typed, e164) => {
    const m = await shop();
    const { session } = await score(m.key);
    const res = await lead(m.key, session, { phone: typed });
    expect(res.statusCode).toBe(202);
    expect(await storedPhone(session)).toBe(e164);
  });

  it.each(['12345', '0501234567x', 'call me', '+', '050 123 4567 ext 5', '٠٥٠١٢٣'])(
    '%s answers 400 invalid_phone naming the field, and stores nothing',
    async (typed) => {
      const m = await shop();
      const { session } = await score(m.key);
      const res = await lead(m.key, session, { phone: typed });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_phone', details: [{ path: '/body/phone' }] });
      expect(await storedPhone(session)).toBeNull();
    },
  );

  it("reads a local number in the merchant's country: SA unless the merchant sets another", async () => {
    const m = await shop();
    const set = await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${m.merchant.id}/lead-settings`,
      payload: { phone_country: 'ae' },
      headers: adminHeaders,
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({ phone_country: 'AE', webhook_url: null, webhook_secret_set: false });
    const { session } = await score(m.key);
    expect((await lead(m.key, session, { phone: '٠٥٠١٢٣٤٥٦٧' })).statusCode).toBe(202);
    expect(await storedPhone(session)).toBe('+971501234567');
    const bad = await app.inject({
      method: 'PUT',
      url: `/api/admin/merchants/${m.merchant.id}/lead-settings`,
      payload: { phone_country: 'XX' },
      headers: adminHeaders,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('validation_failed');
  });

  it('erasure finds a lead by its phone in any spelling', async () => {
    const m = await shop();
    const { session } = await score(m.key);
    expect((await lead(m.key, session, { phone: '٠٥٥١٢٣٤٥٦٧' })).statusCode).toBe(202);
    const erased = await app.inject({
      method: 'DELETE',
      url: `/api/admin/merchants/${m.merchant.id}/leads?phone=${encodeURIComponent('055 123 4567')}`,
      headers: adminHeaders,
    });
    expect(erased.json()).toEqual({ deleted: 1 });
  });

  it('folds Arabic-Indic and Persian digits for every digit string (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 15 }), (digits) => {
        const latin = digits.join('');
        const arabic = digits.map((d) => String.fromCharCode(0x0660 + d)).join('');
        const persian = digits.map((d) => String.fromCharCode(0x06f0 + d)).join('');
        expect(foldDigits(arabic)).toBe(latin);
        expect(foldDigits(persian)).toBe(latin);
        expect(toE164(arabic)).toBe(toE164(latin));
        expect(toE164(persian)).toBe(toE164(latin));
      }),
    );
  });
});

describe('picks and the export', () => {
  it('a lead keeps the recommendations its session showed, and the export holds them', async () => {
    const m = await shop();
    const { session, recs } = await score(m.key, 'en');
    expect(recs.length).toBeGreaterThan(0);
    expect((await lead(m.key, session, { email: 'a@example.com', phone: '+966501234567' })).statusCode).toBe(202);
    const json = await app.inject({
      method: 'GET',
      url: `/api/admin/merchants/${m.merchant.id}/leads`,
      headers: adminHeaders,
    });
    const [one] = json.json().leads;
    const names = new Map(feed.map((p) => [p.merchant_product_id, p.name]));
    const urls = new Map(feed.map((p) => [p.merchant_product_id, p.product_url]));
    expect(one.picks).toEqual(
      recs.map((r) => ({
        merchant_product_id: r.merchant_product_id,
        name: names.get(r.merchant_product_id),
        url: urls.get(r.merchant_product_id) ?? null,
      })),
    );
    expect(one.locale).toBe('en');
    expect(one.phone).toBe('+966501234567');
    const csv = await app.inject({
      method: 'GET',
      url: `/api/admin/merchants/${m.merchant.id}/leads?format=csv`,
      headers: adminHeaders,
    });
    const [head, row] = csv.body.split('\n');
    const cols = (head as string).split(',');
    const cells = (row as string).split(',');
    const cell = (c: string) => cells[cols.indexOf(c)];
    expect(cell('phone')).toBe('+966501234567'); // no leading quote on a phone
    expect(cell('email')).toBe('a@example.com');
    expect(cell('locale')).toBe('en');
    expect(cell('pick_ids')).toBe(recs.map((r) => r.merchant_product_id).join(' | '));
    expect(cell('pick_names')).toBe(recs.map((r) => names.get(r.merchant_product_id)).join(' | '));
  });

  it.each([
    ['+966501234567', '+966501234567'],
    ['-12.5', '-12.5'],
    ['+15', '+15'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['=HYPERLINK("x")', `"'=HYPERLINK(""x"")"`],
    ['+SUM(A1)', "'+SUM(A1)"],
    ['-2+3', "'-2+3"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
  ])('a CSV cell: %j is written %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('a CSV cell is its value, quoted only as needed, and never a formula (property)', () => {
    const unquote = (c: string) => (c.startsWith('"') ? c.slice(1, -1).replace(/""/g, '"') : c);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 30 }), (v) => {
        const back = unquote(csvCell(v));
        const formula = /^[=+\-@\t\r]/.test(v) && !/^(\+[1-9]\d{6,14}|[+-]?\d+(\.\d+)?)$/.test(v);
        expect(back).toBe(formula ? `'${v}` : v);
      }),
    );
  });
});

/** A local receiver: answers the statuses given in turn (then 200), keeps each request. */
async function receiver(statuses: number[] = []) {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      const status = statuses.shift() ?? 200;
      res.writeHead(status, status === 302 ? { location: 'http://127.0.0.1:1/' } : {});
      res.end(status >= 400 ? 'receiver says no' : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/sillage`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function withWebhook(url: string) {
  const m = await shop();
  const res = await app.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${m.merchant.id}/lead-settings`,
    payload: { webhook_url: url },
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(200);
  const secret = res.json().webhook_secret as string;
  expect(secret).toMatch(/^whsec_/);
  return { ...m, secret };
}

const deliveries = async (merchantId: string) =>
  (
    await app.inject({
      method: 'GET',
      url: `/api/admin/merchants/${merchantId}/lead-deliveries`,
      headers: adminHeaders,
    })
  ).json().deliveries;

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await what();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('never happened');
}

/** a receiver's check, as docs/webhooks.md shows it */
function verifySignature(header: string, body: string, secret: string) {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe('the lead.created webhook', () => {
  it('posts each new lead with its picks, signed; the receiver verifies the signature', async () => {
    const r = await receiver();
    try {
      const m = await withWebhook(r.url);
      const { session, recs } = await score(m.key);
      expect((await lead(m.key, session, { email: 'shopper@example.com', phone: '٠٥٥١٢٣٤٥٦٧' })).statusCode).toBe(202);
      await until(
        async () => r.got.length,
        (n) => n === 1,
      );
      const [req] = r.got;
      const header = req?.headers['sillage-signature'] as string;
      expect(verifySignature(header, req?.body as string, m.secret)).toBe(true);
      expect(verifySignature(header, `${req?.body} `, m.secret)).toBe(false); // a changed body fails
      expect(verifySignature(header, req?.body as string, `${m.secret}x`)).toBe(false);
      const body = JSON.parse(req?.body as string);
      expect(body).toMatchObject({
        type: 'lead.created',
        test: false,
        data: {
          email: 'shopper@example.com',
          phone: '+966551234567',
          session_id: session,
          locale: 'ar',
          consent_version: 'v1',
        },
      });
      expect(body.data.picks.map((p: { merchant_product_id: string }) => p.merchant_product_id)).toEqual(
        recs.map((x) => x.merchant_product_id),
      );
      expect(req?.headers['sillage-event']).toBe('lead.created');
      expect(req?.headers['sillage-delivery']).toBe(body.id);
      const log = await until(
        () => deliveries(m.merchant.id),
        (d) => d[0]?.status === 'delivered',
      );
      expect(log).toMatchObject([
        { id: body.id, event: 'lead.created', status: 'delivered', attempts: 1, last_status: 200 },
      ]);
      // the delivery is stored encrypted: the contact is not in its row
      const [row] = await app.db.select().from(leadDeliveries).where(eq(leadDeliveries.id, body.id));
      expect(JSON.stringify(row)).not.toContain('shopper@example.com');
      // the secret is never shown again
      const settings = await app.inject({
        method: 'GET',
        url: `/api/admin/merchants/${m.merchant.id}/lead-settings`,
        headers: adminHeaders,
      });
      expect(settings.json()).toEqual({ phone_country: 'SA', webhook_url: r.url, webhook_secret_set: true });
    } finally {
      await r.close();
    }
  });

  it('retries a failing receiver with backoff, logging each failure, until it answers 2xx', async () => {
    const r = await receiver([500, 503]);
    try {
      const m = await withWebhook(r.url);
      const { session } = await score(m.key);
      expect((await lead(m.key, session, { email: 'retry@example.com' })).statusCode).toBe(202);
      const log = await until(
        () => deliveries(m.merchant.id),
        (d) => d[0]?.status === 'delivered',
      );
      expect(log[0]).toMatchObject({ attempts: 3, last_status: 200, last_error: null });
      expect(r.got.length).toBe(3);
      // the same body every attempt, each signed afresh
      expect(new Set(r.got.map((g) => g.body)).size).toBe(1);
      for (const g of r.got)
        expect(verifySignature(g.headers['sillage-signature'] as string, g.body, m.secret)).toBe(true);
    } finally {
      await r.close();
    }
  });

  it('gives up after WEBHOOK_MAX_ATTEMPTS and says why; a redirect is not followed', async () => {
    const r = await receiver([302, 302, 302, 302]);
    try {
      const m = await withWebhook(r.url);
      const { session } = await score(m.key);
      expect((await lead(m.key, session, { email: 'redirect@example.com' })).statusCode).toBe(202);
      const log = await until(
        () => deliveries(m.merchant.id),
        (d) => d[0]?.status === 'failed',
      );
      expect(log[0]).toMatchObject({ attempts: 3, last_status: 302, next_attempt_at: null });
      expect(log[0].last_error).toMatch(/redirect \(not followed\)/);
      expect(r.got.length).toBe(3);
    } finally {
      await r.close();
    }
  });

  it('a full queue records the new delivery as dropped, never silently', async () => {
    const m = await withWebhook('http://127.0.0.1:9/never');
    // the merchant's queue, full: deliveries due far in the future
    await app.db.execute(sql`
      insert into ${leadDeliveries} (id, merchant_id, event, test, status, next_attempt_at, body_encrypted)
      select gen_random_uuid(), ${m.merchant.id}, 'lead.created', false, 'pending', now() + interval '1 day', 'x'
      from generate_series(1, ${MAX_PENDING_DELIVERIES})`);
    const { session } = await score(m.key);
    expect((await lead(m.key, session, { email: 'late@example.com' })).statusCode).toBe(202);
    const log = await deliveries(m.merchant.id);
    const dropped = log.filter((d: { status: string }) => d.status === 'dropped');
    expect(dropped).toHaveLength(1);
    expect(dropped[0].last_error).toMatch(/queue full/);
  });

  it('no webhook, no delivery', async () => {
    const m = await shop();
    const { session } = await score(m.key);
    expect((await lead(m.key, session, { email: 'none@example.com' })).statusCode).toBe(202);
    expect(await deliveries(m.merchant.id)).toEqual([]);
  });
});

describe('outbound requests: the SSRF guard', () => {
  it.each([
    'http://127.0.0.1/x',
    'http://localhost:8080/x',
    'http://10.1.2.3/x',
    'http://[::1]/x',
    'http://169.254.169.254/latest',
    'http://192.168.1.1/',
    'ftp://example.com/',
    'https://user:pw@example.com/',
  ])('refuses %s as a webhook URL', (url) => {
    expect(() => checkWebhookUrl(url, false)).toThrow(/webhook_url/);
  });

  it('takes a public https URL, and a private one only when the operator allows it', () => {
    expect(checkWebhookUrl('https://hooks.example.com/sillage', false)).toBe('https://hooks.example.com/sillage');
    expect(checkWebhookUrl('http://127.0.0.1:8080/x', true)).toBe('http://127.0.0.1:8080/x');
  });

  it('the admin API answers 400 invalid_webhook_url without the allow setting', async () => {
    const strict = await buildTestApp({ REDIS_URL: undefined });
    try {
      const m = await createMerchantWithKey(strict);
      const res = await strict.inject({
        method: 'PUT',
        url: `/api/admin/merchants/${m.merchant.id}/lead-settings`,
        payload: { webhook_url: 'http://127.0.0.1:8080/hook' },
        headers: adminHeaders,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('invalid_webhook_url');
    } finally {
      await closeTestApp(strict);
    }
  });

  it('a name that resolves to a private address is refused at connect time', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(false)('localhost', { family: 0 }, (e) => resolve(e)),
    );
    expect(err?.code).toBe('EPRIVATE');
    const ok = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guardedLookup(true)('localhost', { family: 0 }, (e) => resolve(e)),
    );
    expect(ok).toBeNull();
  });

  it('a post to a name that resolves to loopback never reaches the receiver without the allow setting', async () => {
    const r = await receiver();
    try {
      const port = new URL(r.url).port;
      const refused = await postWebhook(
        `http://localhost:${port}/x`,
        '{}',
        'whsec_x',
        {},
        {
          timeoutMs: 1000,
          allowPrivate: false,
        },
      );
      expect(refused).toMatchObject({ ok: false, status: null });
      expect(refused.error).toMatch(/private address/);
      expect(r.got).toHaveLength(0);
      const allowed = await postWebhook(
        `http://localhost:${port}/x`,
        '{}',
        'whsec_x',
        {},
        {
          timeoutMs: 1000,
          allowPrivate: true,
        },
      );
      expect(allowed).toEqual({ ok: true, status: 200, error: null });
      expect(r.got).toHaveLength(1);
    } finally {
      await r.close();
    }
  });

  it('a receiver that does not answer in time is a failed attempt', async () => {
    const server = http.createServer(() => {
      // never answers
    });
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    try {
      const port = (server.address() as AddressInfo).port;
      const res = await postWebhook(
        `http://127.0.0.1:${port}/`,
        '{}',
        'whsec_x',
        {},
        {
          timeoutMs: 200,
          allowPrivate: true,
        },
      );
      expect(res).toEqual({ ok: false, status: null, error: 'no answer within 200 ms' });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((res) => server.close(() => res()));
    }
  });

  it.each([
    ['127.0.0.1', true],
    ['10.0.0.1', true],
    ['172.16.5.4', true],
    ['100.64.0.1', true],
    ['::ffff:127.0.0.1', true],
    ['fd00::1', true],
    ['8.8.8.8', false],
    ['2001:4860:4860::8888', false],
  ])('%s is private: %s', (ip, yes) => {
    expect(isPrivateAddress(ip)).toBe(yes);
  });

  it('the signature is HMAC-SHA256 over "<t>.<body>"', () => {
    const mac = createHmac('sha256', 'whsec_test').update('1700000000.{"a":1}').digest('hex');
    expect(signature('whsec_test', '{"a":1}', 1700000000)).toBe(`t=1700000000,v1=${mac}`);
  });
});
