import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, inArray, sql } from 'drizzle-orm';
import { DATA_DIR, loadBundledCatalog, loadWithdrawn } from '../catalog/bundled.ts';
import type { HouseRecord, PerfumeRecord } from '../catalog/schema.ts';
import { buildSnapshot } from '../catalog/store.ts';
import type { CatalogHouse, CatalogPerfume, ProfileGrade } from '../catalog/types.ts';
import { checkPerfume } from '../catalog/validate.ts';
import type { Db, DbOrTx } from '../db/client.ts';
import { catalogState, houses, merchantProducts, perfumes } from '../schema/index.ts';

type PerfumeInsert = typeof perfumes.$inferInsert;

/** A file/import record as a database row; weights 1–100 become 0.01–1. */
export function perfumeRow(r: PerfumeRecord, houseAr: string | null): PerfumeInsert {
  return {
    id: r.id,
    name: r.name,
    nameAr: r.name_ar ?? null,
    house: r.house,
    houseAr: r.house_ar ?? houseAr,
    concentration: r.concentration,
    year: r.year ?? null,
    gender: r.gender,
    families: r.families ?? [],
    accords: Object.entries(r.accords ?? {}).map(([name, weight]) => ({ name, weight: weight / 100 })),
    notes: r.notes ?? {},
    seasons: r.seasons ?? [],
    times: r.times ?? [],
    occasions: r.occasions ?? [],
    aliases: r.aliases ?? [],
    imageUrl: r.image_url ?? null,
    grade: r.grade ?? null,
    inspiredBy: r.inspired_by ?? null,
    barcodes: r.barcodes ?? [],
    evidence: r.evidence ?? [],
  };
}

const UPSERT_BATCH = 1000;

/** Inserts or updates perfumes by id; tells how many were new. */
export async function upsertPerfumes(db: DbOrTx, rows: PerfumeInsert[]): Promise<{ added: number; updated: number }> {
  let added = 0;
  let updated = 0;
  for (let i = 0; i < rows.length; i += UPSERT_BATCH) {
    const batch = rows.slice(i, i + UPSERT_BATCH);
    const result = await db
      .insert(perfumes)
      .values(batch)
      .onConflictDoUpdate({
        target: perfumes.id,
        set: {
          name: sql`excluded.name`,
          nameAr: sql`excluded.name_ar`,
          house: sql`excluded.house`,
          houseAr: sql`excluded.house_ar`,
          concentration: sql`excluded.concentration`,
          year: sql`excluded.year`,
          gender: sql`excluded.gender`,
          families: sql`excluded.families`,
          accords: sql`excluded.accords`,
          notes: sql`excluded.notes`,
          seasons: sql`excluded.seasons`,
          times: sql`excluded.times`,
          occasions: sql`excluded.occasions`,
          aliases: sql`excluded.aliases`,
          imageUrl: sql`excluded.image_url`,
          grade: sql`excluded.grade`,
          inspiredBy: sql`excluded.inspired_by`,
          barcodes: sql`excluded.barcodes`,
          evidence: sql`excluded.evidence`,
          updatedAt: sql`now()`,
        },
      })
      // xmax is 0 on a freshly inserted row version, non-zero on an updated one
      .returning({ inserted: sql<boolean>`(xmax = 0)` });
    for (const r of result) {
      if (r.inserted) added++;
      else updated++;
    }
  }
  return { added, updated };
}

export async function upsertHouses(db: DbOrTx, list: readonly CatalogHouse[]): Promise<void> {
  if (list.length === 0) return;
  await db
    .insert(houses)
    .values(list.map((h) => ({ ...h })))
    .onConflictDoUpdate({
      target: houses.name,
      set: {
        nameAr: sql`coalesce(excluded.name_ar, ${houses.nameAr})`,
        aliases: sql`excluded.aliases`,
        abbreviations: sql`excluded.abbreviations`,
        region: sql`coalesce(excluded.region, ${houses.region})`,
        country: sql`coalesce(excluded.country, ${houses.country})`,
        updatedAt: sql`now()`,
      },
    });
}

/** Houses first seen in an import: created with what the rows say, never overwriting a known house. */
export async function insertMissingHouses(db: DbOrTx, list: readonly CatalogHouse[]): Promise<void> {
  if (list.length === 0) return;
  await db
    .insert(houses)
    .values(list.map((h) => ({ ...h })))
    .onConflictDoNothing();
}

