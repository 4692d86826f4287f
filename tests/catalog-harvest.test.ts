import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evidenceProblems } from '../catalog/evidence.ts';
import { type HarvestedListing, harvest, harvestInspired, proposalId } from '../catalog/harvest/harvest.ts';
import { MAX_CLAIM_TEXT, MAX_ORIGINAL_WORDS, splitInspiredClaim } from '../catalog/harvest/inspired.ts';
import {
  extractListings,
  type HarvestSource,
  MAX_DESCRIPTION,
  MAX_LISTINGS_PER_SOURCE,
  sourceRef,
} from '../catalog/harvest/sources.ts';
import { buildSnapshot } from '../catalog/store.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

function source(owner: string, n = 1): HarvestSource {
  return {
    id: `${owner}-${n}`,
    shop: owner,
    owner,
    country: 'SA',
    kind: 'shop',
    why: 'test',
    repo: `${owner}/catalog`,
    path: `products-${n}.json`,
    commit: 'a'.repeat(40),
    url: `https://github.com/${owner}/catalog`,
    licence: 'none',
    extract: { format: 'json', items: '', title: ['name'], house: 'brand' },
    listings: 0,
  };
}

const listing = (s: HarvestSource, title: string, houseField = ''): HarvestedListing => ({
  source: s,
  title,
  houseField,
});

describe('reading listings out of a shop catalog', () => {
  it('reads JSON items by a dot path, the title from several fields and the house from one', () => {
    const json = JSON.stringify({ data: { products: [{ brand: 'Lattafa', name: 'Khamrah', type: 'EDP' }, {}] } });
    expect(
      extractListings(json, {
        format: 'json',
        items: 'data.products',
        title: ['brand', 'name', 'type'],
        house: 'brand',
      }),
    ).toEqual([{ title: 'Lattafa Khamrah EDP', house: 'Lattafa' }]);
    expect(() => extractListings('{"a":1}', { format: 'json', items: 'b', title: ['name'] })).toThrow(/no array/);
  });

  it('reads CSV rows by column, quoted commas and a byte-order mark included', () => {
    const csv = '\uFEFFname,brand,size\n"Club de Nuit, Intense",Armaf,105 ml\n';
    expect(extractListings(csv, { format: 'csv', title: ['name', 'size'], house: 'brand' })).toEqual([
      { title: 'Club de Nuit, Intense 105 ml', house: 'Armaf' },
    ]);
  });

  it('reads source code by a pattern with named groups, escapes decoded', () => {
    const code = `const p = [{ name: "Hawas \\u00e9t\\u00e9", brand: "Rasasi" }, { name: "Asad &amp; Co", brand: "Lattafa" }];`;
    expect(
      extractListings(code, { format: 'regex', pattern: 'name: "(?<title>[^"]+)", brand: "(?<house>[^"]+)"' }),
    ).toEqual([
      { title: 'Hawas été', house: 'Rasasi' },
      { title: 'Asad & Co', house: 'Lattafa' },
    ]);
  });

  it('reads at most MAX_LISTINGS_PER_SOURCE listings, however many the file holds', () => {
    const many = JSON.stringify(Array.from({ length: MAX_LISTINGS_PER_SOURCE + 5 }, (_, i) => ({ name: `P ${i}` })));
    expect(extractListings(many, { format: 'json', items: '', title: ['name'] })).toHaveLength(MAX_LISTINGS_PER_SOURCE);
  });

  it('reads a description, its spaces folded and its length capped, and gives none where the rule names none', () => {
    const long = `Inspired by\n  Aventus.   ${'x'.repeat(MAX_DESCRIPTION)}`;
    const [json] = extractListings(JSON.stringify([{ name: 'Khamrah', about: long }]), {
      format: 'json',
      items: '',
      title: ['name'],
      description: 'about',
    });
    expect(json?.description?.startsWith('Inspired by Aventus. xx')).toBe(true);
    expect(json?.description).toHaveLength(MAX_DESCRIPTION);
    expect(
      extractListings('name,about\nKhamrah,"  Gourmand  and   sweet "\n', {
        format: 'csv',
        title: ['name'],
        description: 'about',
      }),
    ).toEqual([{ title: 'Khamrah', house: '', description: 'Gourmand and sweet' }]);
    expect(
      extractListings('{ t: "Asad", d: "Lattafa \\"Asad\\"", }', {
        format: 'regex',
        pattern: 't: "(?<title>[^"]+)", d: "(?<description>(?:[^"\\\\]|\\\\.)*)"',
      }),
    ).toEqual([{ title: 'Asad', house: '', description: 'Lattafa "Asad"' }]);
    // no description field in the rule, or an empty one: no description at all
    expect(extractListings('[{"name":"Asad","about":"x"}]', { format: 'json', items: '', title: ['name'] })).toEqual([
      { title: 'Asad', house: '' },
    ]);
    expect(
      extractListings('[{"name":"Asad","about":"  "}]', {
        format: 'json',
        items: '',
        title: ['name'],
        description: 'about',
      }),
    ).toEqual([{ title: 'Asad', house: '' }]);
  });

  it('reads numbers as words, other values as nothing, a field broken over lines as one line, and a BOM before JSON', () => {
    const json = '\uFEFF[{"name":"Club de\\n  Nuit","size":105,"flag":true,"brand":{"x":1}}]';
    expect(
      extractListings(json, { format: 'json', items: '', title: ['name', 'size', 'flag'], house: 'brand' }),
    ).toEqual([{ title: 'Club de Nuit 105', house: '' }]);
    // a field with nothing in it adds no space
    expect(
      extractListings('[{"brand":" ","name":"Khamrah"}]', { format: 'json', items: '', title: ['brand', 'name'] }),
    ).toEqual([{ title: 'Khamrah', house: '' }]);
    // a path through a null is no array, not a crash
    expect(() => extractListings('{"data":null}', { format: 'json', items: 'data.products', title: ['name'] })).toThrow(
      /no array at "data.products"/,
    );
  });

  it('decodes the escapes source code writes a title with', () => {
    const code = String.raw`n: "Eau d\'Issey \"Pour\" \\ Homme\/Men", n: "L&#39;Interdit &#039;Rouge&apos; &quot;X&quot;"`;
    expect(extractListings(code, { format: 'regex', pattern: 'n: "(?<title>(?:[^"\\\\]|\\\\.)+)"' })).toEqual([
      { title: `Eau d'Issey "Pour" \\ Homme/Men`, house: '' },
      { title: `L'Interdit 'Rouge' "X"`, house: '' },
    ]);
  });

  it('names a listing by its repository, path and commit', () => {
    expect(sourceRef(source('shop-a'))).toBe(`github:shop-a/catalog/products-1.json@${'a'.repeat(40)}`);
  });
});

