import { randomUUID } from 'node:crypto';
import { eq, getTableColumns, getTableName, inArray, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gtinKey } from '../lib/gtin.ts';
import * as schema from '../schema/index.ts';
import {
  apiKeys,
  consoleSessions,
  consoleTickets,
  consoleUsers,
  events,
  feedPulls,
  feedSources,
  keySightings,
  leadDeliveries,
  leads,
  learntBarcodes,
  merchantProducts,
  merchants,
  platformInstalls,
  platformWebhooks,
  purchases,
  widgetAnswers,
  widgetSessions,
} from '../schema/index.ts';
import { createConsoleTicket, createConsoleUser, saveConsoleSession, signInUser } from '../services/console-users.ts';
import { ERASE_BATCH_ROWS, ERASED_TABLES, eraseMerchantRows, startErasure } from '../services/erasure.ts';
import { dueSourceIds } from '../services/feeds.ts';
import { syncProducts } from '../services/products.ts';
import { withCheck } from './gtin-fixture.ts';
import {
  adminHeaders,
  buildTestApp,
  closeTestApp,
  createMerchantWithKey,
  scoredSession,
  submitLead,
  type TestApp,
} from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  // the background jobs' warnings and errors reach the test's output: a job that fails is retried a
  // minute later, past a test's time, and its log line is what says why
  app = await buildTestApp({ REDIS_URL: undefined, LOG_LEVEL: 'warn' }, undefined, {
    logStream: { write: (line: string) => process.stderr.write(line) },
  });
});
afterAll(() => closeTestApp(app));

const admin = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  app.inject({ method, url: `/api/admin${url}`, payload, headers: adminHeaders });

const score = (key: string) =>
  app.inject({
    method: 'POST',
    url: '/api/widget/score',
    payload: { api_key: key, quiz: { families: ['oud'] } },
    headers: { origin: 'https://shop.example' },
  });

/** A merchant with a row in every table that can hold one of its own: what an erasure must leave nothing of. */
async function populated(slug: string) {
  const { merchant, key, keyId } = await createMerchantWithKey(app, { slug });
  await syncProducts(app.db, app.catalog.current(), merchant.id, [
    { merchant_product_id: 'p1', name: 'Lattafa Khamrah EDP 100ml', price: 300, barcode: withCheck('629150000001') },
    { merchant_product_id: 'p2', name: 'Dior Sauvage Eau de Parfum 100ml', price: 500 },
  ]);
  const session = await scoredSession(app, key);
  expect((await submitLead(app, key, session, { email: `${slug}@example.com` })).statusCode).toBe(202);
  await app.inject({
    method: 'POST',
    url: '/api/widget/event',
    payload: { api_key: key, session_id: session, type: 'widget_opened' },
    headers: { origin: 'https://shop.example' },
  });
  await app.sessions.flush();
  await app.keyStore.flush();
  await app.db.insert(purchases).values({
    merchantId: merchant.id,
    sessionId: session,
    test: false,
    orderId: `o-${slug}`,
    total: 100,
    currency: 'SAR',
    occurredAt: new Date(),
  });
  await app.db.insert(leadDeliveries).values({
    id: randomUUID(),
    merchantId: merchant.id,
    event: 'lead.created',
    test: false,
    status: 'failed',
    bodyEncrypted: 'x',
  });
  const [source] = await app.db
    .insert(feedSources)
    .values({ merchantId: merchant.id, kind: 'csv', url: `https://${slug}.example/feed.csv` })
    .returning();
  await app.db.insert(feedPulls).values({ sourceId: source?.id as string, merchantId: merchant.id, status: 'applied' });
  const storeId = `store-${slug}`;
  await app.db.insert(platformInstalls).values({
    platform: 'salla',
    storeId,
    merchantId: merchant.id,
    feedSourceId: source?.id ?? null,
    accessTokenEncrypted: 'secret',
  });
  await app.db.insert(platformWebhooks).values({ platform: 'salla', storeId, event: 'order.created', bodyHash: slug });
  const user = await createConsoleUser(app.db, {
    email: `owner@${slug}.example`,
    password: 'a long enough password',
    role: 'owner',
    merchant: merchant.id,
  });
  await saveConsoleSession(app.db, randomUUID(), user.id, { userId: user.id }, new Date(Date.now() + 3_600_000));
  await createConsoleTicket(app.db, user.id);
  return { merchant, key, keyId, userId: user.id, sourceId: source?.id as string, storeId };
}

