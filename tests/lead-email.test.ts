import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merchants } from '../schema/index.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/**
 * "Send me these picks" by email: a real SMTP server on loopback receives what
 * the service sends through SMTP_URL, and the test reads the message.
 */

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
  { merchant_product_id: 'rose-1', name: 'Kalemat', house: 'Arabian Oud', price: 420 },
];

interface Received {
  from: string;
  to: string[];
  raw: string;
}

let smtp: SMTPServer;
let port: number;
const received: Received[] = [];
/** recipients the server refuses, once each, with a temporary error */
const refuseOnce = new Set<string>();
let app: TestApp;
let plain: TestApp;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuseOnce.delete(address.address)) {
        callback(Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  port = (smtp.server.address() as AddressInfo).port;
  app = await buildTestApp({
    REDIS_URL: undefined,
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    SMTP_FROM: 'Sillage <picks@sillage.example>',
    WEBHOOK_RETRY_BASE_MS: '30',
    WEBHOOK_POLL_MS: '20',
  });
  plain = await buildTestApp({ REDIS_URL: undefined });
});
afterAll(async () => {
  await closeTestApp(app);
  await closeTestApp(plain);
  await new Promise<void>((r) => smtp.close(() => r()));
});

/** RFC 2047 encoded words and the MIME parts' transfer encodings, enough to read what nodemailer writes */
function decodeWords(s: string): string {
  return s.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_m, enc: string, text: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text
            .replace(/_/g, ' ')
            .replace(/=([0-9a-f]{2})/gi, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
function readMessage(raw: string) {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, ' ');
  const subject = decodeWords(/^subject: (.*)$/im.exec(headers)?.[1] ?? '');
  const body = rest.join('\n\n');
  const parts: Record<string, string> = {};
  for (const part of body.split(/\r?\n--[^\r\n]+/)) {
    const [ph = '', ...pb] = part.replace(/^\r?\n/, '').split(/\r?\n\r?\n/);
    const type = /content-type: ([^;\s]+)/i.exec(ph)?.[1]?.toLowerCase();
    if (!type) continue;
    const cte = /content-transfer-encoding: (\S+)/i.exec(ph)?.[1]?.toLowerCase();
    const content = pb.join('\n\n');
    parts[type] =
      cte === 'base64'
        ? Buffer.from(content.replace(/\s+/g, ''), 'base64').toString('utf8')
        : cte === 'quoted-printable'
          ? Buffer.from(
              content
                .replace(/=\r?\n/g, '')
                .replace(/=([0-9A-F]{2})/g, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
              'latin1',
            ).toString('utf8')
          : content;
  }
  return { subject, text: parts['text/plain'] ?? '', html: parts['text/html'] ?? '' };
}

async function shop(a: TestApp) {
  const m = await createMerchantWithKey(a, { origins: [ORIGIN] });
  await a.db.update(merchants).set({ name: 'Oud House' }).where(eq(merchants.id, m.merchant.id));
  const res = await a.inject({
    method: 'PUT',
    url: `/api/admin/merchants/${m.merchant.id}/products`,
    payload: { products: feed },
    headers: adminHeaders,
  });
  expect(res.statusCode).toBe(200);
  return m;
}

async function leadAfterQuiz(a: TestApp, key: string, locale: 'ar' | 'en', email: string) {
  const session = randomUUID();
  const scored = await a.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, session_id: session, locale, quiz: { families: ['oud'] } },
    headers: { origin: ORIGIN },
  });
  expect(scored.statusCode).toBe(200);
  const res = await a.inject({
    method: 'POST',
    url: '/api/widget/event',
    payload: { api_key: key, session_id: session, type: 'lead_submitted', email, consent: true, consent_version: 'v1' },
    headers: { origin: ORIGIN },
  });
  expect(res.statusCode).toBe(202);
  return (scored.json().recommendations as { merchant_product_id: string }[]).map((r) => r.merchant_product_id);
}

async function until<T>(what: () => T | Promise<T>, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await what();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('never happened');
}

const names = new Map(feed.map((p) => [p.merchant_product_id, p.name]));

describe('the picks email', () => {
  it('reaches the shopper in Arabic when the quiz was in Arabic, with the picks', async () => {
    const m = await shop(app);
    const picks = await leadAfterQuiz(app, m.key, 'ar', 'layla@example.com');
    expect(picks.length).toBeGreaterThan(0);
    const got = await until(
      () => received.filter((r) => r.to.includes('layla@example.com')),
      (r) => r.length === 1,
    );
    const msg = readMessage(got[0]?.raw as string);
    expect(got[0]?.from).toBe('picks@sillage.example');
    expect(msg.subject).toBe('ترشيحاتك من Oud House');
    expect(msg.text).toContain('هذه العطور التي رُشّحت لك في Oud House');
    for (const id of picks) expect(msg.text).toContain(names.get(id) as string);
    expect(msg.html).toContain('dir="rtl"');
    expect(msg.text).not.toMatch(/Your picks|Hello/);
  });

  it('in English when the quiz was in English; a refused attempt is retried, and the log says so', async () => {
    const m = await shop(app);
    refuseOnce.add('sam@example.com');
    const picks = await leadAfterQuiz(app, m.key, 'en', 'sam@example.com');
    const got = await until(
      () => received.filter((r) => r.to.includes('sam@example.com')),
      (r) => r.length === 1,
    );
    const msg = readMessage(got[0]?.raw as string);
    expect(msg.subject).toBe('Your picks from Oud House');
    expect(msg.text).toContain('Here are the perfumes picked for you at Oud House');
    for (const id of picks) expect(msg.text).toContain(names.get(id) as string);
    if (picks.includes('oud-1')) expect(msg.text).toContain('https://shop.example/p/oud-1');
    const log = await until(
      async () =>
        (
          await app.inject({
            method: 'GET',
            url: `/api/admin/merchants/${m.merchant.id}/lead-deliveries`,
            headers: adminHeaders,
          })
        ).json().deliveries,
      (d: { status: string }[]) => d[0]?.status === 'delivered',
    );
    expect(log).toMatchObject([{ event: 'picks.email', status: 'delivered', attempts: 2 }]);
  });

  it('verify tells the widget whether leads are emailed their picks', async () => {
    const withSmtp = await createMerchantWithKey(app, { origins: [ORIGIN] });
    const without = await createMerchantWithKey(plain, { origins: [ORIGIN] });
    const v = (a: TestApp, key: string) =>
      a.inject({ method: 'POST', url: '/api/widget/verify', payload: { api_key: key }, headers: { origin: ORIGIN } });
    expect((await v(app, withSmtp.key)).json().leads).toEqual({ email_picks: true });
    expect((await v(plain, without.key)).json().leads).toEqual({ email_picks: false });
  });

  it('without SMTP_URL no email is queued: the shop contacts the shopper', async () => {
    const m = await shop(plain);
    const before = received.length;
    await leadAfterQuiz(plain, m.key, 'ar', 'nomail@example.com');
    await plain.deliveries.drain();
    const log = await plain.inject({
      method: 'GET',
      url: `/api/admin/merchants/${m.merchant.id}/lead-deliveries`,
      headers: adminHeaders,
    });
    expect(log.json().deliveries).toEqual([]);
    expect(received.length).toBe(before);
  });
});
