import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { houses, perfumes } from '../schema/index.ts';
import { csvRecord, importCatalog, readRows } from '../services/catalog-import.ts';
import { buildTestApp, closeTestApp, type TestApp } from './helper.ts';

let app: TestApp;
beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(() => closeTestApp(app));

const fixture = join(import.meta.dirname, 'fixtures', 'catalog-import.csv');

describe('catalog import', () => {
  it('imports the good rows of a CSV and names the problem of every bad one', async () => {
    const before = app.catalog.current().version;
    const summary = await importCatalog(app.db, readRows(fixture));
    expect(summary.read).toBe(8);
    expect(summary.added).toBe(3);
    expect(summary.updated).toBe(0);
    const byRow = Object.fromEntries(summary.rejected.map((r) => [r.row, r.reason]));
    expect(Object.keys(byRow).map(Number)).toEqual([3, 4, 5, 6, 7]);
    expect(byRow[3]).toMatch(/unknown accord "unicorn"/);
    expect(byRow[4]).toMatch(/2 accords, want 4 to 8/);
    expect(byRow[5]).toMatch(/id/);
    expect(byRow[6]).toMatch(/duplicate id in this file \(first at row 2\)/);
    expect(byRow[7]).toMatch(/strongest first/);
    expect(summary.housesCreated).toEqual(['Test House']);
    expect(summary.catalogVersion).toBeGreaterThan(before);

    const [amber] = await app.db.select().from(perfumes).where(eq(perfumes.id, 'test-house-amber-night-edp'));
    expect(amber).toMatchObject({
      name: 'Amber Night',
      nameAr: 'ليلة العنبر',
      houseAr: 'بيت الاختبار',
      families: ['amber', 'woody'],
      notes: { top: ['saffron'], heart: ['rose'], base: ['amber', 'oud'] },
      aliases: ['Amber Nite'],
    });
    expect(amber?.accords[0]).toEqual({ name: 'amber', weight: 1 });
    const [house] = await app.db.select().from(houses).where(eq(houses.name, 'Test House'));
    expect(house?.nameAr).toBe('بيت الاختبار');
  });

  it('upserts by id: importing again updates instead of duplicating, and keeps the shipped catalog', async () => {
    const count = (await app.db.select({ id: perfumes.id }).from(perfumes)).length;
    const summary = await importCatalog(app.db, readRows(fixture));
    expect(summary).toMatchObject({ added: 0, updated: 3 });
    expect((await app.db.select({ id: perfumes.id }).from(perfumes)).length).toBe(count);
  });

  it('refuses a second record of a perfume already in the catalog under another id', async () => {
    const summary = await importCatalog(
      app.db,
      (async function* () {
        yield {
          row: 1,
          record: {
            ...(csvRecord({
              id: 'other-id',
              name: 'Amber Night',
              house: 'test house',
              concentration: 'edp',
              gender: 'unisex',
              families: 'amber',
              accords: 'amber:100|woody:70|vanilla:55|warm spicy:40',
              heart_notes: 'rose',
              seasons: 'winter',
              times: 'night',
              occasions: 'evening',
            }) as object),
          },
        };
      })(),
    );
    expect(summary.rejected[0]?.reason).toMatch(
      /same name, house and concentration as perfume test-house-amber-night-edp/,
    );
  });

  it('the service rebuilds its search index after an import', async () => {
    const snap = await app.catalog.refresh();
    expect(snap.byId.get('test-house-ocean-edc')?.name).toBe('Ocean');
    const res = await app.inject({
      method: 'POST',
      url: '/api/widget/lookup',
      payload: { api_key: await testKey(), query: 'amber nite' },
    });
    expect(res.json().results[0].sillage_perfume_id).toBe('test-house-amber-night-edp');
  });

  it('streams JSON Lines and reports lines that are not JSON', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const dir = mkdtempSync(join((await import('node:os')).tmpdir(), 'imp-'));
    const file = join(dir, 'rows.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ id: 'test-house-green-edt', name: 'Green', house: 'Test House', concentration: 'edt', gender: 'unisex', families: ['green'], accords: { green: 100, herbal: 70, fresh: 50, citrus: 30 }, notes: { top: ['galbanum'] }, seasons: ['spring'], times: ['day'], occasions: ['daily'] })}\n{not json\n\n`,
    );
    const summary = await importCatalog(app.db, readRows(file));
    expect(summary.added).toBe(1);
    expect(summary.rejected).toEqual([{ row: 2, reason: 'line is not valid JSON' }]);
  });
});

async function testKey() {
  const { createMerchantWithKey } = await import('./helper.ts');
  return (await createMerchantWithKey(app)).key;
}