type Populated = Awaited<ReturnType<typeof populated>>;

/** Rows of each table that belong to the merchant, found through every id it had (not through its rows). */
async function rowsOf(m: Populated): Promise<Record<string, number>> {
  const count = async (table: PgTable, where: ReturnType<typeof eq>) =>
    Number((await app.db.select({ n: sql<number>`count(*)::int` }).from(table).where(where))[0]?.n ?? 0);
  const id = m.merchant.id;
  return {
    merchants: await count(merchants, eq(merchants.id, id)),
    api_keys: await count(apiKeys, eq(apiKeys.merchantId, id)),
    key_sightings: await count(keySightings, eq(keySightings.keyId, m.keyId)),
    widget_answers: await count(widgetAnswers, eq(widgetAnswers.merchantId, id)),
    widget_sessions: await count(widgetSessions, eq(widgetSessions.merchantId, id)),
    events: await count(events, eq(events.merchantId, id)),
    leads: await count(leads, eq(leads.merchantId, id)),
    purchases: await count(purchases, eq(purchases.merchantId, id)),
    lead_deliveries: await count(leadDeliveries, eq(leadDeliveries.merchantId, id)),
    merchant_products: await count(merchantProducts, eq(merchantProducts.merchantId, id)),
    feed_sources: await count(feedSources, eq(feedSources.merchantId, id)),
    feed_pulls: await count(feedPulls, eq(feedPulls.sourceId, m.sourceId)),
    console_users: await count(consoleUsers, eq(consoleUsers.merchantId, id)),
    console_sessions: await count(consoleSessions, eq(consoleSessions.userId, m.userId)),
    console_tickets: await count(consoleTickets, eq(consoleTickets.userId, m.userId)),
    platform_installs: await count(platformInstalls, eq(platformInstalls.merchantId, id)),
    platform_webhooks: await count(platformWebhooks, eq(platformWebhooks.storeId, m.storeId)),
    learnt: await count(learntBarcodes, sql`${learntBarcodes.merchantIds} @> array[${id}]::uuid[]`),
  };
}

