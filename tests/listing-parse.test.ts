import { describe, expect, it } from 'vitest';
import { searchTokens } from '../catalog/search.ts';
import { matchListing, saysNoHouse } from '../matching/matcher.ts';
import { parseListing } from '../matching/parse.ts';
import { bundledSnapshot } from './bundled-snapshot.ts';

/** Each rule of reading a listing, alone, and what it changes in a match. */
// the catalog is built by the first test that matches, not on loading (the mutation run's coverage)
const match = (name: string, house: string) => matchListing(bundledSnapshot(), { name, house });
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

  it('"Elixir" names its concentration as a spelled-out phrase does, in either script: before "EDP"', () => {
    expect(parseListing('Dior Sauvage Elixir EDP 60 ml').concentrations).toEqual(['elixir', 'edp']);
    expect(parseListing('ديور سوفاج الكسير او دو برفيوم').concentrations).toEqual(['elixir', 'edp']);
    expect(parseListing('Good Girl Extrait EDP').concentrations).toEqual(['extrait', 'edp']);
    // said before it, the seller's "EDP" still comes after the word that names the concentration
    expect(parseListing('Sauvage EDP Elixir').concentrations).toEqual(['elixir', 'edp']);
    expect(parseListing('Sauvage EDP Eau de Toilette').concentrations).toEqual(['edt', 'edp']);
    // a short word ("Parfum") or an abbreviation keeps its place, after the spelled-out ones
    expect(parseListing('Eau de Parfum Elixir EDT').concentrations).toEqual(['edp', 'elixir', 'edt']);
    expect(parseListing('Sauvage EDT Parfum').concentrations).toEqual(['edt', 'parfum']);
    expect(id('ديور سوفاج الكسير او دو برفيوم 60 مل', 'ديور')).toBe('dior-sauvage-elixir');
    expect(id('ديور سوفاج او دو برفيوم 100 مل', 'ديور')).toBe('dior-sauvage-edp');
  });

  it('concentration words spelt as shops spell them: "Elixer", "Eau de Parfums", "Extrait de Parfume"…', () => {
    for (const [phrase, slug] of [
      ['Extrait de Parfume', 'extrait'],
      ['Extrait de Perfume', 'extrait'],
      ['Extrait de Perfum', 'extrait'],
      ['Eau de Parfums', 'edp'],
      ['Eau De Partum', 'edp'],
      ['Eau de Parfume', 'edp'],
      ['EDP.', 'edp'],
      ['Eau de Toillette', 'edt'],
      ['Eau de Toilet', 'edt'],
      // the "de" left out
      ['Eau Toilette', 'edt'],
      ['Eau Parfum', 'edp'],
      ['ELIXER', 'elixir'],
      ["L'Elixir", 'elixir'],
    ] as const) {
      const p = parseListing(`Aventus ${phrase} 100ml`);
      expect(p.words, phrase).toEqual(['aventus']);
      expect(p.concentrations, phrase).toEqual([slug]);
      expect(p.concentrationPhrases, phrase).toEqual([searchTokens(phrase)]);
    }
    // spelled out, it is the concentration meant before an abbreviation
    expect(parseListing('Aventus EDP Extrait de Perfume').concentrations).toEqual(['extrait', 'edp']);
    // "Parfume", "Perfum" alone: a word for any perfume, read as a concentration only by a name holding it
    for (const word of ['Parfume', 'Perfum']) {
      const p = parseListing(`Khamrah ${word} 100ml`);
      expect(p.words, word).toEqual(['khamrah']);
      expect(p.concentrations, word).toEqual([]);
      expect(p.concentrationPhrases, word).toEqual([[word.toLowerCase()]]);
    }
    expect(id('Dior Sauvage Elixer 60ml', 'Dior')).toBe('dior-sauvage-elixir');
    expect(id('Khamrah Eau de Parfums 100ml', 'Lattafa')).toBe('lattafa-khamrah-edp');
    expect(id('Khamrah Parfume 100ml', 'Lattafa')).toBe('lattafa-khamrah-edp');
    expect(id('Sauvage Eau de Toilet 100ml', 'Dior')).toBe('dior-sauvage-edt');
    // "Eau Toilette" is the concentration, not two words of a name the perfume's name lacks: a flanker
    // word before it ("Green Tea Cucumber … Eau Toilette") is left unexplained, and matches nothing
    expect(id('Sauvage 100 ml Eau Toilette Spray', 'Dior')).toBe('dior-sauvage-edt');
    expect(
      id('GREEN TEA CUCUMBER by Elizabeth Arden for Women 3.3 oz 100 ml Eau Toilette Spray', 'Elizabeth Arden'),
    ).toBeNull();
    // "… EDP Intensément": a flanker of the line, not its EDP
    expect(id('La Vie Est Belle EDP 100ml', 'Lancome')).toBe('lancome-la-vie-est-belle-edp');
    expect(id('La Vie Est Belle EDP Intensement 100ml', 'Lancome')).toBeNull();
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
    ['NIB 100% original Si by Giorgio Armani 3.4 Fl oz Eau De Parfum', 'Giorgio Armani', 'giorgio-armani-si-edp'],
  ])('%s', (title, house, expected) => {
    if (expected) expect(id(title, house)).toBe(expected);
    else expect(parseListing(title).noise).toContain('6291108734056');
  });

  it('a soft word of the description ("… EDP Women Gift For Her New & Sealed") costs nothing', () => {
    const title = "J'adore 3.4 oz/100 ml Eau De Parfum EDP Women Spray Gift For Her New & Sealed US";
    expect(id(title, 'As Show')).toBe('dior-j-adore-edp');
    // the same soft words in the name part still tell "Light Blue" from "Light Blue Pour Homme"
    // (withdrawn: its listing is left unmatched, not passed off as the women's Light Blue)
    expect(id('Light Blue Pour Homme EDT 125ml', 'Dolce & Gabbana')).toBeNull();
    expect(id('Light Blue EDT 100ml Women', 'Dolce & Gabbana')).toBe('dolce-and-gabbana-light-blue-edt');
  });

  it('packaging and counts are not name words: "in white box", "Lot 3 x", "Splash", "New in Pouch", ريفل', () => {
    expect(parseListing('Legend Spirit EDT 3.3 OZ FOR MEN WITH CAP NEW IN WHITE BOX').words).not.toContain('white');
    expect(parseListing('Lot 3 x Lancome Perfume La Vie Est Belle EDP 4ml').words).not.toContain('x');
    expect(id('Lot 3 x Lancome Perfume La Vie Est Belle Eau de Parfum EDP Travel Size 4ml =12ml', 'Lancôme')).toBe(
      'lancome-la-vie-est-belle-edp',
    );
    expect(id('CHLOE Perfume Eau De Parfum EDP Splash Mini 0.16oz 5 ml NEW with Box', 'Chloe')).toBe('chloe-chloe-edp');
    expect(parseListing('Another 13 EDP Sample Vial .75ml New in Pouch').notPerfume).toBeNull();
    expect(parseListing('Leather perfume pouch for travel').notPerfume).not.toBeNull();
    expect(id('عبوة ريفل سوفاج او دو بارفان 300 مل - إعادة تعبئة', 'Parfums Christian Dior')).toBe('dior-sauvage-edp');
  });

  it('a unit written onto the next word ("2.5 ozEau De Parfum") is a size', () => {
    const p = parseListing('Delina 2.5 ozEau De Parfum Spray');
    expect(p.size).toEqual({ value: 2.5, unit: 'oz' });
    expect(p.concentration).toBe('edp');
  });

  it('a sign before a number names nothing: N°5, No. 5, شانيل رقم 5', () => {
    expect(id('شانيل رقم 5 او دو بارفان 100 مل', 'شانيل')).toBe('chanel-no-5-edp');
    expect(id('Chanel No. 5 Eau de Parfum 100ml', 'Chanel')).toBe('chanel-no-5-edp');
  });

  it('but a word that names a flanker, after the name, still does', () => {
    // "Intense" names the flanker Y Intense, not the seller's praise of Y EDP; a flanker we lack is no Y
    expect(id("Yves Saint Laurent Men's Y Eau de Parfum Intense EDP Spray 3.38 oz", 'Yves Saint Laurent')).toBe(
      'yves-saint-laurent-y-intense-edp',
    );
    expect(id("Yves Saint Laurent Men's Y Live Eau de Toilette Intense 3.3 oz", 'Yves Saint Laurent')).toBeNull();
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
    expect(id('عطر خمرة قهوة او دو بارفان 100 مل', 'متجر ريحان')).toBe('lattafa-khamrah-qahwa-edp');
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

  it('a house written in two words, two of its words written as one, or "by" written onto it', () => {
    expect(id('MONT BLANC LEGEND SPIRIT EDT 3.3 OZ FOR MEN', 'MONT BLANC LEGEND')).toBe('montblanc-legend-spirit-edt');
    expect(id('Parfums deMarly Delina by Parfums de Marly 2.5 oz Eau De Parfum Spray', 'Parfums de Marly')).toBe(
      'parfums-de-marly-delina-edp',
    );
    expect(id('Dylan Blue ByVERSACE Spray 3.4oz/100ml EDT Cologne For Men NIB', 'AS SHOWN')).toBe(
      'versace-dylan-blue-edt',
    );
    // "by" onto a word that is no house of ours is left alone
    expect(parseListing('Byredo Gypsy Water').words).toContain('byredo');
  });

  it('letters starred apart to pass a brand filter are the abbreviation: Y*S*L', () => {
    expect(parseListing('Y*S*L Libre 3 oz EDP').words.slice(0, 2)).toEqual(['ysl', 'libre']);
    expect(id('Y*S*L Libre 3 oz / 90 ml EDP Perfume Spray for Women Gift for her New in Box', 'AS SHOWN')).toBe(
      'yves-saint-laurent-libre-edp',
    );
    // a name with a star of its own is left as it is
    expect(parseListing('A*Men Pure Havane').words[0]).toBe('a');
  });

  it('a listing that names only the house and whom it is for takes the perfume named after the house', () => {
    expect(id('JIMMY CHOO by Jimmy Choo 3.3 / 3.4 oz EDP Women NEW IN BOX', 'Jimmy Choo')).toBe(
      'jimmy-choo-jimmy-choo-edp',
    );
    // never a perfume named by a gender word ("Her") or by the house and a gender ("Hugo Man")
    expect(id('BURBERRY CLASSIC by Burberry perfume for women EDP 3.3 / 3.4 oz New in Box', 'Burberry')).toBeNull();
    expect(id('HOGO BOSS cologne For Men 3.4 oz', 'Unbranded')).toBeNull();
  });

  it('Arabic linking and gender words meet their Latin names: بور هوم, لوي, وومن', () => {
    expect(id('قوتشي قلتي بور هوم تواليت 90 مل', 'غوتشي')).toBe('gucci-guilty-pour-homme-edt');
    expect(id('رموز الرصاصي 9325 بور لوي 50 مل', '')).toBe('rasasi-rumz-al-rasasi-9325-pour-lui-edp');
    expect(id('كلوب دي نوي ومن نسائي ارماف 105 مل', '')).toBe('armaf-club-de-nuit-woman-edp');
  });

  it("an article elided onto a word is another name: L'Homme is not Pour Homme", () => {
    expect(id("Versace Men's L'Homme EDT Spray 3.4 oz (Tester)", 'Versace')).toBeNull();
  });

  it('an elided article that lost its apostrophe, or has a space after it, is read as written with it', () => {
    for (const [name, house, perfume] of [
      ['Givenchy L Interdit EDP 80ml', 'Givenchy', 'givenchy-l-interdit-edp'],
      ["L' Interdit Eau de Parfum 50 ml", 'Givenchy', 'givenchy-l-interdit-edp'],
      ['Terre d Hermes EDT 100ml', 'Hermes', 'hermes-terre-d-hermes-edt'],
      ['L Eau d Issey Pour Homme EDT 125ml', 'Issey Miyake', 'issey-miyake-l-eau-d-issey-pour-homme-edt'],
      ['Prada L Homme EDT 100ml', 'Prada', 'prada-l-homme-edt'],
      ['La Nuit de L Homme 100ml', 'YSL', 'yves-saint-laurent-la-nuit-de-l-homme-edt'],
      ['L Immensite EDP', 'Louis Vuitton', 'louis-vuitton-l-immensite-edp'],
      ["Kenzo Flower L'Elixir", 'Kenzo', 'kenzo-flower-by-kenzo-l-elixir-edp'],
    ] as const) {
      expect(id(name, house), name).toBe(perfume);
    }
    // "L Elixir": the elixir stated, with its article ("Y … Parfum L Elixir": a Parfum and an elixir)
    expect(parseListing('Y L Elixir').concentration).toBe('elixir');
    expect(id('YSL Y PARFUM L ELIXIR SPRAY 60 ML', 'Yves Saint Laurent')).toBeNull();
    // a lone letter before anything but a vowel or h stays a word: "D by Diesel", "L.12.12"
    expect(parseListing('D by Diesel EDT').words).toEqual(['d', 'diesel']);
    expect(id('Eau de Lacoste L.12.12 Blanc EDT', 'Lacoste')).toBe('lacoste-l-12-12-blanc-edt');
  });

  it('a listing in two scripts is explained by both names of the perfume', () => {
    expect(id('عطر يارا موي Yara Moi لطافة 100مل', 'عالم العطور')).toBe('lattafa-yara-moi-edp');
  });
});

