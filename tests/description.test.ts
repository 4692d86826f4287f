import { describe, expect, it } from 'vitest';
import {
  descriptionWork,
  LOOKUPS_PER_WORD,
  MAX_DESCRIPTION_CHARS,
  MAX_TYPO_WORDS,
  readDescription,
} from '../matching/description.ts';
import { TYPO_MAX_LENGTH, typoWork } from '../vocabulary/notes.ts';
import { loadLabelledDescriptions, scoreDescriptions } from './description-fixture.ts';

/** Notes read out of shop descriptions, English and Arabic, structured and in prose. */
const notes = (text: string) => readDescription(text).notes;

describe('reading a description', () => {
  it('a structured pyramid, in English', () => {
    expect(notes('Top notes: Bergamot, Pink Pepper | Heart notes: Rose, Jasmine | Base notes: Oud, Amber')).toEqual({
      top: ['bergamot', 'pink pepper'],
      heart: ['rose', 'jasmine'],
      base: ['oud', 'amber'],
      flat: [],
    });
    expect(notes('Top: lemon, mint\nMiddle: lavender\nDry down: vanilla, tonka bean')).toMatchObject({
      top: ['lemon', 'mint'],
      heart: ['lavender'],
      base: ['vanilla', 'tonka bean'],
    });
  });

  it('a list on the lines after its label', () => {
    expect(notes('Top notes:\n- Bergamot\n- Cardamom\nBase notes:\n- Sandalwood\n- Musk')).toMatchObject({
      top: ['bergamot', 'cardamom'],
      base: ['sandalwood', 'musk'],
    });
  });

  it('a structured pyramid, in Arabic', () => {
    const r = notes('النفحات العليا: البرغموت والهيل\nالقلب: الورد الطائفي\nالقاعدة: العود والمسك الأبيض');
    expect(r).toMatchObject({ top: ['bergamot', 'cardamom'], heart: ['taif rose'], base: ['oud', 'white musk'] });
    expect(notes('المكونات: عود، ورد، زعفران').flat).toEqual(['oud', 'rose', 'saffron']);
  });

  it('prose, in English and in Arabic', () => {
    expect(notes('A warm oriental blend of oud, rose and saffron, with vanilla and musk.').flat).toEqual([
      'oud',
      'rose',
      'saffron',
      'vanilla',
      'musk',
    ]);
    // prose that places notes in a tier: "opens with", "a heart of", "finished with", يفتتح, قاعدة من
    expect(notes('Opens with bergamot, reveals a heart of rose, finished with vanilla and musk.')).toMatchObject({
      top: ['bergamot'],
      heart: ['rose'],
      base: ['vanilla', 'musk'],
    });
    expect(notes('يفتتح العطر بالزعفران ثم يظهر الورد الطائفي، ويستقر على قاعدة من العود والعنبر')).toMatchObject({
      top: ['saffron'],
      heart: ['taif rose'],
      base: ['oud', 'amber'],
    });
    expect(notes('مزيج من العود والورد والزعفران').flat).toEqual(['oud', 'rose', 'saffron']);
  });

  it('a note in two tiers is in both', () => {
    expect(notes('Heart notes: rose, oud. Base notes: oud, amber.')).toMatchObject({
      heart: ['rose', 'oud'],
      base: ['oud', 'amber'],
    });
  });

  it('a note word used for a colour or a product line is not a note; unknown words are not guessed', () => {
    expect(notes('Comes in a rose gold bottle with an amber glass cap, part of the Oud collection.').flat).toEqual([]);
    expect(notes('Long lasting, fresh and sweet. Free gift with every order!').flat).toEqual([]);
    // a typo is read as the note it misspells; a short everyday word is never "corrected" into one
    expect(notes('Notes: vanila, lavendar, frankinsense').flat).toEqual(['vanilla', 'lavender', 'frankincense']);
    expect(notes('in a glass bottle').flat).toEqual([]);
  });

  it('reads the family words a shop prints', () => {
    expect(readDescription('An oriental woody fragrance').families).toEqual(['amber', 'woody']);
    expect(readDescription('عطر شرقي من عطور عود').families).toEqual(['amber', 'oud']);
    // "يدوم على الجلد": it lasts on the skin, not a leather perfume
    expect(readDescription('عطر زهري يدوم على الجلد طويلا').families).toEqual(['floral']);
  });

  it('reads at most MAX_DESCRIPTION_CHARS, with at most LOOKUPS_PER_WORD lookups a word, whatever the text', () => {
    for (const text of [
      'oud '.repeat(5000),
      'مسك أبيض، '.repeat(3000),
      'top notes: '.repeat(2000),
      'a'.repeat(100_000),
      'Top notes: bergamot\n'.repeat(1000),
      `Notes: ${Array.from({ length: 800 }, (_, i) => `zqxvbn${i.toString(36)}`).join(' ')}`,
    ]) {
      const before = descriptionWork.lookups;
      const typosBefore = typoWork.lookups;
      readDescription(text);
      const words = text.slice(0, MAX_DESCRIPTION_CHARS).split(/\s+/).length + 1;
      expect(descriptionWork.lookups - before).toBeLessThanOrEqual(words * LOOKUPS_PER_WORD);
      // a typo is looked for in at most MAX_TYPO_WORDS words, each of at most TYPO_MAX_LENGTH letters
      expect(typoWork.lookups - typosBefore).toBeLessThanOrEqual(MAX_TYPO_WORDS * (1 + 2 * TYPO_MAX_LENGTH));
    }
  });
});

describe('the labelled descriptions', () => {
  const rows = loadLabelledDescriptions();
  it('hold at least 200 shop descriptions in English and Arabic', () => {
    expect(rows.length).toBeGreaterThanOrEqual(200);
    expect(rows.filter((r) => r.lang === 'ar').length).toBeGreaterThanOrEqual(60);
  });
  it('are read with note recall and precision of at least 90%', () => {
    const f = scoreDescriptions(rows);
    expect(f.recall).toBeGreaterThanOrEqual(0.9);
    expect(f.precision).toBeGreaterThanOrEqual(0.9);
  });
});