describe('erasing a merchant (docs/admin.md)', () => {
  it('every table of schema/ that can hold a merchant row is erased, or is learnt again', () => {
    const erased = new Set(ERASED_TABLES.map((t) => t.name));
    // derived from the shelves, learnt again once the merchant is gone (docs/learning.md)
    const learnt = new Set(['learnt_barcodes', 'learnt_profiles', 'proposals', 'identity_proposals']);
    // our catalog, no merchant's
    const ours = new Set(['perfumes', 'houses', 'catalog_state']);
    const tables: PgTable[] = Object.values(schema as Record<string, unknown>).filter(
      (t): t is PgTable => t instanceof PgTable,
    );
    for (const t of tables) {
      const name = getTableName(t);
      if (name === 'merchants') continue;
      const columns = Object.values(getTableColumns(t)).map((c) => c.name);
      const holds = erased.has(name) || learnt.has(name) || ours.has(name);
      expect(holds, `${name} (${columns.join(', ')}) is in ERASED_TABLES, learnt, or ours`).toBe(true);
      if (columns.includes('merchant_id')) expect(erased.has(name), name).toBe(true);
    }
  });

  it('a wrong or missing confirm is 400 and changes nothing; an unknown merchant is 404', async () => {
    const m = await createMerchantWithKey(app, { slug: 'er-wrong' });
    for (const payload of [{ confirm: 'er-wron' }, {}, { confirm: m.merchant.id }]) {
      const res = await admin('DELETE', '/merchants/er-wrong', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'confirm_mismatch', error: expect.any(String) });
    }
    expect(
      (await app.inject({ method: 'DELETE', url: '/api/admin/merchants/er-wrong', headers: adminHeaders })).statusCode,
    ).toBe(400);
    expect((await admin('GET', '/merchants/er-wrong')).statusCode).toBe(200);
    expect((await score(m.key)).statusCode).toBe(200);
    const unknown = await admin('DELETE', '/merchants/er-none', { confirm: 'er-none' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'merchant_not_found' });
  });

  it("erases every row of the merchant and none of another's; its key is refused right after the 202", async () => {
    const gone = await populated('er-gone');
    const kept = await populated('er-kept');
    const before = await rowsOf(gone);
    for (const [table, n] of Object.entries(before)) {
      if (table !== 'learnt') expect(n, table).toBeGreaterThan(0);
    }
    const keptBefore = await rowsOf(kept);
    expect((await score(gone.key)).statusCode).toBe(200);

    const res = await admin('DELETE', `/merchants/${gone.merchant.id}`, { confirm: 'er-gone' });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ merchant_id: gone.merchant.id, status: 'erasing' });
    // refused at once, before its rows are gone
    const refused = await score(gone.key);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'revoked_api_key' });
    // its console users sign in no more, its feeds are not pulled
    expect(await signInUser(app.db, 'owner@er-gone.example', 'a long enough password')).toBeNull();
    expect(await dueSourceIds(app.db)).not.toContain(gone.sourceId);

    await app.jobs.drain();
    await app.learning.runDue();
    expect(await rowsOf(gone)).toEqual(Object.fromEntries(Object.keys(before).map((t) => [t, 0])));
    expect((await admin('GET', `/merchants/${gone.merchant.id}`)).json()).toMatchObject({ code: 'merchant_not_found' });
    // refused still: its key is gone (401), or known here as revoked (403) until the key cache forgets it
    expect([401, 403]).toContain((await score(gone.key)).statusCode);
    // the other merchant keeps everything
    expect(await rowsOf(kept)).toEqual(keptBefore);
    expect((await score(kept.key)).statusCode).toBe(200);
    expect(await signInUser(app.db, 'owner@er-kept.example', 'a long enough password')).not.toBeNull();
    // its slug is free again
    expect((await admin('DELETE', '/merchants/er-gone', { confirm: 'er-gone' })).statusCode).toBe(404);
  });

  it('while erasing: every read takes it as gone, GET says 410, erasing again is 202; installs are uninstalled', async () => {
    const m = await populated('er-during');
    const started = await startErasure(app.db, 'er-during', 'er-during');
    expect(started.started).toBe(true);
    expect(started.keyHashes).toHaveLength(1);
    const got = await admin('GET', '/merchants/er-during');
    expect(got.statusCode).toBe(410);
    expect(got.json()).toMatchObject({ code: 'merchant_erasing' });
    expect((await admin('GET', '/merchants/er-during/products')).statusCode).toBe(404);
    expect((await admin('GET', '/merchants')).json().merchants.map((x: { slug: string }) => x.slug)).not.toContain(
      'er-during',
    );
    const [install] = await app.db
      .select()
      .from(platformInstalls)
      .where(eq(platformInstalls.merchantId, m.merchant.id));
    expect([install?.status, install?.accessTokenEncrypted]).toEqual(['uninstalled', null]);
    expect(await signInUser(app.db, 'owner@er-during.example', 'a long enough password')).toBeNull();
    const again = await admin('DELETE', '/merchants/er-during', { confirm: 'er-during' });
    expect(again.statusCode).toBe(202);
    await app.jobs.drain();
    expect((await admin('GET', '/merchants/er-during')).statusCode).toBe(404);
  });

  it('bounds the work: the request a fixed number of statements, the job at most ERASE_BATCH_ROWS rows a statement', async () => {
    expect(ERASE_BATCH_ROWS).toBe(5_000);
    const shelf = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ merchant_product_id: `p${i}`, name: `Item ${i}`, price: 10 }));
    const small = await createMerchantWithKey(app, { slug: 'er-small' });
    const big = await createMerchantWithKey(app, { slug: 'er-big' });
    await syncProducts(app.db, app.catalog.current(), small.merchant.id, shelf(3));
    await syncProducts(app.db, app.catalog.current(), big.merchant.id, shelf(95));
    const a = await startErasure(app.db, 'er-small', 'er-small');
    const b = await startErasure(app.db, 'er-big', 'er-big');
    expect(b.statements).toBe(a.statements);
    expect(b.statements).toBeLessThanOrEqual(5);
    // the rows, 10 a statement (the bound made small to count it)
    const batch = 10;
    const run = await eraseMerchantRows(app.db, big.merchant.id, () => false, batch);
    expect(run.done).toBe(true);
    expect(run.deleted.merchant_products).toBe(95);
    expect(run.largestBatch).toBe(batch);
    // a statement per 10 products (and one to learn none are left), one per other table, the read and the row
    expect(run.statements).toBe(1 + Math.ceil((95 + 1) / batch) + (ERASED_TABLES.length - 1) + 1);
    // a run stopped (the instance closing) goes on at the next
    let calls = 0;
    const stopped = await eraseMerchantRows(app.db, small.merchant.id, () => ++calls > 3, 1);
    expect(stopped.done).toBe(false);
    expect((await eraseMerchantRows(app.db, small.merchant.id)).done).toBe(true);
    expect(
      await app.db
        .select()
        .from(merchants)
        .where(inArray(merchants.id, [small.merchant.id, big.merchant.id])),
    ).toEqual([]);
    // a batch the database ended for a deadlock (another write to the same rows) is taken again,
    // not left to the job's retry a minute later; any other error ends the run
    const again = await createMerchantWithKey(app, { slug: 'er-deadlock' });
    await syncProducts(app.db, app.catalog.current(), again.merchant.id, shelf(4));
    await startErasure(app.db, 'er-deadlock', 'er-deadlock');
    const failing = (code: string, times: number) => {
      let left = times;
      return new Proxy(app.db, {
        get(target, prop, receiver) {
          if (prop !== 'execute') return Reflect.get(target, prop, receiver);
          return (q: Parameters<typeof target.execute>[0]) => {
            if (left-- > 0) return Promise.reject(Object.assign(new Error('deadlock detected'), { code }));
            return target.execute(q);
          };
        },
      });
    };
    await expect(eraseMerchantRows(failing('23503', 1), again.merchant.id)).rejects.toThrow('deadlock detected');
    const retried = await eraseMerchantRows(failing('40P01', 1), again.merchant.id);
    expect(retried).toMatchObject({ done: true, deleted: { merchant_products: 4 } });
    // a merchant not marked erased is left alone
    const alive = await createMerchantWithKey(app, { slug: 'er-alive' });
    expect((await eraseMerchantRows(app.db, alive.merchant.id)).done).toBe(false);
    expect((await admin('GET', '/merchants/er-alive')).statusCode).toBe(200);
  });
});

