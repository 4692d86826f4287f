import { beforeEach, describe, expect, it } from 'vitest';
import { buildSearchIndex } from '../catalog/search.ts';
import { alignment, type MatcherCatalog, matchListing } from '../matching/matcher.ts';

/**
 * The matcher's word tables entry by entry, each where it decides: an Arabic
 * linking word against the Latin one of a name, a concentration's own words
 * left in a seller's description, a concentration word a name holds.
 */
const houses = [{ name: 'Lattafa' }, { name: 'Dior' }, { name: 'Acqua di Parma' }, { name: 'Kilian' }];
const perfumes = [
  { id: 'khamrah', name: 'Khamrah', house: 'Lattafa', concentration: 'edp', year: 2022 },
  { id: 'sauvage', name: 'Sauvage', house: 'Dior', concentration: 'edt', year: 2015 },
  { id: 'colonia', name: 'Colonia', house: 'Acqua di Parma', concentration: 'edc', year: 1916 },
  { id: 'angels-share', name: 'Angels Share Extrait', house: 'Kilian', concentration: 'edp', year: 2020 },
  { id: 'sauvage-lelixir', name: "Sauvage L'Elixir", house: 'Dior', concentration: 'edp', year: 2024 },
];
let catalog: MatcherCatalog;
beforeEach(() => {
  catalog = { index: buildSearchIndex(perfumes, houses), perfumes };
});
const match = (name: string, house: string) => matchListing(catalog, { name, house });

describe('Arabic linking words are the Latin ones of a name', () => {
  it.each([
    ['بور', 'pour'],
    ['فور', 'for'],
    ['لو', 'le'],
    ['لو', 'la'],
    ['لي', 'le'],
    ['لي', 'l'],
    ['لا', 'la'],
    ['دي', 'de'],
    ['دي', 'di'],
    ['دي', 'des'],
    ['دو', 'du'],
    ['دو', 'de'],
    ['ال', 'al'],
    ['ال', 'el'],
  ])('%s is %s', (arabic, latin) => {
    // between two words of the name, so that a missing linking word would cost (2%) or count against it
    expect(alignment(['qahwa', arabic, 'khamrah'], ['qahwa', latin, 'khamrah'])).toBe(1);
    expect(alignment(['qahwa', latin, 'khamrah'], ['qahwa', arabic, 'khamrah'])).toBe(1);
  });
});

describe('the words of its own concentration, left in the seller’s description, explain themselves', () => {
  it.each([
    ['Khamrah 100ml Eau', 'Lattafa', 'khamrah'],
    ['Sauvage 100ml Eau', 'Dior', 'sauvage'],
    ['Colonia 100ml Eau', 'Acqua di Parma', 'colonia'],
    ['Khamrah Spray Eau de', 'Lattafa', 'khamrah'],
    ['Sauvage Spray Eau de', 'Dior', 'sauvage'],
    ['Colonia Spray Eau de', 'Acqua di Parma', 'colonia'],
  ])('%s by %s', (name, house, id) => {
    expect(match(name, house)).toMatchObject({ perfumeId: id, confidence: 1 });
  });
});

describe('a concentration word a name holds is the name’s', () => {
  it('"Angels Share Extrait" is an EDP named Extrait', () => {
    expect(match('Angels Share Extrait', 'Kilian')).toMatchObject({
      perfumeId: 'angels-share',
      confidence: 1,
      reason: 'Angels Share Extrait edp by Kilian, no concentration listed: the line original',
    });
  });

  it('"Sauvage L\'Elixir" is an EDP named L\'Elixir, with or without its apostrophe', () => {
    for (const name of ["Sauvage L'Elixir", 'Sauvage L Elixir']) {
      expect(match(name, 'Dior'), name).toMatchObject({
        perfumeId: 'sauvage-lelixir',
        confidence: 1,
        reason: "Sauvage L'Elixir edp by Dior, no concentration listed: the line original",
      });
    }
  });
});
