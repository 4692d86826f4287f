import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, purchases, widgetSessions } from '../../schema/index.ts';
import { createKey } from '../../services/keys.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, scoredSession, type TestApp } from '../helper.ts';

/**
 * Test and live never meet: nothing a merchant's test key sends changes what
 * its live key reads, counts or deduplicates — for each write.
 */
let app: TestApp;
let live: string;
let test: string;
let merchantId: string;
beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const m = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
  live = m.key;
  merchantId = m.merchant.id;
  test = (await createKey(app.db, merchantId, { mode: 'test', allowedOrigins: ['https://shop.example'] })).key;
});
afterAll(() => closeTestApp(app));

const send = (key: string, body: object) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/event',
    payload: { api_key: key, ...body },
    headers: { origin: 'https://shop.example' },
  });
const purchase = (order: string, session: string) => ({
  type: 'purchase_completed',
  session_id: session,
  order_id: order,
  total: 100,
  currency: 'SAR',
  items: [{ merchant_product_id: 'p1', quantity: 1, price: 100 }],
});

/** a click on product p1 a minute ago, in session s */
const clickBefore = (s: string) => ({
  type: 'recommendation_clicked',
  session_id: s,
  merchant_product_id: 'p1',
  position: 1,
  occurred_at: new Date(Date.now() - 60_000).toISOString(),
});

describe('a test key never changes live data', () => {
  it('event ids: a test event never makes a live one with the same id a duplicate', async () => {
    const id = `ev-${randomUUID()}`;
    expect((await send(test, { type: 'widget_loaded', event_id: id })).json()).toEqual({ accepted: 1, duplicates: 0 });
    expect((await send(live, { type: 'widget_loaded', event_id: id })).json()).toEqual({ accepted: 1, duplicates: 0 });
    const rows = await app.db.select().from(events).where(sql`${events.eventId} = ${id}`);
    expect(rows.map((r) => r.test).sort()).toEqual([false, true]);
  });

  it("purchases: a test order, even sent with the live order's event id, never blocks the live purchase", async () => {
    const order = `o-${randomUUID()}`;
    const s = await scoredSession(app, live);
    expect((await send(test, { ...purchase(order, s), event_id: `purchase:${order}` })).statusCode).toBe(202);
    expect((await send(live, { ...purchase(order, s), event_id: `purchase:${order}` })).json()).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    const rows = await app.db.select().from(purchases).where(sql`${purchases.orderId} = ${order}`);
    expect(rows.map((r) => r.test).sort()).toEqual([false, true]);
  });

  it('sessions: a test key scoring a live session id never overwrites the live session; it is a session of its own, and the answer is true to it', async () => {
    const s = await scoredSession(app, live);
    await app.sessions.flush();
    const of = async (isTest: boolean) =>
      app.db
        .select()
        .from(widgetSessions)
        .where(sql`${widgetSessions.id} = ${s} and ${widgetSessions.test} = ${isTest}`);
    const [before] = await of(false);
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: test, session_id: s, quiz: { families: ['citrus'] } },
      headers: { origin: 'https://shop.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().session_id).toBe(s);
    await app.sessions.flush();
    const [after] = await of(false);
    expect(after).toEqual(before);
    const [testSession] = await of(true);
    expect(testSession).toMatchObject({ merchantId, test: true });
    expect(testSession?.answerId).not.toBe(before?.answerId);
  });

  it("sessions: another merchant's widget sending the same session id gets a session of its own; neither claims nor changes the other's, nor can name it in a lead", async () => {
    const other = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const s = await scoredSession(app, live);
    await app.sessions.flush();
    const mine = () =>
      app.db
        .select()
        .from(widgetSessions)
        .where(sql`${widgetSessions.id} = ${s} and ${widgetSessions.merchantId} = ${merchantId}`);
    const [before] = await mine();
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/score',
      payload: { api_key: other.key, session_id: s, quiz: { families: ['citrus'] } },
      headers: { origin: 'https://shop.example' },
    });
    expect(res.json().session_id).toBe(s);
    await app.sessions.flush();
    expect((await mine())[0]).toEqual(before);
    const [theirs] = await app.db
      .select()
      .from(widgetSessions)
      .where(sql`${widgetSessions.id} = ${s} and ${widgetSessions.merchantId} = ${other.merchant.id}`);
    expect(theirs).toMatchObject({ test: false, keyId: other.keyId });
    // a lead from a third shop naming the id is refused: it scored no such session
    const third = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
    const lead = await send(third.key, { type: 'lead_submitted', session_id: s, email: 'a@b.example', consent: true });
    expect(lead.statusCode).toBe(400);
    expect(lead.json().code).toBe('invalid_event');
  });

  it("attribution: a test key's click never attributes a live purchase", async () => {
    const s = await scoredSession(app, live);
    await send(test, clickBefore(s));
    const order = `o-${randomUUID()}`;
    await send(live, purchase(order, s));
    const [row] = await app.db.select().from(purchases).where(sql`${purchases.orderId} = ${order}`);
    expect(row).toMatchObject({ test: false, attributed: false });
    // the live key's own click, before the purchase, does (arriving after it too)
    await send(live, clickBefore(s));
    const [again] = await app.db.select().from(purchases).where(sql`${purchases.orderId} = ${order}`);
    expect(again).toMatchObject({ attributed: true });
  });

  it("leads: a test key's lead cannot name a live session", async () => {
    const s = await scoredSession(app, live);
    const res = await send(test, {
      type: 'lead_submitted',
      session_id: s,
      email: 'x@example.com',
      consent: true,
      consent_version: 'v1',
    });
    expect(res.statusCode).toBe(400);
  });
});