describe('what an erased shelf taught goes (docs/learning.md)', () => {
  it('a barcode two shops taught is no longer a key once one of them is erased and learning runs', async () => {
    const bottle = withCheck('629160000001');
    const named = (id: string) => [
      { merchant_product_id: id, name: 'Lattafa Khamrah EDP 100ml', price: 300, barcode: bottle },
    ];
    const junk = [{ merchant_product_id: 'j1', name: 'Item 4711', price: 100, barcode: bottle }];
    for (const slug of ['er-t1', 'er-t2', 'er-junk']) await createMerchantWithKey(app, { slug });
    expect((await admin('PUT', '/merchants/er-t1/products', { products: named('a') })).statusCode).toBe(200);
    expect((await admin('PUT', '/merchants/er-t2/products', { products: named('b') })).statusCode).toBe(200);
    expect((await admin('PUT', '/merchants/er-junk/products', { products: junk })).statusCode).toBe(200);
    await app.learning.runDue();
    const key = async () =>
      (
        await app.db
          .select()
          .from(learntBarcodes)
          .where(eq(learntBarcodes.barcode, gtinKey(bottle) as string))
      )[0]?.status ?? null;
    const junkProduct = async () =>
      (await admin('GET', '/merchants/er-junk/products')).json().products[0] as {
        sillage_perfume_id: string | null;
        matched_by: string | null;
      };
    expect(await key()).toBe('key');
    expect(await junkProduct()).toMatchObject({ sillage_perfume_id: 'lattafa-khamrah-edp', matched_by: 'barcode' });

    expect((await admin('DELETE', '/merchants/er-t2', { confirm: 'er-t2' })).statusCode).toBe(202);
    await app.jobs.drain();
    await app.learning.runDue();
    expect(await key()).not.toBe('key');
    expect((await junkProduct()).matched_by).not.toBe('barcode');
  });
});
