import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledCatalog, loadWithdrawn } from '../catalog/bundled.ts';
import { catalogState, perfumes } from '../schema/index.ts';
import { bumpCatalogVersion, ensureBundledCatalog, perfumeRow } from '../services/catalog.ts';
import { pinMatch, rematchAllMerchants, syncProducts } from '../services/products.ts';
import { adminHeaders, buildTestApp, closeTestApp, createMerchantWithKey, type TestApp } from './helper.ts';

/**
 * A release whose catalog withdraws a record, and a database an earlier
 * release loaded it into: the load removes it, its products wait and are
 * matched again against the new catalog, pins kept, and the admin list says
 * what changed.
 */
let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
  // the start-up rematch is a background job (on PostgreSQL, taken by a pg-boss worker when it
  // polls): let it finish before the tests below add merchants of their own
  await app.catalogUpgrade.done();
});
afterAll(() => closeTestApp(app));

const WITHDRAWN = 'davidoff-cool-water-woman-edt';
const KEPT = loadBundledCatalog().perfumes.find((p) => p.id === 'calvin-klein-euphoria-edp');

/** The withdrawn record as an earlier release shipped it. */
async function asAnEarlierReleaseLoadedIt() {
  const row = perfumeRow(
    {
      id: WITHDRAWN,
      name: 'Cool Water Woman',
      house: 'Davidoff',
      concentration: 'edt',
      gender: 'women',
      families: ['floral'],
      accords: { floral: 100, 'white floral': 80, powdery: 60, fresh: 50 },
      notes: { top: ['mandarin orange'], heart: ['carnation', 'lily of the valley'], base: ['musk'] },
      seasons: ['spring'],
      times: ['day'],
      occasions: ['office'],
    },
    null,
  );
  await app.db.insert(perfumes).values(row).onConflictDoNothing();
  await bumpCatalogVersion(app.db);
  await app.db.update(catalogState).set({ bundledHash: 'an-earlier-release' }).where(eq(catalogState.id, 1));
  return app.catalog.refresh();
}

const listed = async (merchant: string) =>
  (await app.inject({ method: 'GET', url: `/api/admin/merchants/${merchant}/products`, headers: adminHeaders })).json()
    .products as {
    merchant_product_id: string;
    sillage_perfume_id: string | null;
    status: string;
    pinned: boolean;
    match_change: { previous_perfume_id: string | null; at: string } | null;
    reason: string;
  }[];

describe('a catalog upgrade reaches merchants', () => {
  it('ships the records it withdraws, each with why, none of them still shipped', () => {
    const withdrawn = loadWithdrawn();
    const shipped = new Set(loadBundledCatalog().perfumes.map((p) => p.id));
    expect(withdrawn.map((w) => w.id)).toContain(WITHDRAWN);
    expect(withdrawn.filter((w) => shipped.has(w.id) || w.reason.length < 10)).toEqual([]);
    expect(KEPT).toBeDefined();
  });

  it('removes a withdrawn record, and matches its products again against the new catalog; pins elsewhere kept', async () => {
    const before = await asAnEarlierReleaseLoadedIt();
    expect(before.perfumes.some((p) => p.id === WITHDRAWN)).toBe(true);
    const { merchant } = await createMerchantWithKey(app);
    await syncProducts(app.db, before, merchant.id, [
      { merchant_product_id: 'cool-water-woman', name: 'Davidoff Cool Water Woman EDT 100ml', house: 'Davidoff' },
      { merchant_product_id: 'pinned-cool-water-woman', name: 'Cool Water Woman gift', house: 'Davidoff' },
      { merchant_product_id: 'euphoria', name: 'Euphoria EDP 100ml', house: 'Calvin Klein' },
    ]);
    await pinMatch(app.db, before, merchant.id, 'pinned-cool-water-woman', WITHDRAWN);
    await pinMatch(app.db, before, merchant.id, 'euphoria', KEPT?.id as string);
    const was = await listed(merchant.id);
    expect(was.find((p) => p.merchant_product_id === 'cool-water-woman')?.sillage_perfume_id).toBe(WITHDRAWN);

    const load = await ensureBundledCatalog(app.db);
    expect(load).toMatchObject({ loaded: true, withdrawn: 1 });
    const [gone] = await app.db.select().from(perfumes).where(eq(perfumes.id, WITHDRAWN));
    expect(gone).toBeUndefined();
    // waiting to be matched again: never recommended as the withdrawn perfume meanwhile
    const waiting = await listed(merchant.id);
    expect(waiting.find((p) => p.merchant_product_id === 'pinned-cool-water-woman')).toMatchObject({
      status: 'pending',
      pinned: false,
      sillage_perfume_id: null,
      match_change: { previous_perfume_id: WITHDRAWN },
    });

    const after = await app.catalog.refresh();
    const total = await rematchAllMerchants(app.db, after);
    expect(total.changed).toBeGreaterThanOrEqual(2);
    const now = await listed(merchant.id);
    for (const id of ['cool-water-woman', 'pinned-cool-water-woman']) {
      const p = now.find((x) => x.merchant_product_id === id);
      expect(p?.sillage_perfume_id, id).not.toBe(WITHDRAWN);
      expect(p?.status, id).not.toBe('pending');
      expect(p?.match_change?.previous_perfume_id, id).toBe(WITHDRAWN);
    }
    // a pin to a perfume still shipped is kept, untouched by the rematch
    expect(now.find((x) => x.merchant_product_id === 'euphoria')).toMatchObject({
      pinned: true,
      sillage_perfume_id: KEPT?.id,
      match_change: null,
    });
    // nothing more to do the second time
    expect((await rematchAllMerchants(app.db, after)).changed).toBe(0);
  });

  it('this start loaded a new shipped catalog, so it matched every merchant again in the background', async () => {
    expect(app.catalog.loadedShipped()).toBe(true);
    expect(await app.catalogUpgrade.done()).toMatchObject({ merchants: expect.any(Number), changed: 0 });
  });
});