describe('versions: siblings, gender versions, flankers', () => {
  it('a gender version is another perfume, never a sibling', () => {
    expect(id('Jimmy Choo Man EDT', 'Jimmy Choo')).toBe('jimmy-choo-jimmy-choo-man-edt');
    expect(match('Jimmy Choo EDP for Women', 'Jimmy Choo')).toMatchObject({
      perfumeId: 'jimmy-choo-jimmy-choo-edp',
      sibling: false,
    });
  });

  it('a flanker we lack is not its line', () => {
    // flankers the catalog does not hold (Sauvage Eau Forte, Asad Zanzibar, Spicebomb Infrared and Eros
    // Energy have since become identities of their own)
    expect(id('Sauvage Very Cool Spray', 'Dior')).toBeNull();
    expect(id('Spicebomb Dark Leather EDP', 'Viktor & Rolf')).toBeNull();
    expect(id('Eros Najim EDP', 'Versace')).toBeNull();
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

describe('a name saying a word twice is not a listing saying it once', () => {
  it('"Tom Ford Noir EDP" is Noir, "Tom Ford Noir de Noir EDP" is Noir de Noir', () => {
    expect(parseListing('Tom Ford Noir de Noir EDP').repeated).toEqual(new Set(['noir']));
    expect(parseListing('Tom Ford Noir EDP').repeated).toEqual(new Set());
    expect(id('Tom Ford Noir EDP 50 ml', 'Tom Ford')).toBe('tom-ford-noir-edp');
    expect(id('Tom Ford Noir de Noir EDP 100ml', 'Tom Ford')).toBe('tom-ford-noir-de-noir-edp');
    expect(id('توم فورد نوار أو دو برفيوم 50 مل', '')).toBe('tom-ford-noir-edp');
    expect(id('توم فورد نوار دو نوار او دو بارفيوم', '')).toBe('tom-ford-noir-de-noir-edp');
  });
});

describe('form: a travel spray is a small bottle', () => {
  it('"Travel Spray" is a mini, as "Travel Size" is', () => {
    expect(parseListing('Mediterranean Honeysuckle Eau de Parfum Travel Spray').form).toBe('mini');
    expect(parseListing('Libre Eau de Parfum Travel Size').form).toBe('mini');
    expect(parseListing('Mediterranean Honeysuckle Eau de Parfum Spray').form).toBe('full');
  });

  it('15 ml or less is a miniature, an ounce is not; a vial or a sample is a sample, a perfume oil an oil', () => {
    expect(parseListing('Dior Sauvage EDP 15ml').form).toBe('mini');
    expect(parseListing('Dior Sauvage EDP 16ml').form).toBe('full');
    expect(parseListing('Dior Sauvage EDT 1 oz').form).toBe('full');
    expect(parseListing('Dior Sauvage EDT 0.5 oz').form).toBe('mini');
    expect(parseListing('Dior Sauvage EDP 2ml vial').form).toBe('sample');
    expect(parseListing('Dior Sauvage EDP sample').form).toBe('sample');
    expect(parseListing('Dior Sauvage EDP samples').form).toBe('sample');
    expect(parseListing('Dior Sauvage EDP vials').form).toBe('sample');
    expect(parseListing('Dior Sauvage EDP decant').form).toBe('sample');
    expect(parseListing('Dior Sauvage EDP decants').form).toBe('sample');
    expect(parseListing('عينة ديور سوفاج او دو برفيوم 2مل').form).toBe('sample');
    expect(parseListing('ديور سوفاج او دو برفيوم ميني 10 مل').form).toBe('mini');
    expect(parseListing('Al Haramain Amber Oud Concentrated Perfume Oil 30 ml').form).toBe('oil');
  });
});

describe('a body care product named after a perfume is no perfume', () => {
  it('"Aromatics Elixir … Body Smoother" is a lotion, however the perfume is named', () => {
    expect(
      parseListing('Aromatics Elixir By Clinique For Women. Body Smoother 6.7 oz/200 ml').notPerfume,
    ).not.toBeNull();
    expect(id('Aromatics Elixir By Clinique For Women. Body Smoother 6.7-Ounces', 'Clinique')).toBeNull();
    expect(parseListing('Aromatics Elixir By Clinique Eau de Parfum 100 ml').notPerfume).toBeNull();
  });
});