export function houseFromRecord(h: HouseRecord): CatalogHouse {
  return {
    name: h.name,
    nameAr: h.name_ar,
    aliases: h.aliases ?? [],
    abbreviations: h.abbreviations ?? [],
    region: h.region,
    country: h.country,
  };
}

/** Marks the catalog changed, so every instance rebuilds its index. */
export async function bumpCatalogVersion(db: DbOrTx, bundledHash?: string): Promise<number> {
  const [row] = await db
    .insert(catalogState)
    .values({ id: 1, version: 1, bundledHash: bundledHash ?? null })
    .onConflictDoUpdate({
      target: catalogState.id,
      set: {
        version: sql`${catalogState.version} + 1`,
        updatedAt: sql`now()`,
        ...(bundledHash ? { bundledHash } : {}),
      },
    })
    .returning({ version: catalogState.version });
  return row?.version ?? 0;
}

export async function catalogVersion(db: DbOrTx): Promise<{ version: number; bundledHash: string | null }> {
  const [row] = await db
    .select({ version: catalogState.version, bundledHash: catalogState.bundledHash })
    .from(catalogState)
    .where(eq(catalogState.id, 1));
  return row ?? { version: 0, bundledHash: null };
}

/** A fingerprint of the shipped data files: a new release with new data loads it once. */
export function bundledHash(): string {
  const h = createHash('sha256');
  h.update(readFileSync(join(DATA_DIR, 'houses.json')));
  h.update(readFileSync(join(DATA_DIR, 'withdrawn.json')));
  const dir = join(DATA_DIR, 'perfumes');
  for (const f of readdirSync(dir)
    .filter((x) => x.endsWith('.json'))
    .sort()) {
    h.update(f);
    h.update(readFileSync(join(dir, f)));
  }
  return h.digest('hex');
}

/**
 * Loads the shipped catalog into the database when it is not there yet (or a
 * newer release ships different data). Perfumes imported by an operator are
 * kept: shipped records are upserted by id. Returns what was loaded.
 */
export async function ensureBundledCatalog(
  db: Db,
  log: { warn: (obj: object, msg: string) => void } = { warn: () => {} },
): Promise<{ loaded: boolean; added: number; updated: number; skipped: number; withdrawn: number }> {
  const hash = bundledHash();
  const state = await catalogVersion(db);
  if (state.bundledHash === hash) return { loaded: false, added: 0, updated: 0, skipped: 0, withdrawn: 0 };
  const bundled = loadBundledCatalog();
  const houseMap = new Map(bundled.houses.map((h) => [h.name, h]));
  const rows: PerfumeInsert[] = [];
  let skipped = 0;
  for (const r of bundled.perfumes) {
    const problems = checkPerfume(r, houseMap);
    if (problems.length) {
      skipped++;
      log.warn({ id: (r as { id?: string }).id, problems }, 'shipped perfume skipped');
      continue;
    }
    rows.push(perfumeRow(r, houseMap.get(r.house)?.name_ar ?? null));
  }
  return db.transaction(async (tx) => {
    await upsertHouses(tx, bundled.houses.map(houseFromRecord));
    const { added, updated } = await upsertPerfumes(tx, rows);
    const withdrawn = await removeWithdrawn(tx);
    await bumpCatalogVersion(tx, hash);
    return { loaded: true, added, updated, skipped, withdrawn };
  });
}

/**
 * Removes the records a release withdrew (catalog/data/withdrawn.json) from a
 * database an earlier release loaded them into. A product matched or pinned to
 * one is no longer its match: it waits to be matched again (status pending,
 * pin lifted, the withdrawn id kept as its previous perfume, the reason as its
 * match reason); the start-up rematch (plugins/app/catalog-upgrade.ts) matches
 * it against the new catalog. Returns how many records were removed.
 */