describe('harvesting identities from shops', () => {
  const snapshot = bundledSnapshot();
  const a = source('shop-a.com');
  const a2 = source('shop-a.com', 2);
  const b = source('shop-b.com');
  const c = source('shop-c.com');

  it('proposes a perfume the catalog lacks with the number of independent shops that list it', () => {
    const result = harvest(snapshot, [
      listing(a, 'Lattafa Qimmah Eau de Parfum 100ml for women'),
      listing(a2, 'Lattafa Qimmah EDP 100 ml'),
      listing(b, 'LATTAFA QIMMAH EDP 100ML WOMEN'),
      listing(c, 'Lattafa Qimmah 100ml'),
    ]);
    const qimmah = result.proposals.find((p) => p.name.toLowerCase() === 'qimmah');
    expect(qimmah).toMatchObject({ house: 'Lattafa', houseKnown: true, concentration: 'edp', gender: 'women' });
    // two files of one owner are one shop; the listing that states no concentration names the line, not the EDP
    expect(qimmah?.shops).toBe(2);
    expect(qimmah?.owners).toEqual(['shop-a.com', 'shop-b.com']);
    expect(qimmah?.evidence.every((e) => e.kind === 'shop' && e.supports.includes('identity'))).toBe(true);
    expect(proposalId(qimmah as NonNullable<typeof qimmah>)).toBe('lattafa-qimmah-edp');
  });

  it("gives the catalog's own records their shops' listings as evidence, enough for an identity from two owners", () => {
    const result = harvest(snapshot, [
      listing(a, 'Lattafa Khamrah Eau de Parfum 100ml'),
      listing(b, 'Khamrah EDP 100 ml', 'Lattafa Perfumes'),
      listing(c, 'Lattafa Khamrah 100ml'),
    ]);
    const evidence = result.known.get('lattafa-khamrah-edp') ?? [];
    expect(new Set(evidence.map((e) => e.owner))).toEqual(new Set(['shop-a.com', 'shop-b.com']));
    const record = { id: 'x', name: 'Khamrah', house: 'Lattafa', concentration: 'edp', gender: 'unisex', evidence };
    expect(evidenceProblems(record, false).problems.filter((p) => p.startsWith('identity'))).toEqual([]);
    expect(result.proposals).toEqual([]);
  });

  it('never passes off a body spray or a gift set as the perfume', () => {
    const result = harvest(snapshot, [
      listing(a, 'Lattafa Qimmah Body Spray 250ml'),
      listing(b, 'Lattafa Qimmah EDP Gift Set'),
    ]);
    expect(result.proposals).toEqual([]);
    expect(result.stats.notPerfume).toBe(2);
  });

  it("counts only a perfume's bottle: not a sample, a miniature, a decant shop's pour, nor an answer to it", () => {
    const decants = { ...source('decants.example'), sells: 'decants' as const };
    const result = harvest(snapshot, [
      listing(a, 'عينة لطافة خمرة او دو برفيوم 2مل'),
      listing(b, 'MINI LATTAFA KHAMRAH 30ML EDP'),
      listing(c, 'Lattafa Khamrah EDP Travel Spray'),
      listing(decants, 'Lattafa Khamrah EDP 100ml'),
      listing(a, 'خمرة من لطافة 100 مل بديل عطر كيليان أنجيلز شير أو دو برفيوم'),
    ]);
    expect(result.known.get('lattafa-khamrah-edp')).toBeUndefined();
    expect(result.stats.notPerfume).toBe(5);
    // a tester is the perfume itself
    const tester = harvest(snapshot, [listing(a, 'تستر لطافة خمرة او دو برفيوم 100مل')]);
    expect(tester.known.get('lattafa-khamrah-edp')?.map((e) => e.owner)).toEqual(['shop-a.com']);
  });

  it('proposes a house it does not know from the house field, and skips a placeholder house', () => {
    const result = harvest(snapshot, [
      listing(a, 'Velvet Dusk EDP 100 ml', 'Maison Inconnue'),
      listing(b, 'Maison Inconnue Velvet Dusk Eau de Parfum'),
      listing(c, 'Velvet Dusk EDP', 'AS SHOWN'),
    ]);
    const p = result.proposals.find((x) => x.house === 'Maison Inconnue');
    expect(p).toMatchObject({ houseKnown: false, concentration: 'edp', shops: 2 });
    expect(p?.name.toLowerCase()).toBe('velvet dusk');
  });
});

