import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildSnapshot, type CatalogSnapshot } from '../catalog/store.ts';
import type { CatalogHouse, CatalogPerfume, ProfileGrade } from '../catalog/types.ts';
import type { ProductInput } from '../matching/listing.ts';
import { catalogProfile } from '../matching/profile.ts';
import {
  explainListing,
  inProcessMatcher,
  profileOf,
  type RecognisedProduct,
  recogniseInSlices,
  recogniseListings,
  recogniseProduct,
  type StoredDecision,
  scoringProductOf,
} from '../matching/recognise.ts';

/**
 * What a listing is and the profile it is recommended by, from the best evidence there is
 * (matching/recognise.ts): a perfume's own profile by its grade, the merchant's words, the perfume
 * it is inspired by, the words of its name, or none. On a small catalog made for it: records with a
 * confirmed, referenced or unreviewed profile, identities without one, and identities sold as the
 * answer to another perfume.
 */
const PROFILE = {
  families: ['woody', 'fresh'],
  accords: [
    { name: 'fruity', weight: 1 },
    { name: 'woody', weight: 0.8 },
    { name: 'smoky', weight: 0.6 },
    { name: 'citrus', weight: 0.5 },
  ],
  notes: { top: ['pineapple', 'bergamot'], heart: ['birch'], base: ['musk', 'oakmoss'] },
  seasons: ['spring', 'summer'],
  times: ['day'],
  occasions: ['daily', 'office'],
};
const NONE = { families: [], accords: [], notes: {}, seasons: [], times: [], occasions: [] };

const perfume = (
  id: string,
  name: string,
  house: string,
  grade: ProfileGrade | null,
  more: Partial<CatalogPerfume> = {},
): CatalogPerfume => ({
  id,
  name,
  nameAr: null,
  house,
  houseAr: null,
  concentration: 'edp',
  year: null,
  gender: 'men',
  ...(grade ? PROFILE : NONE),
  aliases: [],
  imageUrl: null,
  grade,
  inspiredBy: null,
  barcodes: [],
  ...more,
});

const house = (name: string, nameAr: string | null = null): CatalogHouse => ({
  name,
  nameAr,
  aliases: [],
  abbreviations: [],
  region: null,
  country: null,
});

/** built inside each test: a mutant of the code it reaches is covered by the tests that run it */
const catalog = (): CatalogSnapshot =>
  buildSnapshot(
    1,
    [
      perfume('creed-aventus-edp', 'Aventus', 'Creed', 'confirmed', { nameAr: 'أفينتوس', houseAr: 'كريد' }),
      perfume('creed-viking-edp', 'Viking', 'Creed', 'referenced'),
      perfume('creed-silver-edp', 'Silver Mountain Water', 'Creed', 'unreviewed'),
      perfume('armaf-cdni-edp', 'Club de Nuit Intense', 'Armaf', null, {
        nameAr: 'كلوب دي نوي إنتنس',
        houseAr: 'أرماف',
        inspiredBy: 'creed-aventus-edp',
      }),
      // inspired by a perfume that has no profile of its own to lend
      perfume('armaf-echo-edp', 'Echo', 'Armaf', null, { inspiredBy: 'armaf-plain-edp' }),
      perfume('armaf-plain-edp', 'Plain', 'Armaf', null),
      // inspired by a perfume the catalog does not hold
      perfume('armaf-lost-edp', 'Lost', 'Armaf', null, { inspiredBy: 'gone-edp' }),
      // its own profile and an original: its own wins
      perfume('armaf-own-edp', 'Own', 'Armaf', 'unreviewed', { inspiredBy: 'creed-aventus-edp' }),
    ],
    [house('Creed', 'كريد'), house('Armaf', 'أرماف')],
  );

const listing = (name: string, houseName: string, more: Partial<ProductInput> = {}): ProductInput => ({
  merchantProductId: name,
  name,
  house: houseName,
  price: 100,
  currency: 'SAR',
  imageUrl: null,
  productUrl: null,
  accords: null,
  notes: null,
  description: null,
  available: true,
  salePrice: null,
  sizes: null,
  barcode: null,
  barcodeIssues: [],
  ...more,
});

