import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlsoExplore, Recommendation } from '../contracts/widget.ts';
import { buildProductMatrix, buildTaste, STRONG_FIT, scoreProducts } from '../scoring/engine.ts';
import { CompiledProducts, notesOf, referenceOf } from '../scoring/products.ts';
import { normalizeQuiz, type QuizInput } from '../scoring/quiz.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';
import { wholeCatalogShop } from './loved-shop.ts';

/**
 * "A perfume I love": a shop that sells the whole shipped catalog, and
 * shoppers who name perfumes they love (and dislike) instead of, or as well
 * as, families and accords. Each scenario is a shopper's question, answered on
 * the real catalog.
 */
const catalog = bundledSnapshot();
const perfume = (id: string) => {
  const p = catalog.byId.get(id);
  if (!p) throw new Error(`${id} is not in the catalog`);
  return p;
};
const weight = (id: string | null, accord: string) =>
  perfume(id as string).accords.find((a) => a.name === accord)?.weight ?? 0;
/** the accords a perfume is known by: its three strongest, and any at half the strongest or more */
const prominent = (id: string | null) => {
  const accords = [...perfume(id as string).accords].sort((a, b) => b.weight - a.weight);
  return accords.filter((a, r) => r < 3 || a.weight >= 0.5).map((a) => a.name);
};

function ask(shop: CompiledProducts, input: QuizInput, limit = 6) {
  const r = normalizeQuiz(input);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  const refs = {
    loved: (r.quiz.loved ?? []).map((id) => referenceOf(perfume(id))),
    disliked: (r.quiz.disliked ?? []).map((id) => referenceOf(perfume(id))),
  };
  return shop.score(r.quiz, limit, refs);
}
const ids = (rs: readonly (Recommendation | AlsoExplore)[]) => rs.map((r) => r.sillage_perfume_id);

const SAUVAGE = 'dior-sauvage-edt';
const KHAMRAH = 'lattafa-khamrah-edp';
const BR540 = 'maison-francis-kurkdjian-baccarat-rouge-540-edp';
const AMETHYST = 'lattafa-badee-al-oud-amethyst-edp';