describe("a shop's catalog in two scripts", () => {
  const snapshot = bundledSnapshot();
  const en = source('shop-a.com');
  const ar = source('shop-a.com', 2);
  const b = source('shop-b.com');

  it("lends a proposal the Arabic name the same shop gives it, by which another shop's Arabic listing is found", () => {
    const latin: HarvestedListing = listing(en, 'Lattafa Qimmah Eau de Parfum 100ml');
    const arabic: HarvestedListing = listing(ar, 'لطافة قمة أو دو برفيوم 100 مل');
    latin.twin = arabic;
    arabic.twin = latin;
    const other = listing(b, 'عطر لطافة قمة او دو بارفان 100 مل');
    const result = harvest(snapshot, [latin, arabic, other]);
    const qimmah = result.proposals.find((p) => p.name.toLowerCase() === 'qimmah');
    expect(qimmah?.nameAr).toBe('قمه');
    expect(qimmah?.shops).toBe(2);
    expect(qimmah?.evidence.some((e) => e.owner === 'shop-b.com' && e.supports.includes('name_ar'))).toBe(true);
  });

  it('without the twin, an Arabic listing alone proposes nothing and lends no name', () => {
    const result = harvest(snapshot, [
      listing(en, 'Lattafa Qimmah Eau de Parfum 100ml'),
      listing(b, 'عطر لطافة قمة او دو بارفان 100 مل'),
    ]);
    const qimmah = result.proposals.find((p) => p.name.toLowerCase() === 'qimmah');
    expect(qimmah?.shops).toBe(1);
    expect(qimmah?.nameAr).toBeNull();
  });
});

