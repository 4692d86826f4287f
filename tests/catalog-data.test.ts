import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAlike } from '../catalog/alike.ts';
import { DATA_DIR, loadAlikeResolutions, loadBundledCatalog, loadWithdrawn } from '../catalog/bundled.ts';
import { ownerKey, shopListingProblem } from '../catalog/evidence.ts';
import { type HarvestSource, sourceRef } from '../catalog/harvest/sources.ts';
import { checkCatalog, type Problem } from '../catalog/validate.ts';
import { normalizeText } from '../lib/text.ts';

const { houses, perfumes, profiled, legacy } = loadBundledCatalog();

describe('the shipped perfume catalog', () => {
  it('passes the schema and vocabulary checks, record by record', () => {
    const problems = checkCatalog(perfumes, houses);
    expect(problems.map((p) => `${p.id}: ${p.message}`)).toEqual([]);
  });

  it('cites a source for every fact of every record outside the older grouped files, and grades no profile above its sources', () => {
    const backlog: Problem[] = [];
    const problems = checkCatalog(perfumes, houses, { legacy, backlog });
    expect(problems.map((p) => `${p.id}: ${p.message}`)).toEqual([]);
    // the older grouped files say they are unreviewed, and nothing else may
    for (const p of profiled) expect(p.grade === 'unreviewed', p.id).toBe(legacy.has(p.id));
  });

  it("rests no fact on a source excluded from harvesting (the labelled test listings' own origin)", () => {
    const sources = JSON.parse(
      readFileSync(join(DATA_DIR, '..', 'harvest', 'sources.json'), 'utf8'),
    ) as HarvestSource[];
    const excluded = sources.filter((s) => s.excluded).map((s) => sourceRef(s));
    const excludedOwners = new Set(sources.filter((s) => s.excluded).map((s) => ownerKey(s.owner)));
    expect(excluded.length).toBeGreaterThan(0);
    for (const p of perfumes) {
      for (const e of p.evidence ?? []) {
        expect(excluded.includes(e.source), `${p.id} cites ${e.source}`).toBe(false);
        expect(e.kind === 'shop' && excludedOwners.has(ownerKey(e.owner)), `${p.id} cites ${e.owner}`).toBe(false);
      }
    }
  });

  it("rests no identity on a decant shop's listing, nor on a listing that is not the perfume's bottle", () => {
    const sources = JSON.parse(
      readFileSync(join(DATA_DIR, '..', 'harvest', 'sources.json'), 'utf8'),
    ) as HarvestSource[];
    const decants = new Set(sources.filter((s) => s.sells === 'decants').map((s) => sourceRef(s)));
    expect(decants.size).toBeGreaterThan(0);
    for (const p of perfumes) {
      for (const e of p.evidence ?? []) {
        // a listing cited for what it claims ("inspired by") backs no identity and may say so
        if (e.kind !== 'shop' || !e.supports.includes('identity')) continue;
        expect(decants.has(e.source), `${p.id} cites a decant shop: ${e.gave}`).toBe(false);
        expect(shopListingProblem(e.gave), `${p.id}: ${e.gave}`).toBeNull();
      }
    }
  });

  it('ships no record it lists as withdrawn: the import would delete it from every database', () => {
    const ids = new Set(perfumes.map((p) => p.id));
    const withdrawn = loadWithdrawn();
    expect(withdrawn.length).toBeGreaterThan(0);
    for (const w of withdrawn) expect(ids.has(w.id), `${w.id} is shipped and withdrawn`).toBe(false);
  });

  it("cites a shop's listing from a repository only from a registered shop's catalog, at the commit read", () => {
    const sources = JSON.parse(
      readFileSync(join(DATA_DIR, '..', 'harvest', 'sources.json'), 'utf8'),
    ) as HarvestSource[];
    const shops = new Set(sources.filter((s) => s.kind === 'shop' && !s.excluded).map((s) => sourceRef(s)));
    for (const p of perfumes) {
      for (const e of p.evidence ?? []) {
        if (e.kind === 'shop' && e.source.startsWith('github:'))
          expect(shops.has(e.source), `${p.id}: ${e.source}`).toBe(true);
      }
    }
  });

  it('has at least 600 perfumes from 80 houses, 150 of them from Middle-Eastern houses', () => {
    const region = new Map(houses.map((h) => [h.name, h.region]));
    expect(perfumes.length).toBeGreaterThanOrEqual(600);
    expect(new Set(perfumes.map((p) => p.house)).size).toBeGreaterThanOrEqual(80);
    expect(perfumes.filter((p) => region.get(p.house) === 'middle-east').length).toBeGreaterThanOrEqual(150);
  });

  it("holds no record with another perfume's notes: near-identical pyramids of different lines are each accepted by hand", () => {
    const { unresolved, stale } = checkAlike(perfumes, loadAlikeResolutions());
    expect(unresolved.map((p) => `${p.a} ~ ${p.b}`)).toEqual([]);
    expect(stale).toEqual([]);
  });

  it('has no duplicate ids nor two records of one house, name and concentration', () => {
    expect(new Set(perfumes.map((p) => p.id)).size).toBe(perfumes.length);
    const identities = perfumes.map((p) => `${normalizeText(p.house)}|${normalizeText(p.name)}|${p.concentration}`);
    expect(new Set(identities).size).toBe(perfumes.length);
  });

  it('gives every perfume an Arabic house name, and every profile 4–8 accords and notes', () => {
    const arabicHouse = new Map(houses.map((h) => [h.name, h.name_ar]));
    for (const p of perfumes) expect(arabicHouse.get(p.house), p.id).toMatch(/[\u0600-\u06FF]/);
    for (const p of profiled) {
      const n = Object.keys(p.accords).length;
      expect(n, p.id).toBeGreaterThanOrEqual(4);
      expect(n, p.id).toBeLessThanOrEqual(8);
      expect([...(p.notes.top ?? []), ...(p.notes.heart ?? []), ...(p.notes.base ?? [])].length, p.id).toBeGreaterThan(
        0,
      );
    }
  });

  it('keeps flankers and concentrations apart (Sauvage ×4, BR540 ×2, Aventus and Aventus for Her)', () => {
    const ids = new Set(perfumes.map((p) => p.id));
    for (const id of [
      'dior-sauvage-edt',
      'dior-sauvage-edp',
      'dior-sauvage-parfum',
      'dior-sauvage-elixir',
      'maison-francis-kurkdjian-baccarat-rouge-540-edp',
      'maison-francis-kurkdjian-baccarat-rouge-540-extrait',
      'creed-aventus-edp',
      'creed-aventus-for-her-edp',
      'lattafa-khamrah-edp',
      'lattafa-khamrah-qahwa-edp',
    ]) {
      expect(ids.has(id), id).toBe(true);
    }
  });
});