export async function removeWithdrawn(tx: DbOrTx): Promise<number> {
  const withdrawn = loadWithdrawn();
  if (withdrawn.length === 0) return 0;
  const reasons = new Map(withdrawn.map((w) => [w.id, w.reason]));
  const ids = [...reasons.keys()];
  const affected = await tx
    .select({ id: merchantProducts.id, perfume: merchantProducts.sillagePerfumeId })
    .from(merchantProducts)
    .where(inArray(merchantProducts.sillagePerfumeId, ids));
  for (const p of affected) {
    await tx
      .update(merchantProducts)
      .set({
        matchStatus: 'pending',
        sillagePerfumeId: null,
        matchPinned: false,
        matchSibling: false,
        matchConfidence: null,
        matchReason: `our catalog withdrew ${p.perfume}: ${reasons.get(p.perfume ?? '') ?? 'withdrawn'}`,
        profile: null,
        previousPerfumeId: p.perfume,
        matchChangedAt: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(eq(merchantProducts.id, p.id));
  }
  const removed = await tx.delete(perfumes).where(inArray(perfumes.id, ids)).returning({ id: perfumes.id });
  return removed.length;
}

/** Loads the catalog (the shipped data first, if the database lacks it) and builds a snapshot: for the CLI. */
export async function loadSnapshot(db: Db) {
  await ensureBundledCatalog(db);
  const { version } = await catalogVersion(db);
  const { perfumes: p, houses: h } = await loadCatalog(db);
  return buildSnapshot(version, p, h);
}

const GRADES: ReadonlySet<string> = new Set<ProfileGrade>(['confirmed', 'referenced', 'unreviewed']);
function gradeOf(value: string | null): ProfileGrade | null {
  return value !== null && GRADES.has(value) ? (value as ProfileGrade) : null;
}

export async function loadCatalog(db: DbOrTx): Promise<{ perfumes: CatalogPerfume[]; houses: CatalogHouse[] }> {
  const [perfumeRows, houseRows] = await Promise.all([
    db.select().from(perfumes).orderBy(perfumes.id),
    db.select().from(houses).orderBy(houses.name),
  ]);
  return {
    perfumes: perfumeRows.map((p) => ({
      id: p.id,
      name: p.name,
      nameAr: p.nameAr,
      house: p.house,
      houseAr: p.houseAr,
      concentration: p.concentration,
      year: p.year,
      gender: p.gender,
      families: p.families,
      accords: p.accords,
      notes: p.notes,
      seasons: p.seasons,
      times: p.times,
      occasions: p.occasions,
      aliases: p.aliases,
      imageUrl: p.imageUrl,
      grade: gradeOf(p.grade),
      inspiredBy: p.inspiredBy,
      barcodes: p.barcodes,
    })),
    houses: houseRows.map((h) => ({
      name: h.name,
      nameAr: h.nameAr,
      aliases: h.aliases,
      abbreviations: h.abbreviations,
      region: h.region,
      country: h.country,
    })),
  };
}

/**
 * A perfume of our catalog as an operator checks it (GET /api/admin/perfumes/:id, the console's
 * product page): its identity, its profile's grade, the perfume it is inspired by, and its sources
 * as stored (the `evidence` column, which scoring never reads). Null when the catalog lacks it.
 */
export async function perfumeRecord(db: DbOrTx, id: string) {
  const [p] = await db.select().from(perfumes).where(eq(perfumes.id, id)).limit(1);
  if (!p) return null;
  const [original] = p.inspiredBy
    ? await db
        .select({ id: perfumes.id, name: perfumes.name, house: perfumes.house, grade: perfumes.grade })
        .from(perfumes)
        .where(eq(perfumes.id, p.inspiredBy))
        .limit(1)
    : [];
  return {
    sillage_perfume_id: p.id,
    name: p.name,
    name_ar: p.nameAr,
    house: p.house,
    house_ar: p.houseAr,
    concentration: p.concentration,
    year: p.year,
    gender: p.gender,
    aliases: p.aliases,
    barcodes: p.barcodes,
    grade: gradeOf(p.grade),
    inspired_by: p.inspiredBy
      ? {
          sillage_perfume_id: p.inspiredBy,
          name: original?.name ?? null,
          house: original?.house ?? null,
          has_profile: gradeOf(original?.grade ?? null) !== null,
        }
      : null,
    families: p.families,
    accords: p.accords,
    notes: { top: p.notes.top ?? [], heart: p.notes.heart ?? [], base: p.notes.base ?? [] },
    evidence: p.evidence,
  };
}
