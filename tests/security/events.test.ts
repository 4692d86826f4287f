import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ORDER_TOTAL } from '../../events/validate.ts';
import { events, purchases } from '../../schema/index.ts';
import { purgeExpiredEvents } from '../../services/events.ts';
import { buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from '../helper.ts';

/**
 * Events store what the interface defines, from an attack run (issue: bounded
 * work and no way to spoil a merchant's data): extra fields, huge or deep
 * lifecycle data, amounts that overflow, and a retention period.
 */
let app: TestApp;
let key: string;
let merchantId: string;

beforeAll(async () => {
  app = await buildTestApp({ REDIS_URL: undefined });
  const m = await createMerchantWithKey(app, { origins: ['https://shop.example'] });
  key = m.key;
  merchantId = m.merchant.id;
});
afterAll(() => closeTestApp(app));

const post = (body: object) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/event',
    payload: { api_key: key, ...body },
    headers: { origin: 'https://shop.example' },
  });
const storedById = async (eventId: string) =>
  (
    await app.db
      .select()
      .from(events)
      .where(sql`${events.merchantId} = ${merchantId} and ${events.eventId} = ${eventId}`)
  )[0];

describe('events store what the interface defines', () => {
  it('drops fields an event type does not define: nothing a client adds is kept', async () => {
    const id = randomUUID();
    const res = await post({
      type: 'recommendation_clicked',
      event_id: id,
      merchant_product_id: 'p1',
      position: 1,
      email: 'someone@example.com',
      note: 'x'.repeat(5000),
      nested: { a: { b: 1 } },
    });
    expect(res.statusCode).toBe(202);
    const row = await storedById(id);
    expect(row?.data).toEqual({ merchant_product_id: 'p1', position: 1 });
  });

  it("a lifecycle event's data holds at most a few short flat values", async () => {
    const id = randomUUID();
    expect(
      (await post({ type: 'widget_opened', event_id: id, data: { trigger: 'launcher', step: 2, rtl: true } }))
        .statusCode,
    ).toBe(202);
    expect((await storedById(id))?.data).toEqual({ data: { trigger: 'launcher', step: 2, rtl: true } });
    for (const data of [
      { long: 'x'.repeat(1000) },
      Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])),
      { nested: { deeper: true } },
      { list: [1, 2, 3] },
    ]) {
      const res = await post({ type: 'widget_opened', data });
      expect(res.statusCode, JSON.stringify(data).slice(0, 60)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_event' });
    }
  });

  it('data nested thousands deep is a 400, never a 500', async () => {
    const deep = `${'{"d":'.repeat(6000)}1${'}'.repeat(6000)}`;
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/event',
      payload: `{"api_key":"${key}","type":"widget_opened","data":${deep}}`,
      headers: { origin: 'https://shop.example', 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toHaveProperty('code');
  });

  it('an order whose items add up past the bound is refused, and cannot overflow a revenue column', async () => {
    const order = `o-${randomUUID()}`;
    const res = await post({
      type: 'purchase_completed',
      order_id: order,
      total: 100,
      currency: 'SAR',
      items: [{ merchant_product_id: 'p1', quantity: 10_000, price: 999_999_999 }],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/items/);
    // the largest order allowed is stored and counted
    const big = `o-${randomUUID()}`;
    const ok = await post({
      type: 'purchase_completed',
      order_id: big,
      total: MAX_ORDER_TOTAL,
      currency: 'SAR',
      items: [{ merchant_product_id: 'p1', quantity: 10, price: MAX_ORDER_TOTAL / 10 }],
    });
    expect(ok.statusCode).toBe(202);
    const rows = await app.db.select().from(purchases).where(sql`${purchases.orderId} = ${big}`);
    expect(rows).toHaveLength(1);
  });
});

describe('event retention', () => {
  it('purges events older than EVENT_RETENTION_DAYS, and only those', async () => {
    const old = randomUUID();
    const recent = randomUUID();
    await app.db.insert(events).values([
      { merchantId, test: false, type: 'widget_loaded', eventId: old, occurredAt: new Date(), data: {} },
      { merchantId, test: false, type: 'widget_loaded', eventId: recent, occurredAt: new Date(), data: {} },
    ]);
    await app.db.execute(sql`update events set received_at = now() - interval '40 days' where event_id = ${old}`);
    expect(await purgeExpiredEvents(app.db, 30)).toBeGreaterThanOrEqual(1);
    expect(await storedById(old)).toBeUndefined();
    expect(await storedById(recent)).toBeDefined();
  });
});