/** a match made earlier, or a pin */
const stored = (perfumeId: string | null, more: Partial<StoredDecision> = {}): StoredDecision => ({
  status: perfumeId ? 'matched' : 'unmatched',
  perfumeId,
  confidence: 1,
  reason: 'test',
  pinned: false,
  sibling: false,
  ...more,
});

const DESCRIBED = 'An oriental blend of oud, saffron and Taif rose over a base of amber.';
const shape = (r: RecognisedProduct) => ({
  status: r.status,
  quality: r.quality,
  perfume: r.perfume?.id ?? null,
  inspiredBy: r.inspiredBy?.id ?? null,
  basis: r.profile ? (r.profile.source === 'catalog' ? 'catalog' : r.profile.basis) : null,
});

describe('a product matched to a perfume with a profile of its own', () => {
  it('takes it, graded: full for confirmed and referenced, unreviewed for the older files', () => {
    const snap = catalog();
    const of = (id: string) => recogniseProduct(listing('x', 'Creed'), snap, stored(id));
    expect(shape(of('creed-aventus-edp'))).toEqual({
      status: 'matched',
      quality: 'full',
      perfume: 'creed-aventus-edp',
      inspiredBy: null,
      basis: 'catalog',
    });
    expect(of('creed-viking-edp').quality).toBe('full');
    expect(of('creed-silver-edp').quality).toBe('unreviewed');
    expect(of('creed-aventus-edp').profile).toEqual(
      catalogProfile(snap.byId.get('creed-aventus-edp') as CatalogPerfume),
    );
  });

  it('a sibling match is a sibling whatever the grade; a pin is the product itself', () => {
    const snap = catalog();
    for (const id of ['creed-aventus-edp', 'creed-silver-edp']) {
      const r = recogniseProduct(listing('x', 'Creed'), snap, stored(id, { sibling: true }));
      expect([r.quality, r.sibling], id).toEqual(['sibling', true]);
      const pinned = recogniseProduct(listing('x', 'Creed'), snap, stored(id, { sibling: true, pinned: true }));
      expect(pinned.sibling).toBe(false);
      expect(pinned.quality).not.toBe('sibling');
    }
  });

  it('its own profile comes before the merchant’s words and before the perfume it is inspired by', () => {
    const r = recogniseProduct(listing('Own', 'Armaf', { description: DESCRIBED }), catalog(), stored('armaf-own-edp'));
    expect(shape(r)).toEqual({
      status: 'matched',
      quality: 'unreviewed',
      perfume: 'armaf-own-edp',
      inspiredBy: null,
      basis: 'catalog',
    });
  });
});