describe('a shopper who names a perfume they love', () => {
  const shop = wholeCatalogShop({
    [SAUVAGE]: 520,
    'armaf-club-de-nuit-urban-man-elixir': 95,
    'creed-viking-edp': 1400,
  });

  it('a lover of a fresh aromatic designer scent: the perfume first, fresh aromatic ones next, no heavy oud in the top three', () => {
    const { recommendations } = ask(shop, { loved_perfumes: [SAUVAGE] });
    const [first, ...rest] = recommendations;
    expect(first?.sillage_perfume_id).toBe(SAUVAGE);
    expect(first?.similar_to).toMatchObject({ sillage_perfume_id: SAUVAGE, relation: 'same', similarity: 100 });
    // its other version in the shop is shown too (the closest thing to what was named), labelled as such
    const versions = rest.filter((r) => r.similar_to?.relation === 'version');
    expect(versions).toHaveLength(1);
    for (const r of rest.filter((x) => x.similar_to?.relation !== 'version').slice(0, 3)) {
      expect(prominent(r.sillage_perfume_id).some((a) => ['fresh spicy', 'aromatic', 'citrus'].includes(a))).toBe(true);
      expect(weight(r.sillage_perfume_id, 'oud'), r.sillage_perfume_id as string).toBeLessThan(0.3);
      expect(r.similar_to).toMatchObject({ sillage_perfume_id: SAUVAGE, relation: 'similar' });
    }
  });

  it('the loved perfume ranks first with an honest score: high, not 100, the same as its twin profile earns', () => {
    const { recommendations } = ask(shop, { loved_perfumes: [SAUVAGE] });
    const first = recommendations[0] as Recommendation;
    expect(first.match_score).toBeGreaterThanOrEqual(STRONG_FIT);
    expect(first.match_score).toBeLessThan(100);
    expect(first.fit).toBe('strong');
    // a perfume that shares its profile scores no less: the first place is the perfume's, not a score bent for it
    for (const r of recommendations.slice(1)) expect(r.match_score).toBeLessThanOrEqual(first.match_score);
  });

  it('a lover of a sweet amber-saffron scent gets perfumes of the amber family', () => {
    const { recommendations, taste_summary } = ask(shop, { loved_perfumes: [BR540] });
    expect(recommendations).toHaveLength(6);
    for (const r of recommendations) expect(perfume(r.sillage_perfume_id as string).families).toContain('amber');
    expect(taste_summary.loved_perfumes).toEqual([
      { sillage_perfume_id: BR540, name: 'Baccarat Rouge 540', house: 'Maison Francis Kurkdjian' },
    ]);
    expect(taste_summary.inferred?.accords.slice(0, 2)).toEqual(['amber', 'woody']);
    expect(taste_summary.inferred?.families).toContain('amber');
    // what the shopper said is kept apart from what loving a perfume implies
    expect(taste_summary.top_accords).toEqual([]);
    expect(taste_summary.dominant_families).toEqual([]);
  });

  it('a lover of a Middle-Eastern oud-rose perfume gets oud and rose', () => {
    const { recommendations } = ask(shop, { loved_perfumes: [AMETHYST] });
    for (const r of recommendations.slice(0, 4)) {
      expect(weight(r.sillage_perfume_id, 'oud'), r.sillage_perfume_id as string).toBeGreaterThanOrEqual(0.5);
      expect(weight(r.sillage_perfume_id, 'rose'), r.sillage_perfume_id as string).toBeGreaterThanOrEqual(0.5);
      expect(r.similar_to?.shared_accords).toEqual(expect.arrayContaining(['rose']));
    }
  });

  it('one loved and one disliked: the disliked is never shown, and what sets it apart ranks lower', () => {
    const disliked = 'montale-black-aoud-edp';
    const alone = ask(shop, { loved_perfumes: [AMETHYST] }, 24);
    const both = ask(shop, { loved_perfumes: [AMETHYST], disliked_perfumes: [disliked] }, 24);
    expect(ids([...both.recommendations, ...both.also_explore])).not.toContain(disliked);
    // Black Aoud's patchouli and animalic notes are in no loved perfume: products carrying them drop
    const scoreOf = (a: typeof alone, id: string) => a.recommendations.find((r) => r.sillage_perfume_id === id);
    const carrying = alone.recommendations.filter((r) => prominent(r.sillage_perfume_id).includes('patchouli'));
    expect(carrying.length).toBeGreaterThan(0);
    for (const r of carrying) {
      const after = scoreOf(both, r.sillage_perfume_id as string);
      expect(after?.match_score ?? 0).toBeLessThan(r.match_score);
    }
    // the loved perfume keeps its place
    expect(both.recommendations[0]?.sillage_perfume_id).toBe(AMETHYST);
    expect(both.recommendations[0]?.fit).toBe('strong');
    expect(both.taste_summary.disliked_perfumes?.[0]?.sillage_perfume_id).toBe(disliked);
  });

  it('a loved perfume and an avoided accord: nothing with it prominent, the perfume itself included', () => {
    const { recommendations, also_explore } = ask(shop, {
      loved_perfumes: [KHAMRAH],
      accord_ratings: { cinnamon: 'avoid' },
    });
    expect(recommendations.length).toBeGreaterThan(0);
    for (const r of [...recommendations, ...also_explore]) {
      expect(prominent(r.sillage_perfume_id), r.sillage_perfume_id as string).not.toContain('cinnamon');
    }
    expect(ids(recommendations)).not.toContain(KHAMRAH);
    // still Khamrah's character: sweet, vanilla, warm
    for (const r of recommendations.slice(0, 3)) {
      expect(prominent(r.sillage_perfume_id).some((a) => ['sweet', 'vanilla', 'warm spicy'].includes(a))).toBe(true);
    }
  });

  it('another concentration or flanker is near, labelled a version, and one at most', () => {
    const { recommendations } = ask(shop, { loved_perfumes: [KHAMRAH] }, 24);
    const versions = recommendations.filter((r) => r.similar_to?.relation === 'version');
    expect(versions).toHaveLength(1);
    expect(versions[0]?.sillage_perfume_id).toMatch(/^lattafa-khamrah-/);
    expect(versions[0]?.similar_to?.sillage_perfume_id).toBe(KHAMRAH);
    // the line's other flankers in the catalog take no discovery's place
    const khamrahs = catalog.perfumes.filter((p) => p.id.startsWith('lattafa-khamrah-')).length;
    expect(khamrahs).toBeGreaterThan(2);
    expect(ids(recommendations).filter((id) => id?.startsWith('lattafa-khamrah-'))).toHaveLength(2);
  });

  it('alternatives for less: under the shop’s own price of the loved perfume, close, never the perfume or a version of it', () => {
    const { also_explore } = ask(shop, { loved_perfumes: [SAUVAGE] });
    const forLess = also_explore.filter((r) => r.reason === 'for_less');
    expect(forLess.length).toBeGreaterThan(0);
    for (const r of forLess) {
      expect(r.price).toBeLessThan(520);
      expect(r.similar_to).toMatchObject({ sillage_perfume_id: SAUVAGE, relation: 'similar' });
      expect(r.similar_to?.similarity).toBeGreaterThanOrEqual(60);
      expect(r.sillage_perfume_id).not.toMatch(/^dior-sauvage/);
    }
    // the dearer ones are never offered as "for less"
    expect(ids(forLess)).not.toContain('creed-viking-edp');
  });

  it('alternatives for less than the shopper’s own price, when the shop does not sell the loved perfume', () => {
    const priced = wholeCatalogShop(Object.fromEntries(catalog.perfumes.map((p, i) => [p.id, i % 2 ? 150 : 600])));
    const cheap = new CompiledProducts(
      1,
      priced.products.filter((p) => !p.perfumeId?.startsWith('maison-francis-kurkdjian-baccarat-rouge-540')),
    );
    const without = ask(cheap, { loved_perfumes: [BR540] });
    expect(without.also_explore.filter((r) => r.reason === 'for_less')).toEqual([]);
    const { also_explore } = ask(cheap, { loved_perfumes: [BR540], for_less_than: 200 });
    const forLess = also_explore.filter((r) => r.reason === 'for_less');
    expect(forLess.length).toBeGreaterThan(0);
    for (const r of forLess) expect(r.price).toBe(150);
  });

  it('a loved perfume the shop does not sell: the closest it does sell, none claimed to be it', () => {
    const products = wholeCatalogShop().products.filter((p) => !p.perfumeId?.startsWith('dior-sauvage'));
    const without = new CompiledProducts(1, products);
    const { recommendations } = ask(without, { loved_perfumes: [SAUVAGE] });
    expect(recommendations.length).toBe(6);
    for (const r of recommendations) expect(r.similar_to?.relation).toBe('similar');
    expect(recommendations[0]?.sillage_perfume_id).toBe('armaf-club-de-nuit-urban-man-elixir');
  });

  it('two loved perfumes of different styles: each brings its own kind, and each recommendation says which', () => {
    const { recommendations } = ask(shop, { loved_perfumes: [KHAMRAH, SAUVAGE] });
    expect(ids(recommendations.slice(0, 2)).sort()).toEqual([SAUVAGE, KHAMRAH].sort());
    const said = new Set(recommendations.map((r) => r.similar_to?.sillage_perfume_id));
    expect(said).toEqual(new Set([KHAMRAH, SAUVAGE]));
  });

  it('a recommendation that shares little with the loved perfume does not claim to be like it', () => {
    const { recommendations, also_explore } = ask(shop, { loved_perfumes: [SAUVAGE], families: ['oud'] }, 24);
    for (const r of [...recommendations, ...also_explore]) {
      if (r.similar_to) expect(r.similar_to.similarity).toBeGreaterThanOrEqual(60);
      else expect(r.similar_to).toBeUndefined();
    }
  });
});

