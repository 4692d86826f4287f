import { describe, expect, it } from 'vitest';
import { matchListing, saysNoHouse } from '../matching/matcher.ts';
import { parseListing } from '../matching/parse.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

/** Each rule of reading a listing, alone, and what it changes in a match. */
const snapshot = bundledSnapshot();
const match = (name: string, house: string) => matchListing(snapshot, { name, house });
const id = (name: string, house: string) => match(name, house).perfumeId;

describe('concentration: only real concentration expressions', () => {
  it('"Perfume", "Fragrance" and "Cologne" are not concentrations', () => {
    expect(parseListing('Paradoxe by Prada EDP 3.0oz/90ml Spray Perfume for Women').concentration).toBe('edp');
    expect(parseListing('Polo Blue by Ralph Lauren 4.2 oz EDT Cologne for Men').concentration).toBe('edt');
    expect(parseListing('Eros Perfume Fragrance Spray').concentration).toBeNull();
    expect(parseListing('Cool Water Cologne for Men').concentration).toBeNull();
  });

  it('"Parfum" inside "Eau de Parfum" is the EDP; "Le Parfum" names a flanker', () => {
    expect(parseListing('Sauvage Eau de Parfum').concentrations).toEqual(['edp']);
    const lp = parseListing('Idole Le Parfum 25ml');
    expect(lp.concentration).toBeNull();
    expect(lp.words).toEqual(['idole', 'le', 'parfum']);
    expect(id('Bad Boy Le Parfum by Carolina Herrera 3.4 oz. EDP Spray', 'Carolina Herrera')).toBeNull();
  });

  it('every concentration stated is read; the line takes the one it has', () => {
    expect(parseListing('Hawas EDP Parfum Spray').concentrations).toEqual(['edp', 'parfum']);
    expect(id('Rasasi Hawas For Men EDP Parfum Spray 3.3 OZ', 'Rasasi')).toBe('rasasi-hawas-for-him-edp');
  });

  it('Arabic: او دو بارفان is the EDP, بارفان alone the Parfum', () => {
    expect(parseListing('سوفاج او دو بارفان').concentration).toBe('edp');
    expect(parseListing('ايروس بارفان 100 مل').concentration).toBe('parfum');
    expect(parseListing('بلو دو شانيل تواليت').concentration).toBe('edt');
  });
});

describe('size, gender, form', () => {
  it('reads the size in ml or oz, the first of a pair, in Latin or Arabic digits', () => {
    expect(parseListing('Sauvage 3.4 oz').size).toEqual({ value: 3.4, unit: 'oz' });
    expect(parseListing('Legend 3.3 / 3.4 oz EDT').size).toEqual({ value: 3.4, unit: 'oz' });
    expect(parseListing('خمرة ١٠٠ مل').size).toEqual({ value: 100, unit: 'ml' });
    expect(parseListing('Legend 3.3 / 3.4 oz EDT').words).toEqual(['legend']);
  });

  it('reads the gender, a retailer\'s "(m)" too', () => {
    expect(parseListing('Light Blue Eau Intense EDP 1.6 oz (m)').gender).toBe('men');
    expect(parseListing('Yara للنساء').gender).toBe('women');
  });

  it('reads the product form', () => {
    expect(parseListing('Sauvage EDT Tester').form).toBe('tester');
    expect(parseListing('تستر يارا لطافة 100 مل بدون كرتون').form).toBe('tester');
    expect(parseListing('Aventus Sample Vial 2ml').form).toBe('sample');
    expect(parseListing('تقسيم سوفاج الكسير 5 مل').form).toBe('sample');
    expect(parseListing('Sauvage EDP 10ml').form).toBe('mini');
    expect(parseListing('Sauvage EDP refill 300ml').form).toBe('refill');
    expect(parseListing('Sauvage EDP 100ml').form).toBe('full');
  });
});