describe("a concentration word in a perfume's name", () => {
  it('proposes "Salvo Elixir" sold as an EDP, not an Elixir named Salvo', () => {
    // the catalog as it was before Salvo Elixir EDP became a record of its own
    const { perfumes, houses } = bundledSnapshot();
    const snapshot = buildSnapshot(
      1,
      perfumes.filter((p) => p.id !== 'maison-alhambra-salvo-elixir-edp'),
      houses,
    );
    const result = harvest(snapshot, [
      listing(source('shop-a.com'), 'Maison Alhambra Salvo Elixir EDP 100ml'),
      listing(source('shop-b.com'), 'MAISON ALHAMBRA SALVO ELIXIR EAU DE PARFUM 100 ML'),
    ]);
    const salvo = result.proposals.find((p) => p.name.toLowerCase().startsWith('salvo'));
    expect(salvo).toMatchObject({ concentration: 'edp', shops: 2 });
    expect(salvo?.name.toLowerCase()).toBe('salvo elixir');
  });
});

describe('"inspired by" claims in shops\' listings', () => {
  it('reads the original after the words that claim it, and the alternative from the rest, in Arabic, English and Spanish', () => {
    expect(splitInspiredClaim('عطر تيفاني نسائي عالي التركيز 100 مل (بديل قوتشي فلورا)')).toMatchObject({
      alternative: 'عطر تيفاني نسائي عالي التركيز 100 مل',
      original: 'قوتشي فلورا',
    });
    // the claim before both names: the original ends where the next "عطر" begins the alternative
    expect(splitInspiredClaim('عطر مستوحى من عطر كريد افينتوس عطر ارماف كلوب دي نوي انتنس رجالي 105مل')).toMatchObject({
      original: 'كريد افينتوس',
      alternative: 'عطر عطر ارماف كلوب دي نوي انتنس رجالي 105مل',
    });
    // "لعطر" is the claim's; the "ل" of a name is the name's
    expect(splitInspiredClaim('عطر ويفز زودياك بديل متقن لعطر لي لابو سانتال33 100مل')?.original).toBe(
      'لي لابو سانتال33',
    );
    expect(splitInspiredClaim('عطر همسات بوكيت 100 مل (بديل لانكوم آيدول)')?.original).toBe('لانكوم آيدول');
    expect(splitInspiredClaim('Rose Petals EDP 100ml - inspired by Rose Prick Tom Ford')).toMatchObject({
      alternative: 'Rose Petals EDP 100ml -',
      original: 'Rose Prick Tom Ford',
    });
    expect(
      splitInspiredClaim('Notas de fondo: almizcle, cedro.ESTA FRAGANCIA ESTA INSPIRADA EN EL PERFUME GIO DE ARMANI')
        ?.original,
    ).toBe('GIO DE ARMANI');
    expect(splitInspiredClaim('Es un gran clon de Acqua di Giò Profondo de Giorgio Armani.')?.original).toBe(
      'Acqua di Giò Profondo de Giorgio Armani',
    );
    expect(splitInspiredClaim('Lattafa Khamrah Eau de Parfum 100ml')).toBeNull();
  });

  it('takes no denial and no mere comparison for a claim', () => {
    expect(splitInspiredClaim('Casablanca no es un dupe de otro perfume, sino una fragancia original.')).toBeNull();
    expect(splitInspiredClaim('Not a clone of Aventus, whatever the forums say.')).toBeNull();
    expect(splitInspiredClaim('Se le compara con el dupe de Delina de Parfums de Marly.')).toBeNull();
    expect(splitInspiredClaim('Often called an alternative to Baccarat Rouge 540.')).toBeNull();
    expect(splitInspiredClaim('عطر لا يعتبر بديل عطر سوفاج')).toBeNull();
    // the sentence that denies does not silence the next one that claims
    expect(splitInspiredClaim('No es una copia exacta. Es un dupe de Delina de Parfums de Marly.')?.original).toBe(
      'Delina de Parfums de Marly',
    );
  });

  it('reads an original of at most MAX_ORIGINAL_WORDS words, each in the text, and no claim past MAX_CLAIM_TEXT', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('Aventus', 'de', 'Creed', 'عطر', 'بديل', 'inspired', 'by', '(', '100ml', 'x'), {
          maxLength: 40,
        }),
        (words) => {
          const text = words.join(' ');
          const claim = splitInspiredClaim(text);
          if (!claim) return;
          const said = claim.original.split(' ');
          expect(said.length).toBeLessThanOrEqual(MAX_ORIGINAL_WORDS);
          for (const w of said) expect(text).toContain(w);
        },
      ),
    );
    const long = `${'Lattafa Khamrah EDP. '.repeat(MAX_CLAIM_TEXT / 10)}Inspired by Angels' Share.`;
    expect(splitInspiredClaim(long)).toBeNull();
    expect(
      splitInspiredClaim(`${'x '.repeat(20)}inspired by ${'Aventus '.repeat(50)}`)?.original.split(' '),
    ).toHaveLength(MAX_ORIGINAL_WORDS);
  });

  const snapshot = bundledSnapshot();
  const a = source('shop-a.com');
  const a2 = source('shop-a.com', 2);
  const b = source('shop-b.com');

  it('groups claims by the two records they name, one listing per shop, enough for the record from two shops', () => {
    const result = harvestInspired(snapshot, [
      listing(a, 'خمرة من لطافة 100 مل بديل عطر كيليان أنجيلز شير أو دو برفيوم'),
      listing(a2, 'Lattafa Khamrah EDP 100ml (inspired by Kilian Angels Share)'),
      {
        ...listing(b, 'KHAMRAH UNISEX 100ML EDP LATTAFA'),
        description: 'Gourmand. Es un dupe de Angels Share de Kilian.',
      },
      listing(b, 'Lattafa Khamrah Eau de Parfum 100ml'),
    ]);
    expect(result.proposals).toHaveLength(1);
    const [p] = result.proposals;
    expect(p).toMatchObject({ alternative: 'lattafa-khamrah-edp', original: 'kilian-angels-share-edp', shops: 2 });
    expect(p?.owners).toEqual(['shop-a.com', 'shop-b.com']);
    expect(p?.evidence.map((e) => e.gave)).toEqual([
      'خمرة من لطافة 100 مل بديل عطر كيليان أنجيلز شير أو دو برفيوم',
      'KHAMRAH UNISEX 100ML EDP LATTAFA — Es un dupe de Angels Share de Kilian.',
    ]);
    expect(result.stats).toEqual({ claims: 3, placed: 3, alternativeUnknown: 0, originalUnknown: 0 });
    const record = {
      id: 'lattafa-khamrah-edp',
      name: 'Khamrah',
      house: 'Lattafa',
      concentration: 'edp',
      gender: 'unisex',
      inspired_by: 'kilian-angels-share-edp',
      evidence: p?.evidence ?? [],
    };
    expect(evidenceProblems(record, false).problems.filter((x) => x.startsWith('inspired_by'))).toEqual([]);
    expect(
      evidenceProblems({ ...record, evidence: (p?.evidence ?? []).slice(0, 1) }, false).problems.filter((x) =>
        x.startsWith('inspired_by'),
      ),
    ).toHaveLength(1);
  });

  it('holds a claim naming a line for each perfume of it, and never borrows a profile from a line of several', () => {
    const line = harvestInspired(snapshot, [
      listing(a, 'ARMAF CLUB DE NUIT INTENSE MAN 105ML (dupe of Creed Aventus)'),
      listing(b, 'Armaf Club de Nuit Intense Man - inspired by Creed Aventus'),
    ]);
    expect(line.proposals.map((p) => [p.alternative, p.original, p.shops])).toEqual([
      ['armaf-club-de-nuit-intense-man-edp', 'creed-aventus-edp', 2],
      ['armaf-club-de-nuit-intense-man-edt', 'creed-aventus-edp', 2],
    ]);
    // the concentration stated names the one perfume of the line
    const edt = harvestInspired(snapshot, [
      listing(b, 'Armaf Club de Nuit Intense Man EDT - inspired by Creed Aventus'),
    ]);
    expect(edt.proposals.map((p) => p.alternative)).toEqual(['armaf-club-de-nuit-intense-man-edt']);
  });

  it('names no record for a perfume we lack, nor an original whose concentration the claim leaves open', () => {
    const result = harvestInspired(snapshot, [
      listing(a, 'عطر ماجيك نوير عالي التركيز 100مل بديل عطر ديور سوفاج'),
      listing(b, 'Lattafa Khamrah EDP 100ml inspired by Dior Sauvage'),
      listing(b, 'Lattafa Khamrah EDP 100ml inspired by Lattafa Khamrah'),
    ]);
    expect(result.proposals).toEqual([]);
    expect(result.stats).toEqual({ claims: 3, placed: 0, alternativeUnknown: 1, originalUnknown: 2 });
    // the same original with its concentration stated is a record
    const stated = harvestInspired(snapshot, [listing(b, 'Lattafa Khamrah EDP 100ml inspired by Dior Sauvage EDT')]);
    expect(stated.proposals.map((p) => p.original)).toEqual(['dior-sauvage-edt']);
  });
});

