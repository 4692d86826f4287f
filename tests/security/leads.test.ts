import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLeadCipher } from '../../privacy/lead-crypto.ts';
import { leads } from '../../schema/index.ts';
import {
  adminHeaders,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  LEAD_KEY,
  scoredSession,
  type TestApp,
} from '../helper.ts';

/** Leads are erasable by email or by phone, and the erasure request is never logged in clear. */
let app: TestApp;
let key: string;
let merchantId: string;
const logs: string[] = [];

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined, LOG_LEVEL: 'info' }, undefined, {
    logStream: { write: (line: string) => void logs.push(line) },
  });
  const m = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
  key = m.key;
  merchantId = m.merchant.id;
});
afterAll(() => closeTestApp(app));

const lead = async (contact: { email?: string; phone?: string }, sessionId?: string | null) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/event',
    payload: {
      api_key: key,
      type: 'lead_submitted',
      consent: true,
      consent_version: 'v1',
      ...(sessionId === null ? {} : { session_id: sessionId ?? (await scoredSession(app, key)) }),
      ...contact,
    },
    headers: { origin: 'https://shop.example' },
  });
const count = async () =>
  Number(
    (await app.db.select({ n: sql<number>`count(*)` }).from(leads).where(sql`${leads.merchantId} = ${merchantId}`))[0]
      ?.n,
  );
const erase = (query: string) =>
  app.inject({ method: 'DELETE', url: `/api/admin/merchants/${merchantId}/leads?${query}`, headers: adminHeaders });

describe('erasure', () => {
  it('by phone, in any of its spellings, a lead with a phone only included', async () => {
    expect((await lead({ phone: '+966 50 123 4567' })).statusCode).toBe(202);
    expect((await lead({ phone: '00966501234567', email: 'ali@example.com' })).statusCode).toBe(202);
    expect((await lead({ phone: '+966 55 000 0000' })).statusCode).toBe(202);
    // the second is the first one's phone again: one lead, which gained the email
    const before = await count();
    const res = await erase(`phone=${encodeURIComponent('+966501234567')}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: 1 });
    expect(await count()).toBe(before - 1);
    expect((await erase('email=ali%40example.com')).json()).toEqual({ deleted: 0 });
  });

  it('by phone, a lead stored before phones had a lookup hash (decrypted and compared)', async () => {
    const cipher = createLeadCipher(Buffer.from(LEAD_KEY, 'hex'));
    await app.db.insert(leads).values({
      merchantId,
      test: false,
      phoneEncrypted: cipher.encrypt('+966 56 111 2222'),
      consentAt: new Date(),
      consentVersion: 'v0',
    });
    expect((await erase('phone=0096656%201112222')).json()).toEqual({ deleted: 1 });
  });

  it('by email; neither given is a 400', async () => {
    expect((await lead({ email: 'Sara@Example.com' })).statusCode).toBe(202);
    expect((await erase('email=sara%40example.com')).json()).toEqual({ deleted: 1 });
    const none = await erase('');
    expect(none.statusCode).toBe(400);
    expect(none.json()).toHaveProperty('code');
  });

  it('the contact an erasure names never reaches the log', async () => {
    await erase('email=hidden.person%40example.com&phone=%2B966599998888');
    const text = logs.join('\n');
    expect(text).toContain('/leads?email=[redacted]&phone=[redacted]');
    expect(text).not.toMatch(/hidden\.person|599998888/);
  });
});

describe('leads worth trusting', () => {
  it("a lead names the session of a score answered with this key: none, an unknown one or another key's is refused", async () => {
    const other = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const foreign = await scoredSession(app, other.key);
    for (const sessionId of [null, '0b8e6f3e-8d2a-4c1e-9f00-000000000000', foreign]) {
      const res = await lead({ email: 'x@example.com' }, sessionId);
      expect(res.statusCode, String(sessionId)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_event', details: [{ path: '/body/session_id' }] });
    }
  });

  it('the same contact again renews the lead already there, adding the contact it lacked: no duplicate', async () => {
    const before = await count();
    expect((await lead({ email: 'Repeat@Example.com' })).statusCode).toBe(202);
    expect((await lead({ email: 'repeat@example.com', phone: '+966 51 222 3333' })).statusCode).toBe(202);
    expect((await lead({ email: 'repeat@example.com' })).statusCode).toBe(202);
    expect(await count()).toBe(before + 1);
    // the phone it gained finds it
    expect((await erase('phone=%2B966512223333')).json()).toEqual({ deleted: 1 });
  });

  it('a session gives at most three leads an hour', async () => {
    const s = await scoredSession(app, key);
    for (let i = 0; i < 3; i++) expect((await lead({ email: `s${i}@example.com` }, s)).statusCode).toBe(202);
    const fourth = await lead({ email: 's3@example.com' }, s);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.json()).toMatchObject({ code: 'rate_limited' });
  });
});
