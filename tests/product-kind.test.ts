import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCT_KINDS, type ProductKind, productKind } from '../matching/kind.ts';
import { MAX_LISTING_CHARS } from '../matching/parse.ts';

const kindOf = (title: string) => productKind(title).kind;

describe('the kind of product a Gulf shop lists', () => {
  it.each<[string, ProductKind]>([
    // sprays, whatever their concentration, and testers and minis of them
    ['لطافة خمرة او دو بارفان 100 مل', 'spray'],
    ['Lattafa Khamrah EDP 100ml', 'spray'],
    ['عطر عود مود من لطافة 100 مل', 'spray'],
    ['Dior Sauvage Eau de Toilette Tester 100ml', 'spray'],
    ['Attar Collection Musk Kashmir Eau de Parfum 100ml', 'spray'],
    // oils worn on the skin
    ['دهن عود كمبودي 3 تولة', 'oil'],
    ['دهن العود الملكي 12 مل', 'oil'],
    ['Dehn Al Oud Mubakhar 3ml', 'oil'],
    ['Musk Tahara Perfume Oil 12ml', 'oil'],
    ['عطر زيتي مسك الطهارة 6 مل', 'oil'],
    ['Swiss Arabian Attar Al Kaaba 6ml', 'oil'],
    ['زيت عطري ورد طائفي رول اون', 'oil'],
    // bakhoor and incense, named after a perfume or not
    ['بخور لطافة خمرة', 'bakhoor'],
    ['Bakhoor Al Oudh 40g', 'bakhoor'],
    ['معمول العربية للعود 50 جرام', 'bakhoor'],
    ['مبثوث ملكي فاخر', 'bakhoor'],
    ['Incense sticks Oud & Amber', 'bakhoor'],
    // oud wood to burn
    ['عود كمبودي طبيعي للتبخير 50 جرام', 'oud_wood'],
    ['قطع عود هندي فاخر ربع توله', 'oud_wood'],
    ['Cambodian Oud Wood Chips 12g', 'oud_wood'],
    // mists
    ['معطر شعر خمرة 50 مل', 'mist'],
    ['معطر الجسم والشعر فانيلا 250 مل', 'mist'],
    ['Hair Mist Yara 50ml', 'mist'],
    ['Victoria Secret Bare Vanilla Body Mist 250ml', 'mist'],
    // gift sets
    ['طقم هدية عطر ودهن عود وبخور', 'gift_set'],
    ['مجموعة هدايا رمضان من العربية للعود', 'gift_set'],
    ['Lattafa Gift Set Khamrah EDP + Hair Mist', 'gift_set'],
    // decants and samples, even of an EDP
    ['تقسيم خمرة 10 مل', 'sample'],
    ['عينة توم فورد عود وود 2 مل', 'sample'],
    ['Creed Aventus EDP 5ml decant', 'sample'],
    // the rest a perfume shop sells
    ['مبخرة كهربائية ذهبية', 'other'],
    ['Electric bakhoor burner', 'other'],
    ['لوشن الجسم خمرة 200 مل', 'other'],
    ['معطر جو عود 300 مل', 'other'],
    ['Car freshener Oud', 'other'],
    // sold by weight: wood; by the millilitre with "perfume": a perfume named so
    ['Oud Muattar 50 gram', 'oud_wood'],
    ['ممتاز عود 1 اوقيه', 'oud_wood'],
    ['عود 25 جرام', 'oud_wood'],
    ['Royal Oud 12.5 g', 'oud_wood'],
    ['Oud chips 10 tola', 'oud_wood'],
    ['perfume bakhoor 40 g', 'bakhoor'],
    ['بخور العود 50 جرام', 'bakhoor'],
    ['Perfume Bakhoor 50 ml', 'spray'],
    ['Amber Perfume 100 ml', 'spray'],
    // several bottles: 3 ml or less a sampler, more a set; two sizes joined, a set
    ['Samples 5 x 3 ml', 'sample'],
    ['Sampler 10 x 1.5ml', 'sample'],
    ['مجموعة 3 × 2 مل', 'sample'],
    ['Box 3 x 3.5 ml', 'gift_set'],
    ['Gift box 3 x 12.5 ml', 'gift_set'],
    ['عطر مسك 100 مل + مسك 10 مل', 'gift_set'],
    ['Musk 100ml and Musk 10ml', 'gift_set'],
    ['Musk 100ml 3.4oz', 'spray'],
  ])('%s: %s', (title, kind) => {
    expect(kindOf(title)).toBe(kind);
  });

  it('keeps the concentration a spray or a decant states, and none for what has none', () => {
    expect(productKind('Lattafa Khamrah EDP 100ml').concentration).toBe('edp');
    expect(productKind('Creed Aventus EDP 5ml decant').concentration).toBe('edp');
    expect(productKind('Dior Sauvage Eau de Toilette 100ml').concentration).toBe('edt');
    expect(productKind('بخور لطافة خمرة').concentration).toBeNull();
    expect(productKind('معطر شعر خمرة 50 مل').concentration).toBeNull();
  });

  it('says alcohol-free only where the listing says it, in either language', () => {
    expect(productKind('عطر زيتي بدون كحول 12 مل').alcoholFree).toBe(true);
    expect(productKind('معطر شعر خالي من الكحول').alcoholFree).toBe(true);
    expect(productKind('Attar Al Kaaba Perfume Oil 6ml alcohol free').alcoholFree).toBe(true);
    expect(productKind('Non-Alcoholic Musk Spray 50ml').alcoholFree).toBe(true);
    // water-based ("مائي"), at the start or not
    expect(productKind('عطر مائي فانيلا 100 مل').alcoholFree).toBe(true);
    expect(productKind('مائي مسك 50 مل').alcoholFree).toBe(true);
    expect(productKind('عطر بدون  كحول للأطفال').alcoholFree).toBe(true);
    expect(productKind('بدون كحول').alcoholFree).toBe(true);
    // an oil is not said to be alcohol-free by its listing when it says nothing
    expect(productKind('دهن عود كمبودي 3 تولة').alcoholFree).toBeNull();
    expect(productKind('Lattafa Khamrah EDP 100ml').alcoholFree).toBeNull();
    // "alcohol" alone says nothing of the kind
    expect(productKind('Alcohol based perfume 100ml').alcoholFree).toBeNull();
  });

  it("lists the kinds a gift set's listing names, and none it does not", () => {
    expect(productKind('طقم هدية عطر ودهن عود وبخور').contents).toEqual(['spray', 'oil', 'bakhoor']);
    expect(productKind('Lattafa Gift Set Khamrah EDP + Hair Mist').contents).toEqual(['spray', 'mist']);
    expect(productKind('مجموعة هدايا رمضان من العربية للعود').contents).toEqual([]);
    expect(productKind('دهن عود كمبودي 3 تولة').contents).toEqual([]);
  });

  it('reads the listing as far as the matcher does, whatever follows', () => {
    const head = 'Lattafa Khamrah EDP 100ml ';
    const padded = head + 'x'.repeat(MAX_LISTING_CHARS - head.length);
    expect(kindOf(`${padded} bakhoor oil decant set`)).toBe('spray');
    // and any text at all gets one of the kinds, a bounded reading of at most MAX_LISTING_CHARS characters
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), (s) => {
        const r = productKind(s);
        expect(r).toEqual(productKind(s.slice(0, MAX_LISTING_CHARS)));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a labelled shelf of real Gulf listings (tests/fixtures/kinds/gulf-kinds.jsonl)', () => {
  const shelf = readFileSync(join(import.meta.dirname, 'fixtures', 'kinds', 'gulf-kinds.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as {
          ref: string;
          title: string;
          label: { kind: ProductKind; alcohol_free: boolean | null; contents?: ProductKind[] };
        },
    );

  it('holds at least 300 listings of every kind a Gulf shop sells', () => {
    expect(shelf.length).toBeGreaterThanOrEqual(300);
    const kinds = new Set(shelf.map((r) => r.label.kind));
    expect([...kinds].sort()).toEqual([...PRODUCT_KINDS].sort());
  });

  it('reads the kind right for at least 95% of them', () => {
    const right = shelf.filter((r) => productKind(r.title).kind === r.label.kind).length;
    expect(right / shelf.length).toBeGreaterThanOrEqual(0.95);
  });

  it('misreads only the listings docs/gulf-shelf.md names (a change of reading anywhere else fails here)', () => {
    const misread = shelf.filter((r) => productKind(r.title).kind !== r.label.kind).map((r) => r.ref);
    expect(misread).toEqual(['gk:53', 'gk:179', 'gk:253', 'gk:260', 'gk:319', 'gk:328', 'gk:394', 'gk:395', 'gk:415']);
    // and a set's contents, and the concentration of what states one, as the readers labelled them
    const sets = shelf.filter((r) => r.label.kind === 'gift_set' && productKind(r.title).kind === 'gift_set');
    const contentsRight = sets.filter(
      (r) =>
        JSON.stringify([...productKind(r.title).contents].sort()) ===
        JSON.stringify([...(r.label.contents ?? [])].sort()),
    );
    expect(contentsRight.length / sets.length).toBeGreaterThanOrEqual(0.55);
  });

  it('never reads bakhoor, oud wood, a mist, an oil or a gift set as a spray', () => {
    const passedOff = shelf
      .filter((r) => ['bakhoor', 'oud_wood', 'mist', 'gift_set', 'oil'].includes(r.label.kind))
      .filter((r) => productKind(r.title).kind === 'spray')
      .map((r) => `${r.ref} ${r.label.kind}: ${r.title}`);
    // an oil whose listing states a spray's concentration is the one allowed doubt
    expect(passedOff.filter((p) => !/ oil: /.test(p))).toEqual([]);
  });

  it('says alcohol-free exactly where the listing does', () => {
    const wrong = shelf
      .filter((r) => (productKind(r.title).alcoholFree === true) !== (r.label.alcohol_free === true))
      .map((r) => `${r.ref}: ${r.title}`);
    expect(wrong).toEqual([]);
  });
});