describe('"inspired by" claims: where a name ends, and what is no claim', () => {
  it.each([
    ['no', 'Casablanca no es un dupe de Aventus.'],
    ['not', 'Not inspired by Aventus.'],
    ["isn't", "It isn't inspired by Aventus."],
    ['nor', 'Nor is it a clone of Aventus.'],
    ['ni', 'Ni es un clon de Aventus.'],
    ['sin', 'Sin ser un dupe de Aventus.'],
    ['never', 'Never a clone of Aventus.'],
    ['nunca', 'Nunca fue un dupe de Aventus.'],
    ['comparado', 'Comparado a menudo, un dupe de Aventus.'],
    ['similares', 'Notas similares a un dupe de Aventus.'],
    ['recuerdan', 'Sus notas recuerdan un clon de Aventus.'],
    ['reminiscent', 'Reminiscent of a clone of Aventus.'],
    ['vibe', 'Same vibe as a clone of Aventus.'],
    ['parecido', 'Muy parecido, un dupe de Aventus.'],
    ['semejante', 'Semejante a un clon de Aventus.'],
    ['like a', 'Smells like a clone of Aventus.'],
    ['a menudo', 'Se dice a menudo que es dupe de Aventus.'],
    ['often', 'Often called a clone of Aventus.'],
    ['suelen', 'Lo suelen llamar dupe de Aventus.'],
    ['style', 'In the style of a clone of Aventus.'],
    ['ليس', 'ليس بديل عطر افينتوس'],
    ['لا يعتبر', 'لا يعتبر بديل عطر افينتوس'],
    ['يشبه', 'يشبه بديل عطر افينتوس'],
  ])('"%s" makes a sentence no claim', (_word, text) => {
    expect(splitInspiredClaim(text)).toBeNull();
  });

  it.each([
    ['a closing bracket', 'Khamrah (inspired by Angels Share) EDP'],
    ['an opening bracket', 'Khamrah inspired by Angels Share (EDP)'],
    ['a square bracket', 'Khamrah [inspired by Angels Share] EDP'],
    ['a bar', 'Khamrah inspired by Angels Share | Lattafa'],
    ['a full stop', 'Khamrah, inspired by Angels Share. Gourmand'],
    ['a semicolon', 'Khamrah inspired by Angels Share; gourmand'],
    ['an exclamation', 'Khamrah inspired by Angels Share! Gourmand'],
    ['a question mark', 'Khamrah inspired by Angels Share? Yes'],
    ['an Arabic question mark', 'Khamrah inspired by Angels Share؟ نعم'],
    ['an Arabic comma', 'Khamrah inspired by Angels Share، جديد'],
    ['a comma', 'Khamrah inspired by Angels Share, new'],
    ['a spaced dash', 'Khamrah inspired by Angels Share - Lattafa'],
    ['a spaced en dash', 'Khamrah inspired by Angels Share – Lattafa'],
    ['a spaced em dash', 'Khamrah inspired by Angels Share — Lattafa'],
    ['a size', 'Khamrah inspired by Angels Share 100ml EDP'],
    ['a spaced size', 'Khamrah inspired by Angels Share 100 ml EDP'],
    ['a one-digit size', 'Khamrah inspired by Angels Share 5ml EDP'],
    ['a decimal size', 'Khamrah inspired by Angels Share 3.45ml EDP'],
    ['a size with a comma', 'Khamrah inspired by Angels Share 2,5 ml'],
    ['a size after a dash', 'Khamrah inspired by Angels Share -100ml'],
    ['an Arabic size', 'Khamrah inspired by Angels Share 100 مل جديد'],
    ['an Arabic short size', 'Khamrah inspired by Angels Share 50م جديد'],
    ['"and"', 'Khamrah inspired by Angels Share and Tobacco Vanille'],
    ['"y"', 'Khamrah inspirado en Angels Share y Tobacco Vanille'],
    ['"or"', 'Khamrah inspired by Angels Share or Tobacco Vanille'],
    ['"o"', 'Khamrah inspirado en Angels Share o Tobacco Vanille'],
    ['"و"', 'Khamrah inspired by Angels Share و Tobacco Vanille'],
  ])('the original ends at %s', (_end, text) => {
    expect(splitInspiredClaim(text)?.original).toBe('Angels Share');
  });

  it('keeps a word that only looks like an end: a size word inside a name, a number without a unit', () => {
    expect(splitInspiredClaim('X inspired by Angels Share 100mlx')?.original).toBe('Angels Share 100mlx');
    expect(splitInspiredClaim('X inspired by Baccarat Rouge 540')?.original).toBe('Baccarat Rouge 540');
    expect(splitInspiredClaim('X inspired by Angels Share-Kilian')?.original).toBe('Angels Share-Kilian');
  });

  it('reads the original folded: spaces, and the marks around it, taken out', () => {
    expect(splitInspiredClaim('X inspired by   Angels   Share')?.original).toBe('Angels Share');
    expect(splitInspiredClaim('X inspired by -- «Angels Share» *')?.original).toBe('Angels Share');
    expect(splitInspiredClaim('X inspired by 1 Million')?.original).toBe('1 Million');
    // a claim with no name after it is none; a later sentence's may be one
    expect(splitInspiredClaim('X inspired by --')).toBeNull();
    expect(splitInspiredClaim('Inspired by ***. Es un dupe de Aventus.')?.original).toBe('Aventus');
  });

  it('reads the alternative with brackets as spaces, and quotes the sentence trimmed and capped', () => {
    expect(splitInspiredClaim('Rose(Petals) inspired by Rose Prick')?.alternative).toBe('Rose Petals');
    expect(splitInspiredClaim('   Rose Petals inspired by Rose Prick')?.said).toBe(
      'Rose Petals inspired by Rose Prick',
    );
    const said = splitInspiredClaim(`${'word '.repeat(200)}inspired by Rose Prick`)?.said ?? '';
    expect(said).toHaveLength(600);
  });
});