describe('similarity, for all products and loved perfumes', () => {
  // the perfumes with a profile of their own: an identity without one has nothing to be similar by
  const perfumes = catalog.perfumes.filter((p) => p.grade !== null);
  const entry = (i: number) => {
    const p = perfumes[i % perfumes.length] as (typeof perfumes)[number];
    return { profile: p, line: `l${i}`, house: p.house, notes: notesOf(p.notes) };
  };
  const arb = fc.record({
    shelf: fc.uniqueArray(fc.nat(perfumes.length - 1), { minLength: 1, maxLength: 40 }),
    loved: fc.uniqueArray(fc.nat(perfumes.length - 1), { minLength: 1, maxLength: 5 }),
    families: fc.subarray(['oud', 'amber', 'fresh', 'floral']),
  });

  it('scores are integers 0–100, the same each time, and a product’s score does not depend on the others on the shelf', () => {
    fc.assert(
      fc.property(arb, ({ shelf, loved, families }) => {
        const q = normalizeQuiz({ loved_perfumes: loved.map((i) => perfumes[i]?.id as string), families });
        if (!q.ok) throw new Error('refused');
        const refs = { loved: loved.map((i) => referenceOf(perfumes[i] as (typeof perfumes)[number])) };
        const all = scoreProducts(buildProductMatrix(shelf.map(entry)), buildTaste(q.quiz, refs));
        const again = scoreProducts(buildProductMatrix(shelf.map(entry)), buildTaste(q.quiz, refs));
        expect(again.scores).toEqual(all.scores);
        shelf.forEach((p, i) => {
          expect(Number.isInteger(all.scores[i])).toBe(true);
          const alone = scoreProducts(buildProductMatrix([entry(p)]), buildTaste(q.quiz, refs));
          expect(alone.scores[0]).toBe(all.scores[i]);
          expect(alone.similarity[0]).toBe(all.similarity[i]);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('a perfume is as similar to itself as anything can be: 100, and the highest score on any shelf', () => {
    fc.assert(
      fc.property(arb, ({ shelf, loved }) => {
        const id = loved[0] as number;
        const q = normalizeQuiz({ loved_perfumes: [perfumes[id]?.id as string] });
        if (!q.ok) throw new Error('refused');
        const refs = { loved: [referenceOf(perfumes[id] as (typeof perfumes)[number])] };
        const s = scoreProducts(buildProductMatrix([entry(id), ...shelf.map(entry)]), buildTaste(q.quiz, refs));
        expect(s.similarity[0]).toBe(100);
        expect(Math.max(...s.scores)).toBe(s.scores[0]);
      }),
      { numRuns: 60 },
    );
  });
});