describe('what is not a perfume', () => {
  it.each([
    ['New 2024 Sexy Cologne Cupid Hypnosis Long Lasting Pheromone Perfume for Men', 'pheromone'],
    ["Men's Perfume Sampler 10pcs Sample Vials Designer Fragrance Samples", 'sample kit of several perfumes'],
    ['Jimmy Choo Mini Set Gift Set', 'set of several perfumes'],
    ['طقم هدايا مع لوشن يارا لطافة', 'body care'],
    ['عطر شعر يارا لطافة 50 مل', 'hair or body mist'],
    ['Empty perfume bottle 100ml', 'accessory or empty bottle'],
    // what follows the size is the seller's description, but a product word there still counts
    ['Sauvage 100ml Body Moisturizer', 'body care'],
    ['Good Girl EDP 80ml + Hydrating Body Emulsion', 'body care'],
    ['Aventus 100ml Box Only', 'accessory or empty bottle'],
    ['Khamrah 100ml Bodymist', 'hair or body mist'],
    ['خمرة ١٠٠ مل + مرطب للجسم', 'body care'],
    ['خمرة ١٠٠ مل علبة فقط', 'accessory or empty bottle'],
    ['خمرة ١٠٠ مل طقم مع شامبو', 'body care'],
  ])('%s', (title, what) => {
    expect(parseListing(title).notPerfume).toBe(what);
    expect(id(title, 'Lattafa')).toBeNull();
  });
});

describe("sellers' noise never counts against a match", () => {
  it.each([
    ["Christian Dior Sauvage Men's EDP 3.4 oz Fragrance Spray", 'Dior', 'dior-sauvage-edp'],
    ['Dior Sauvage Eau de Toilette 3.4 Oz 100ml Brand New Sealed Free shipping', 'Dior', 'dior-sauvage-edt'],
    ['*NEW* Khadlaj Karus Blu Spice 3.4 EDP New 🆕', 'Khadlaj', 'khadlaj-karus-blu-spice-edp'],
    ['Lattafa Hayaati Al Maleky EDP Spray 3.4 oz Fragrances 6291108734056', 'Lattafa', null],
    [
      "Ralph Lauren Polo Black 4.2 oz EDT Sophisticated Men's Cologne Sealed Box",
      'Ralph Lauren',
      'ralph-lauren-polo-black-edt',
    ],
    [
      'NIB 100% original Acqua Di Gio by Giorgio Armani 6.7 Fl oz Eau De Toilette',
      'Giorgio Armani',
      'giorgio-armani-acqua-di-gio-edt',
    ],
  ])('%s', (title, house, expected) => {
    if (expected) expect(id(title, house)).toBe(expected);
    else expect(parseListing(title).noise).toContain('6291108734056');
  });

  it('but a word that names a flanker, after the name, still does', () => {
    expect(id("Yves Saint Laurent Men's Y Eau de Parfum Intense EDP Spray 3.38 oz", 'Yves Saint Laurent')).toBeNull();
  });
});