describe('"inspired by" claims grouped', () => {
  const snapshot = bundledSnapshot();
  const shops = ['shop-c.com', 'shop-b.com', 'shop-a.com'].map((o) => source(o));

  it('orders the relations by how many shops claim them, their shops by name, and quotes each listing at most 600 characters', () => {
    const long = `Lattafa Khamrah EDP ${'gourmand '.repeat(80)}`;
    const result = harvestInspired(snapshot, [
      listing(shops[0] as HarvestSource, 'Lattafa Khamrah EDP - inspired by Creed Aventus'),
      ...shops.map((s) => ({ ...listing(s, long), description: "Es un dupe de Angels' Share de Kilian." })),
    ]);
    expect(result.proposals.map((p) => [p.original, p.shops])).toEqual([
      ['kilian-angels-share-edp', 3],
      ['creed-aventus-edp', 1],
    ]);
    expect(result.proposals[0]?.owners).toEqual(['shop-a.com', 'shop-b.com', 'shop-c.com']);
    for (const e of result.proposals[0]?.evidence ?? []) {
      expect(e.kind).toBe('shop');
      expect(e.gave.length).toBe(600);
    }
  });

  it('names no record the matcher is not sure of, nor one it reads as a sibling version', () => {
    const result = harvestInspired(snapshot, [
      // "أنجيلز شير" reads as Angels' Share less surely than a harvested listing must
      listing(shops[0] as HarvestSource, 'كيليان أنجيلز شير أو دو برفيوم - inspired by Lattafa Khamrah'),
      // Aventus is an EDP only: an EDT of it is a sibling, not the perfume
      listing(shops[1] as HarvestSource, 'Lattafa Khamrah EDP - inspired by Creed Aventus EDT'),
      listing(shops[2] as HarvestSource, 'Creed Aventus EDT - inspired by Lattafa Khamrah'),
    ]);
    expect(result.proposals).toEqual([]);
    expect(result.stats).toEqual({ claims: 3, placed: 0, alternativeUnknown: 2, originalUnknown: 1 });
  });
});