describe('a product matched to an identity without a profile', () => {
  it('is recognised, and profiled from the shop’s own words first: described', () => {
    const r = recogniseProduct(
      listing('Club de Nuit Intense', 'Armaf', { description: DESCRIBED }),
      catalog(),
      stored('armaf-cdni-edp'),
    );
    expect(shape(r)).toEqual({
      status: 'matched',
      quality: 'described',
      perfume: 'armaf-cdni-edp',
      inspiredBy: null,
      basis: ['description'],
    });
  });

  it('else takes the profile of the perfume it is inspired by: inspired, the original named', () => {
    const snap = catalog();
    const r = recogniseProduct(listing('Club de Nuit Intense', 'Armaf'), snap, stored('armaf-cdni-edp'));
    expect(shape(r)).toEqual({
      status: 'matched',
      quality: 'inspired',
      perfume: 'armaf-cdni-edp',
      inspiredBy: 'creed-aventus-edp',
      basis: 'catalog',
    });
    expect(r.profile).toEqual(catalogProfile(snap.byId.get('creed-aventus-edp') as CatalogPerfume));
  });

  it('an original of its own with no profile, or one the catalog lacks, lends nothing', () => {
    const snap = catalog();
    for (const id of ['armaf-echo-edp', 'armaf-lost-edp', 'armaf-plain-edp']) {
      const r = recogniseProduct(listing('Echo', 'Armaf'), snap, stored(id));
      expect(shape(r), id).toEqual({ status: 'matched', quality: null, perfume: id, inspiredBy: null, basis: null });
      // recognised, never recommended
      expect(scoringProductOf(r), id).toBeNull();
    }
  });

  it('else the words of its name: guessed, after the perfume it is inspired by', () => {
    const snap = catalog();
    const named = listing('Echo Oud Rose', 'Armaf');
    expect(shape(recogniseProduct(named, snap, stored('armaf-echo-edp')))).toEqual({
      status: 'matched',
      quality: 'guessed',
      perfume: 'armaf-echo-edp',
      inspiredBy: null,
      basis: ['name'],
    });
    // an original with a profile comes before the words of the name
    expect(recogniseProduct(named, snap, stored('armaf-cdni-edp')).quality).toBe('inspired');
    // the name's words beside a description: described, not guessed
    const both = recogniseProduct({ ...named, description: DESCRIBED }, snap, stored('armaf-echo-edp'));
    expect([both.quality, both.profile?.basis]).toEqual(['described', ['description', 'name']]);
  });

  it('the merchant’s accords or notes count as its own words, as a description does', () => {
    const snap = catalog();
    const accords = recogniseProduct(listing('Echo', 'Armaf', { accords: ['oud'] }), snap, stored('armaf-cdni-edp'));
    expect([accords.quality, accords.profile?.basis]).toEqual(['described', ['accords']]);
    const notes = recogniseProduct(
      listing('Echo', 'Armaf', { notes: { top: ['rose'] } }),
      snap,
      stored('armaf-cdni-edp'),
    );
    expect([notes.quality, notes.profile?.basis]).toEqual(['described', ['notes']]);
  });
});

describe('a product not matched', () => {
  it('the shop’s words: partial; its name’s words alone: guessed; nothing: unmatched', () => {
    const snap = catalog();
    expect(
      shape(recogniseProduct(listing('Layali', 'Atelier', { description: DESCRIBED }), snap, stored(null))),
    ).toEqual({ status: 'partial', quality: 'partial', perfume: null, inspiredBy: null, basis: ['description'] });
    expect(shape(recogniseProduct(listing('Oud Rose', 'Atelier'), snap, stored(null)))).toEqual({
      status: 'partial',
      quality: 'guessed',
      perfume: null,
      inspiredBy: null,
      basis: ['name'],
    });
    expect(shape(recogniseProduct(listing('Layali', 'Atelier'), snap, stored(null)))).toEqual({
      status: 'unmatched',
      quality: null,
      perfume: null,
      inspiredBy: null,
      basis: null,
    });
  });

  it('a stored match to a perfume that has left the catalog falls back to the shop’s words', () => {
    const r = recogniseProduct(listing('Layali', 'Atelier', { description: DESCRIBED }), catalog(), stored('gone-edp'));
    expect(shape(r)).toEqual({
      status: 'partial',
      quality: 'partial',
      perfume: null,
      inspiredBy: null,
      basis: ['description'],
    });
  });
});

describe('the engine’s view', () => {
  it('our names for a product that is our perfume, whatever its profile rests on; the original’s for an inspired one', () => {
    const snap = catalog();
    const inspired = scoringProductOf(recogniseProduct(listing('CDNI', 'Armaf'), snap, stored('armaf-cdni-edp')));
    expect(inspired).toMatchObject({
      perfumeId: 'armaf-cdni-edp',
      quality: 'inspired',
      names: {
        en: { name: 'Club de Nuit Intense', house: 'Armaf' },
        ar: { name: 'كلوب دي نوي إنتنس', house: 'أرماف' },
      },
      inspiredBy: {
        id: 'creed-aventus-edp',
        en: { name: 'Aventus', house: 'Creed' },
        ar: { name: 'أفينتوس', house: 'كريد' },
      },
    });
    const unreviewed = scoringProductOf(recogniseProduct(listing('x', 'Creed'), snap, stored('creed-silver-edp')));
    expect(unreviewed?.names?.en).toEqual({ name: 'Silver Mountain Water', house: 'Creed' });
    expect(unreviewed?.inspiredBy).toBeUndefined();
    // a sibling is a close version, not the product: never our names for it
    const sibling = scoringProductOf(
      recogniseProduct(listing('x', 'Creed'), snap, stored('creed-aventus-edp', { sibling: true })),
    );
    expect(sibling?.quality).toBe('sibling');
    expect(sibling?.names).toBeUndefined();
    const partial = scoringProductOf(
      recogniseProduct(listing('Layali', 'Atelier', { description: DESCRIBED }), snap, stored(null)),
    );
    expect(partial?.names).toBeUndefined();
    expect(partial?.inspiredBy).toBeUndefined();
  });
});