describe('houses: the field, the title, "by House", abbreviations, Arabic', () => {
  it('a placeholder house field is no house', () => {
    for (const h of ['AS SHOWN', 'As Show', 'As picture show', 'Unbranded', 'Multiple Brands', '', 'Cologne']) {
      expect(saysNoHouse(h), h).toBe(true);
    }
    for (const h of ['Dior', 'Jacques Bogart', 'Grandeur']) expect(saysNoHouse(h), h).toBe(false);
    // a shop's own name is no house either, when it says so
    for (const h of ['متجر ريحان', 'Scent Hub Riyadh', 'Perfume Palace KSA']) expect(saysNoHouse(h), h).toBe(true);
  });

  it('takes the house from the title when the field is a placeholder: "by House", or its name', () => {
    expect(id('Hawas for him Eau De Parfum By Rasasi 100ml', 'Unbranded')).toBe('rasasi-hawas-for-him-edp');
    expect(id('Parfums De-Marly-Haltane Eau de Parfum spray 4.2 oz for Men', 'Unbranded')).toBe(
      'parfums-de-marly-haltane-edp',
    );
  });

  it('with no house anywhere, a distinctive name alone, and nothing else near it', () => {
    expect(id('Sauvage Eau de Parfum Spray For Men 3.4 Oz/100ml New In Seald Box', 'As Show')).toBe('dior-sauvage-edp');
    expect(match('Sauvage Eau de Parfum Spray For Men', 'As Show').reason).toMatch(/recognised by its name alone/);
    // a house field that names a house we lack is that house's perfume, not ours
    expect(id('Silver Scent', 'Jacques Bogart')).toBeNull();
    // too short a name to say whose it is
    expect(id('Y Eau de Parfum 100ml', 'AS SHOWN')).toBeNull();
  });

  it("a shop's own name in the house field: the perfume is read by its name alone", () => {
    expect(id('عطر كلوب دي نوي انتنس مان او دو بارفان 105 مل', 'متجر ريحان')).toBe(
      'armaf-club-de-nuit-intense-man-edp',
    );
  });

  it('a real house named with "Perfumes", "Parfums" or عطور is a house we lack, not a shop', () => {
    for (const [name, house] of [
      ['Baccarat Rouge 540', 'Histoires de Parfums'],
      ['Khamrah Qahwa EDP 100ml', 'Junaid Perfumes'],
      ['خمرة قهوة', 'ريف للعطور'],
    ]) {
      expect(id(name as string, house as string), `${name} by ${house}`).toBeNull();
    }
  });

  it('a house field is believed over a house the title names: dupes name their perfumes after originals', () => {
    expect(id('Black Opium by Yves Saint Laurent 3.0 oz EDP Perfume for Women', 'Lancôme')).toBeNull();
  });

  it('abbreviations and Arabic house names, in the field or the title', () => {
    expect(id('Y EDP 100ml', 'YSL')).toBe('yves-saint-laurent-y-edp');
    expect(id('Grand Soir', 'MFK')).toBe('maison-francis-kurkdjian-grand-soir-edp');
    expect(id('ديلينا اكسكلوسيف مارلي 75 مل', 'دي مارلي')).toBe('parfums-de-marly-delina-exclusif-parfum');
    expect(id('خمرة ١٠٠ مل', 'لطافه للعطور')).toBe('lattafa-khamrah-edp');
  });

  it('a listing in two scripts is explained by both names of the perfume', () => {
    expect(id('عطر يارا موي Yara Moi لطافة 100مل', 'عالم العطور')).toBe('lattafa-yara-moi-edp');
  });
});

describe('versions: siblings, gender versions, flankers', () => {
  it('a gender version is another perfume, never a sibling', () => {
    expect(id('Eternity for Men EDT', 'Calvin Klein')).toBe('calvin-klein-eternity-for-men-edt');
    expect(match('Eternity EDP for Women', 'Calvin Klein')).toMatchObject({
      perfumeId: 'calvin-klein-eternity-edp',
      sibling: false,
    });
  });

  it('a flanker we lack is not its line', () => {
    expect(id('Sauvage Eau Forte', 'Dior')).toBeNull();
    expect(id('Spicebomb Infrared', 'Viktor & Rolf')).toBeNull();
    expect(id('Asad Zanzibar EDP 100ml', 'Lattafa')).toBeNull();
    expect(id('Polo 67 Ralph Lauren Eau De Toilette', 'Ralph Lauren')).toBeNull();
  });

  it('a concentration of the line we lack is a sibling, said so', () => {
    expect(match('1 Million Parfum 100ml', 'Rabanne')).toMatchObject({
      perfumeId: 'rabanne-1-million-edt',
      sibling: true,
    });
  });

  it('an Arabic name with a final ة is another word (اميرة is not امير)', () => {
    expect(id('اميرة العرب اصداف نسائي 100 مل', 'أصداف')).toBeNull();
  });
});
