import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { KEY_CACHE_TTL_MS } from '../auth/key-store.ts';
import { rowsOf } from '../db/client.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { overAdmissionBound } from '../lib/shared-counter.ts';
import { RECONCILE_MS, WIDGET_RATE_LIMITS } from '../plugins/external/rate-limit.ts';
import {
  adminHeaders,
  BASE_FEED,
  createMerchantAndKey,
  type Instance,
  outputsOf,
  poll,
  QUIZ,
  request,
  shownProducts,
  startInstance,
  stopAllInstances,
  syncProducts,
} from './cluster.ts';
import { TEST_DATABASE_URL, TEST_REDIS_URL } from './helper.ts';

/**
 * Several real service processes on one PostgreSQL database and one Redis,
 * as a production deployment runs them: start-up together, shared rate
 * limits, revocation and product syncs seen by every instance.
 * (Skipped with a printed line, by tests/global-setup.ts, without both servers.)
 */
describe.runIf(TEST_DATABASE_URL && TEST_REDIS_URL)('several instances on one PostgreSQL and one Redis', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let instances: Instance[] = [];

  beforeAll(async () => {
    scratch = await createScratchDatabase(TEST_DATABASE_URL as string, 'sillage_cluster');
  });
  afterAll(async () => {
    await stopAllInstances();
    await scratch?.database.close();
    await scratch?.drop();
  });
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      process.stderr.write(outputsOf(instances));
    });
  });

  /** Three instances started at the same moment on the (still empty) scratch database. */
  async function startCluster(): Promise<Instance[]> {
    const started = await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        startInstance({ name, databaseUrl: scratch.url, redisUrl: TEST_REDIS_URL as string }),
      ),
    );
    instances = started;
    await Promise.all(started.map((i) => i.ready()));
    return started;
  }
  /** The cluster of the first test, or a new one when that test was not run (-t). */
  const cluster = async () => (instances.length ? instances : startCluster());

  it('three instances starting at once on a fresh database all become ready, each migration applied once', async () => {
    const [a, b, c] = await startCluster();
    for (const i of [a, b, c]) {
      expect((await request(`${i?.url}/readyz`)).json()).toEqual({ status: 'ok', database: 'ok' });
    }
    // drizzle's own table: one row per applied migration, keyed by the migration's folder time
    const rows = rowsOf<{ hash: string; created_at: string }>(
      await scratch.database.db.execute(
        sql`select hash, created_at from drizzle.__drizzle_migrations order by created_at`,
      ),
    );
    const journal = (await import('../drizzle/meta/_journal.json', { with: { type: 'json' } })).default;
    expect(rows.map((r) => Number(r.created_at))).toEqual(journal.entries.map((e) => e.when));
    expect(new Set(rows.map((r) => r.hash)).size).toBe(journal.entries.length);
    // and every instance has the shipped perfume catalog, loaded by whichever got there first
    const { key } = await createMerchantAndKey(a as Instance, 'start');
    for (const i of [a, b, c]) {
      const found = await request(`${i?.url}/api/widget/lookup`, { body: { api_key: key, query: 'Khamrah' } });
      expect(found.status).toBe(200);
      expect(found.json<{ results: { sillage_perfume_id: string }[] }>().results[0]?.sillage_perfume_id).toBe(
        'lattafa-khamrah-edp',
      );
    }
  });

  it(`rate limits are shared: one key from one address gets ${WIDGET_RATE_LIMITS.verify} verify calls a minute across all instances, more only within the documented bound`, async () => {
    const nodes = await cluster();
    const { key } = await createMerchantAndKey(nodes[0] as Instance, 'rl');
    const limit = WIDGET_RATE_LIMITS.verify;
    const sent = limit + 30;
    const answers = [];
    const sends: { instance: number; at: number }[] = [];
    for (let n = 0; n < sent; n++) {
      const node = nodes[n % nodes.length] as Instance;
      sends.push({ instance: n % nodes.length, at: performance.now() });
      answers.push(await request(`${node.url}/api/widget/verify`, { body: { api_key: key } }));
    }
    const ok = answers.filter((r) => r.status === 200);
    const limited = answers.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(sent);
    // the first `limit` calls are served, whichever instance each reached: no one is refused below the limit
    expect(answers.slice(0, limit).every((r) => r.status === 200)).toBe(true);
    // above it only what the other instances admitted before their next reconciliation told them
    // how long an instance may answer from a total that misses the others' calls: one interval,
    // plus the time a call takes to be answered and counted (the 90th percentile, twice, for a loaded machine)
    const times = answers.map((r) => r.ms).sort((x, y) => x - y);
    const bound = overAdmissionBound(sends, RECONCILE_MS + 2 * (times[Math.floor(times.length * 0.9)] as number));
    process.stdout.write(
      `shared rate limit: ${ok.length} of ${sent} verify calls answered 200 over ${nodes.length} instances (limit ${limit}, bound +${bound})\n`,
    );
    expect(ok.length - limit).toBeLessThanOrEqual(bound);
    expect(ok.length).toBeLessThan(limit + 30);
    for (const r of limited) {
      expect(r.headers['retry-after']).toMatch(/^\d+$/);
      expect(r.json()).toMatchObject({ code: 'rate_limited' });
    }
    // every instance refused some: the count is shared, not each one's own
    const refusedBy = new Set(answers.flatMap((r, n) => (r.status === 429 ? [n % nodes.length] : [])));
    expect(refusedBy.size).toBe(nodes.length);
    // the shared counter is in Redis, under the key's digest and the client address (127.0.0.1 for all),
    // and holds every call once the instances have reconciled
    const redis = new Redis(TEST_REDIS_URL as string);
    try {
      const digest = createHash('sha256').update(key).digest('hex').slice(0, 20);
      await poll('every call counted in Redis', async () =>
        Number(await redis.get(`sillage-rl-POST/api/widget/verify-${digest}|127.0.0.1`)) === sent ? true : undefined,
      );
    } finally {
      redis.disconnect();
    }
  });

  it('a key revoked through one instance is refused by every instance within a second', async () => {
    const nodes = await cluster();
    const [a] = nodes as [Instance];
    const { key, keyId } = await createMerchantAndKey(a, 'revoke');
    // The event operation answers after the key check like any other, and its 1000 a
    // minute leave room to ask every few milliseconds.
    const call = (node: Instance) =>
      request(`${node.url}/api/widget/event`, { body: { api_key: key, type: 'widget_loaded' }, timeoutMs: 5000 });
    for (const node of nodes) expect((await call(node)).status).toBe(202);
    // Every instance has just read the key, so its cache entry has a full lifetime
    // (KEY_CACHE_TTL_MS) ahead: an instance that heard nothing of the revoke would go on
    // accepting the key for about that long.
    await Promise.all(nodes.map(async (node) => expect((await call(node)).status).toBe(202)));
    const revoke = await request(`${a.url}/api/admin/keys/${keyId}/revoke`, { method: 'POST', headers: adminHeaders });
    expect(revoke.status).toBe(200);
    const refusedAt = await Promise.all(
      nodes.map((node) =>
        poll(
          `${node.name} to refuse the revoked key`,
          async () => {
            const res = await call(node);
            if (res.status === 202) return undefined;
            expect(res.status).toBe(403);
            expect(res.json()).toMatchObject({ code: 'revoked_api_key' });
            return res.at;
          },
          { timeoutMs: 10_000, intervalMs: 5 },
        ),
      ),
    );
    const propagationMs = Math.max(...refusedAt) - revoke.at;
    process.stdout.write(
      `revocation: refused by all ${nodes.length} instances ${Math.round(propagationMs)} ms after the revoke's answer\n`,
    );
    expect(propagationMs).toBeLessThan(1000);
    // and faster than the cache lifetime could explain: the instances were told
    expect(propagationMs).toBeLessThan(KEY_CACHE_TTL_MS / 2);
  });

  it('a product synced through one instance is scored by the others within a second', async () => {
    const nodes = await cluster();
    const [a, ...others] = nodes as [Instance, ...Instance[]];
    const { merchantId, key } = await createMerchantAndKey(a, 'sync');
    await syncProducts(a, merchantId, BASE_FEED);
    // Each other instance gets its own client address: polling score on two
    // instances must not run into the 100-a-minute limit of one shopper.
    const score = (node: Instance, n: number) =>
      request(`${node.url}/api/widget/score`, {
        body: { api_key: key, locale: 'en', limit: 24, quiz: QUIZ },
        localAddress: `127.0.0.${10 + n}`,
        timeoutMs: 5000,
      });
    // the others have the merchant's catalog cached before the sync
    for (const [n, node] of others.entries()) {
      const res = await score(node, n);
      expect(res.status).toBe(200);
      // what fits this oud lover of the two (only what fits is shown)
      expect(shownProducts(res).length).toBeGreaterThan(0);
      for (const id of shownProducts(res)) expect(['khamrah', 'sauvage']).toContain(id);
    }
    // an oud perfume: it fits the quiz, so once an instance has it, its answer shows it
    const added = { merchant_product_id: 'black-aoud', name: 'Montale Black Aoud EDP', house: 'Montale', price: 540 };
    const synced = await syncProducts(a, merchantId, [...BASE_FEED, added]);
    expect(synced.json()).toMatchObject({ upserted: 3, matched: 3 });
    const seenAt = await Promise.all(
      others.map((node, n) =>
        poll(
          `${node.name} to score the synced product`,
          async () => {
            const res = await score(node, n);
            expect(res.status).toBe(200);
            return shownProducts(res).includes('black-aoud') ? res.at : undefined;
          },
          { timeoutMs: 10_000, intervalMs: 20 },
        ),
      ),
    );
    const visibleMs = Math.max(...seenAt) - synced.at;
    process.stdout.write(
      `product sync: scored by the ${others.length} other instances ${Math.round(visibleMs)} ms after the sync's answer\n`,
    );
    expect(visibleMs).toBeLessThan(1000);
  });

  it('a barcode two shops teach through two instances matches a third shop’s junk product, scored on the third (docs/learning.md)', async () => {
    const [a, b, c] = (await cluster()) as [Instance, Instance, Instance];
    // a valid EAN-13 (GS1 prefix 629), the same bottle in every shop
    const barcode = '6291100000012';
    const junk = await createMerchantAndKey(c, 'learn-junk');
    await syncProducts(c, junk.merchantId, [{ merchant_product_id: 'item-7', name: 'Item 7', price: 150, barcode }]);
    for (const [node, label] of [
      [a, 'learn-a'],
      [b, 'learn-b'],
    ] as const) {
      const teacher = await createMerchantAndKey(node, label);
      await syncProducts(node, teacher.merchantId, [
        { merchant_product_id: 'k', name: 'Lattafa Khamrah EDP 100ml', price: 155, barcode },
      ]);
    }
    const started = performance.now();
    // learnt in the background (pg-boss, on whichever instance takes it), the junk product matched again
    const matched = await poll(
      'the junk product to be matched by its barcode',
      async () => {
        const res = await request(`${c.url}/api/admin/merchants/${junk.merchantId}/products`, {
          headers: adminHeaders,
        });
        const [p] = res.json<{
          products: { matched_by: string | null; sillage_perfume_id: string | null; reason: string }[];
        }>().products;
        return p?.matched_by === 'barcode' ? p : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    expect(matched).toMatchObject({ sillage_perfume_id: 'lattafa-khamrah-edp' });
    expect(matched.reason).toMatch(/learnt from 2 shops/);
    process.stdout.write(
      `barcode learnt and applied across instances in ${Math.round(performance.now() - started)} ms\n`,
    );
    // and an instance that had the junk shop's products compiled scores it now
    await poll(
      'the third instance to score the product matched by barcode',
      async () => {
        const res = await request(`${c.url}/api/widget/score`, {
          body: { api_key: junk.key, locale: 'en', limit: 24, quiz: QUIZ },
          localAddress: '127.0.0.20',
          timeoutMs: 5000,
        });
        return shownProducts(res).includes('item-7') || undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
  });
});