describe('through the matcher', () => {
  it('an identity without a profile is recognised by its name, and takes the profile it is inspired by', () => {
    const r = recogniseProduct(listing('Armaf Club de Nuit Intense EDP 105ml', 'Armaf'), catalog());
    expect(shape(r)).toEqual({
      status: 'matched',
      quality: 'inspired',
      perfume: 'armaf-cdni-edp',
      inspiredBy: 'creed-aventus-edp',
      basis: 'catalog',
    });
  });
});

describe('for every record and listing', () => {
  const GRADES = [null, 'confirmed', 'referenced', 'unreviewed'] as const;
  const IDS = ['a', 'b', 'c'];
  const arbitraryCatalog = fc.array(
    fc.record({ grade: fc.constantFrom(...GRADES), inspiredBy: fc.option(fc.constantFrom(...IDS, 'gone')) }),
    { minLength: IDS.length, maxLength: IDS.length },
  );
  const arbitraryListing = fc.record({
    name: fc.constantFrom('Layali', 'Oud Rose', 'Musk'),
    description: fc.option(fc.constantFrom(DESCRIBED, 'A fine gift.')),
    accords: fc.option(fc.constantFrom(['oud'], ['unknown accord'])),
  });
  const arbitraryDecision = fc.record({
    perfumeId: fc.option(fc.constantFrom(...IDS, 'gone')),
    sibling: fc.boolean(),
    pinned: fc.boolean(),
  });

  it('quality is full only for a matched record’s own confirmed or referenced profile; inspired only for an original’s own; a profile always says what it rests on', () => {
    fc.assert(
      fc.property(arbitraryCatalog, arbitraryListing, arbitraryDecision, (records, l, d) => {
        const snap = buildSnapshot(
          1,
          records.map((r, i) => perfume(IDS[i] as string, `P${i}`, 'H', r.grade, { inspiredBy: r.inspiredBy })),
          [house('H')],
        );
        const r = recogniseProduct(
          listing(l.name, 'Atelier', { description: l.description, accords: l.accords ? [...l.accords] : null }),
          snap,
          stored(d.perfumeId, { sibling: d.sibling, pinned: d.pinned }),
        );
        const own = r.perfume?.grade ? catalogProfile(r.perfume) : null;
        const full =
          r.perfume !== null && !r.sibling && (r.perfume.grade === 'confirmed' || r.perfume.grade === 'referenced');
        expect(r.quality === 'full').toBe(full);
        if (full) expect(r.profile).toEqual(own);
        // a record's own profile, whenever it has one, is the one taken
        if (own) expect(r.profile).toEqual(own);
        if (r.quality === 'inspired') {
          expect(r.inspiredBy?.id).toBe(r.perfume?.inspiredBy);
          expect(r.profile).toEqual(catalogProfile(r.inspiredBy as CatalogPerfume));
        } else expect(r.inspiredBy).toBeNull();
        // the profile is the merchant's, and its words beyond the name, exactly when described or partial
        const fromShop = r.profile?.source === 'merchant' && r.profile.basis?.some((b) => b !== 'name') === true;
        expect(r.quality === 'described' || r.quality === 'partial').toBe(fromShop);
        expect(r.quality === 'described').toBe(fromShop && r.perfume !== null);
        expect(r.quality === 'guessed').toBe(r.profile?.source === 'merchant' && !fromShop);
        // no quality without a profile, no profile without a quality
        expect(r.quality === null).toBe(r.profile === null);
        // recognised whenever the perfume is ours, whatever its profile
        expect(r.status === 'matched').toBe(r.perfume !== null);
        const p = scoringProductOf(r);
        expect(p === null).toBe(r.profile === null);
        if (p) {
          expect(p.names !== undefined).toBe(r.perfume !== null && !r.sibling);
          expect(p.inspiredBy?.id).toBe(r.inspiredBy?.id);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('profileOf is the whole decision: the same as recognising with the record given', () => {
    const snap = catalog();
    const l = listing('Echo Oud', 'Armaf');
    for (const p of snap.perfumes) {
      const found = profileOf(l, p, false, snap);
      const r = recogniseProduct(l, snap, stored(p.id));
      expect([found.quality, found.inspiredBy?.id ?? null], p.id).toEqual([r.quality, r.inspiredBy?.id ?? null]);
    }
  });
});

describe('what else a recognised product carries', () => {
  it('a stored decision as it was stored: its confidence and reason, its pin; only a matched one names a perfume', () => {
    const snap = catalog();
    const kept = recogniseProduct(
      listing('x', 'Creed'),
      snap,
      stored('creed-aventus-edp', { confidence: null, reason: null, pinned: true }),
    );
    expect(kept.match).toEqual({ perfumeId: 'creed-aventus-edp', confidence: 0, reason: '', sibling: false });
    expect(kept.pinned).toBe(true);
    expect(recogniseProduct(listing('x', 'Creed'), snap, stored('creed-aventus-edp')).pinned).toBe(false);
    expect(recogniseProduct(listing('x', 'Creed'), snap).pinned).toBe(false);
    // a product stored as partial keeps no perfume, whatever id its row still holds
    const partial = recogniseProduct(listing('Layali', 'Atelier', { description: DESCRIBED }), snap, {
      ...stored('creed-aventus-edp'),
      status: 'partial',
    });
    expect([partial.status, partial.perfume, partial.match.perfumeId]).toEqual(['partial', null, null]);
    // a sibling decision for a perfume that has left the catalog: no perfume, so no sibling
    const gone = recogniseProduct(listing('Layali', 'Atelier'), snap, stored('gone-edp', { sibling: true }));
    expect([gone.status, gone.sibling]).toEqual(['unmatched', false]);
  });

  it('the merchant’s picture first, the perfume’s next; the line of our perfume, else the listing’s own', () => {
    const snap = buildSnapshot(
      1,
      [perfume('h-a-edp', 'Alpha', 'H', 'confirmed', { imageUrl: 'https://img.example/a.jpg' })],
      [house('H')],
    );
    const own = listing('Alpha', 'H', { imageUrl: 'https://shop.example/a.jpg' });
    expect(recogniseProduct(own, snap, stored('h-a-edp')).imageUrl).toBe('https://shop.example/a.jpg');
    const matched = recogniseProduct(listing('Alpha', 'H'), snap, stored('h-a-edp'));
    expect([matched.imageUrl, matched.line, matched.lineHouse]).toEqual(['https://img.example/a.jpg', 'h|alpha', 'H']);
    const not = recogniseProduct(listing('Layali Oud', 'Atelier'), snap, stored(null));
    expect([not.imageUrl, not.line, not.lineHouse]).toEqual([null, 'merchant|atelier|layali oud', 'Atelier']);
  });

  it('for whom: our perfume’s, else what the listing says; the price the shopper pays; a sold-out product is never scored', () => {
    const snap = buildSnapshot(
      1,
      [
        perfume('h-m-edp', 'Mmm', 'H', 'confirmed', { gender: 'men' }),
        perfume('h-w-edp', 'Www', 'H', 'confirmed', { gender: 'women' }),
        perfume('h-u-edp', 'Uuu', 'H', 'confirmed', { gender: 'unisex' }),
        perfume('h-x-edp', 'Xxx', 'H', 'confirmed', { gender: null }),
      ],
      [house('H')],
    );
    const genderOf = (id: string | null, name: string) =>
      scoringProductOf(recogniseProduct(listing(name, 'H', { accords: ['oud'] }), snap, stored(id)))?.gender;
    expect(genderOf('h-m-edp', 'Mmm for women')).toBe('men');
    expect(genderOf('h-w-edp', 'Www')).toBe('women');
    expect(genderOf('h-u-edp', 'Uuu for men')).toBe('unisex');
    expect(genderOf('h-x-edp', 'Xxx for women')).toBe('women');
    expect(genderOf(null, 'Layali for men')).toBe('men');
    expect(genderOf(null, 'Layali')).toBeNull();
    const priced = scoringProductOf(recogniseProduct(listing('Mmm', 'H', { salePrice: 80 }), snap, stored('h-m-edp')));
    expect([priced?.price, priced?.merchantProductId, priced?.perfumeId]).toEqual([80, 'Mmm', 'h-m-edp']);
    const full = scoringProductOf(recogniseProduct(listing('Mmm', 'H'), snap, stored('h-m-edp')));
    expect(full?.price).toBe(100);
    const soldOut = recogniseProduct(listing('Mmm', 'H', { available: false }), snap, stored('h-m-edp'));
    expect(soldOut.quality).toBe('full');
    expect(scoringProductOf(soldOut)).toBeNull();
  });

  it('a listing that is not a perfume takes no profile from its words, matched or not', () => {
    const snap = catalog();
    const lotion = listing('Oud Rose Body Lotion', 'Atelier', { description: DESCRIBED });
    expect(shape(recogniseProduct(lotion, snap, stored(null)))).toMatchObject({ status: 'unmatched', quality: null });
    expect(shape(recogniseProduct(lotion, snap, stored('armaf-echo-edp')))).toMatchObject({
      status: 'matched',
      quality: null,
    });
  });
});

describe('a list of listings', () => {
  const row = (id: unknown, name = `Oud ${String(id)}`) => ({ merchant_product_id: id, name, house: 'Atelier' });

  it('each row checked on its own: a bad row or a repeated id is a problem named by its place, the rest recognised', () => {
    const { recognised, problems } = recogniseListings(
      [row('a'), { name: 'no id', house: 'x' }, row('b'), row('a', 'Oud again'), row(7)],
      catalog(),
    );
    expect(recognised.map((r) => r.listing.merchantProductId)).toEqual(['a', 'b', '7']);
    expect(problems).toEqual([
      { index: 1, merchantProductId: undefined, message: expect.stringMatching(/merchant_product_id/) },
      { index: 3, merchantProductId: 'a', message: 'merchant_product_id appears twice in the list' },
    ]);
  });

  it('in slices, the same answer as at once: places counted in the whole list, an id repeated across slices refused', async () => {
    const snap = catalog();
    const rows = [row('a'), { name: 'bad' }, row('b'), row('c'), row('a', 'Oud again'), row('d'), row('b', 'Oud b2')];
    const whole = recogniseListings(rows, snap);
    for (const size of [1, 2, 3, 7, 10]) {
      const sliced = await recogniseInSlices(rows, size, async (slice) => recogniseListings(slice, snap));
      expect(sliced.problems, `size ${size}`).toEqual(whole.problems);
      expect(
        sliced.recognised.map((r) => r.listing.merchantProductId),
        `size ${size}`,
      ).toEqual(whole.recognised.map((r) => r.listing.merchantProductId));
    }
    expect(whole.problems.map((p) => p.index)).toEqual([1, 4, 6]);
    // a slice answering fewer rows than it was given: the rest are simply not recognised
    const short = await recogniseInSlices(rows.slice(0, 4), 4, async () => ({
      recognised: recogniseListings([rows[0]], snap).recognised,
      problems: [],
    }));
    expect(short.recognised.map((r) => r.listing.merchantProductId)).toEqual(['a']);
  });

  it('the in-process matcher: listings, stored products and explanations, as the worker answers them', async () => {
    const snap = catalog();
    const m = inProcessMatcher(snap);
    const { recognised } = await m.listings('merchant', [row('a', 'Creed Aventus EDP')]);
    expect(recognised[0]?.perfume?.id).toBe('creed-aventus-edp');
    const [again] = await m.products('merchant', [listing('Creed Aventus EDP', 'Creed')]);
    expect(again?.perfume?.id).toBe('creed-aventus-edp');
    const [why] = await m.explain('merchant', [{ name: 'Creed Aventus EDP 100ml', house: 'Creed' }]);
    expect(why).toEqual(explainListing({ name: 'Creed Aventus EDP 100ml', house: 'Creed' }, snap));
  });

  it('an explanation: the listing as read, the house and where it was found, the matcher’s answer and its candidates', () => {
    const why = explainListing({ name: 'Aventus EDT 100ml for men', house: 'Creed' }, catalog());
    expect(why).toMatchObject({
      parsed: {
        concentration: 'edt',
        gender: 'men',
        size: { value: 100, unit: 'ml' },
        form: 'full',
        not_perfume: null,
        kind: 'spray',
        alcohol_free: null,
        contents: [],
      },
      house: { name: 'Creed', from: 'house' },
      matcher: { perfume_id: 'creed-aventus-edp', sibling: true, why: { kind: 'matched' } },
    });
    expect(why.parsed.words).toContain('aventus');
    expect(why.candidates[0]).toEqual({
      sillage_perfume_id: 'creed-aventus-edp',
      name: 'Aventus',
      concentration: 'edp',
      score: expect.any(Number),
    });
    const lotion = explainListing({ name: 'Aventus Body Lotion', house: 'Creed' }, catalog());
    expect(lotion.parsed.not_perfume).not.toBeNull();
    expect(lotion.parsed.kind).toBe('other');
    expect(lotion.matcher.perfume_id).toBeNull();
    // bakhoor named after a perfume is bakhoor, and matched to no perfume
    const bakhoor = explainListing({ name: 'بخور كريد افينتوس 40 جرام', house: 'Creed' }, catalog());
    expect(bakhoor.parsed.kind).toBe('bakhoor');
    expect(bakhoor.matcher.perfume_id).toBeNull();
  });

  it('through the matcher: a perfume of ours with its own profile is full; a concentration we lack is a sibling', () => {
    const snap = catalog();
    expect(shape(recogniseProduct(listing('Creed Aventus EDP 100ml', 'Creed'), snap))).toEqual({
      status: 'matched',
      quality: 'full',
      perfume: 'creed-aventus-edp',
      inspiredBy: null,
      basis: 'catalog',
    });
    const sibling = recogniseProduct(listing('Creed Aventus EDT 100ml', 'Creed'), snap);
    expect([sibling.quality, sibling.sibling, sibling.perfume?.id]).toEqual(['sibling', true, 'creed-aventus-edp']);
    // the same listing again: the same answer (from the matches kept)
    expect(recogniseProduct(listing('Creed Aventus EDT 100ml', 'Creed'), snap).match).toEqual(sibling.match);
  });
});

describe('a sibling of an identity without a profile', () => {
  it('says it is a sibling to the engine, whatever its profile rests on, and carries none of our names', () => {
    const p = scoringProductOf(
      recogniseProduct(
        listing('Sahara', 'Armaf', { description: DESCRIBED }),
        catalog(),
        stored('armaf-cdni-edp', { sibling: true }),
      ),
    );
    expect([p?.quality, p?.sibling, p?.names]).toEqual(['described', true, undefined]);
    const own = scoringProductOf(recogniseProduct(listing('Sahara', 'Armaf'), catalog(), stored('armaf-cdni-edp')));
    expect(own?.sibling).toBeUndefined();
  });
});

describe("a merchant's own answer and what merchants' answers teach (matching/answers.ts)", () => {
  const oudRose = { notes: ['oud', 'rose'], accords: ['woody'], inspired_by: null };

  it('an identity without a profile is described by its merchant’s answer at once; a product not matched gets a partial profile from it', () => {
    const snap = catalog();
    const r = recogniseProduct(listing('Plain', 'Armaf', { answer: oudRose }), snap, stored('armaf-plain-edp'));
    expect(r).toMatchObject({ status: 'matched', quality: 'described', inspiredBy: null });
    expect(r.profile).toMatchObject({ source: 'merchant', basis: ['answer'] });
    const unknown = recogniseProduct(listing('Mystery Oud 2', 'Nobody', { answer: oudRose }), snap, stored(null));
    expect(unknown).toMatchObject({ status: 'partial', quality: 'partial' });
  });

  it('an answer never overrides a perfume’s own profile', () => {
    const snap = catalog();
    const r = recogniseProduct(listing('Viking', 'Creed', { answer: oudRose }), snap, stored('creed-viking-edp'));
    expect(r.quality).toBe('full');
    expect(r.profile?.source).toBe('catalog');
  });

  it('the original a merchant names lends its profile, said by the merchant; our record’s own original comes first', () => {
    const snap = catalog();
    const answered = { notes: [], accords: [], inspired_by: 'creed-viking-edp' };
    const r = recogniseProduct(listing('Plain', 'Armaf', { answer: answered }), snap, stored('armaf-plain-edp'));
    expect(r).toMatchObject({ quality: 'inspired', inspiredFrom: 'merchant' });
    expect(r.inspiredBy?.id).toBe('creed-viking-edp');
    const recorded = recogniseProduct(listing('CDNI', 'Armaf', { answer: answered }), snap, stored('armaf-cdni-edp'));
    expect(recorded).toMatchObject({ quality: 'inspired', inspiredFrom: 'catalog' });
    expect(recorded.inspiredBy?.id).toBe('creed-aventus-edp');
  });

  it('the original merchants’ answers in force name lends its profile to every shop’s product of the perfume, never to a sibling version', () => {
    const snap = catalog();
    const learnt = { profiles: new Map(), inspired: new Map([['armaf-plain-edp', 'creed-viking-edp']]) };
    const r = recogniseProduct(listing('Plain', 'Armaf'), snap, stored('armaf-plain-edp'), learnt);
    expect(r).toMatchObject({ quality: 'inspired', inspiredFrom: 'shops' });
    expect(r.inspiredBy?.id).toBe('creed-viking-edp');
    const sibling = recogniseProduct(
      listing('Plain', 'Armaf'),
      snap,
      stored('armaf-plain-edp', { sibling: true }),
      learnt,
    );
    expect(sibling.quality).toBeNull();
    // the merchant's own word about its own product comes before what others say
    const own = recogniseProduct(
      listing('Plain', 'Armaf', { answer: { notes: [], accords: [], inspired_by: 'creed-aventus-edp' } }),
      snap,
      stored('armaf-plain-edp'),
      learnt,
    );
    expect(own.inspiredBy?.id).toBe('creed-aventus-edp');
  });
});

describe('what shops taught, for a product', () => {
  const taught = () => {
    const profile = catalogProfile(catalog().byId.get('creed-viking-edp') as CatalogPerfume);
    return {
      profiles: new Map([['armaf-plain-edp', { profile: { ...profile, source: 'shops' as const }, shops: 3 }]]),
    };
  };

  it('the profile shops agree on serves the perfume’s own products, with how many shops, before the merchant’s answer', () => {
    const snap = catalog();
    const r = recogniseProduct(
      listing('Plain', 'Armaf', { answer: { notes: ['oud', 'rose'], accords: [], inspired_by: null } }),
      snap,
      stored('armaf-plain-edp'),
      taught(),
    );
    expect(r).toMatchObject({ quality: 'shops', shops: 3 });
  });

  it('never a sibling version’s, nor a product not matched; learnt profiles without originals are read as none', () => {
    const snap = catalog();
    expect(
      recogniseProduct(listing('Plain', 'Armaf'), snap, stored('armaf-plain-edp', { sibling: true }), taught()).quality,
    ).toBeNull();
    expect(recogniseProduct(listing('Plain', 'Armaf'), snap, stored(null), taught()).quality).toBeNull();
    const other = recogniseProduct(listing('Echo', 'Armaf'), snap, stored('armaf-echo-edp'), taught());
    expect([other.quality, other.inspiredBy]).toEqual([null, null]);
  });
});
