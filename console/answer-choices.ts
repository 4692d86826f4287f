import { ACCORDS } from '../vocabulary/index.ts';
import { noteIndex } from '../vocabulary/notes.ts';
import type { Lang } from './i18n.ts';

/**
 * What a merchant ticks to say what a product smells like (the product page's answer form): every
 * accord of the vocabulary, and the notes a Gulf shelf names most, each by the vocabulary's slug
 * and named in the page's language. Pure: the shipped vocabulary alone.
 */

/** The notes offered, most named first: each a slug of vocabulary/data/notes (tests/console-answer.test.ts checks each exists). */
export const ANSWER_NOTES = [
  'oud',
  'oud oil',
  'rose',
  'taif rose',
  'damask rose',
  'saffron',
  'amber',
  'ambergris',
  'musk',
  'white musk',
  'vanilla',
  'sandalwood',
  'patchouli',
  'incense',
  'frankincense',
  'myrrh',
  'leather',
  'tobacco',
  'cardamom',
  'cinnamon',
  'clove',
  'nutmeg',
  'pink pepper',
  'black pepper',
  'tonka bean',
  'praline',
  'caramel',
  'honey',
  'coffee',
  'almond',
  'bergamot',
  'lemon',
  'grapefruit',
  'mint',
  'lavender',
  'jasmine',
  'orange blossom',
  'neroli',
  'tuberose',
  'iris',
  'violet',
  'apple',
  'peach',
  'raspberry',
  'coconut',
  'vetiver',
  'cedar',
  'labdanum',
  'benzoin',
  'ambroxan',
] as const;

export interface Choice {
  slug: string;
  label: string;
}

/** A note named in a language: the vocabulary's Arabic name, or its English one ("Oud (Agarwood)"); the slug when unknown. */
export function noteLabel(lang: Lang, slug: string): string {
  const n = noteIndex().bySlug.get(slug);
  return n ? n[lang] : slug;
}

/** The notes the form offers, with any other note the answer already names after them (so it stays ticked). */
export function noteChoices(lang: Lang, answered: readonly string[] = []): Choice[] {
  const slugs: string[] = [...ANSWER_NOTES];
  for (const s of answered) if (!slugs.includes(s)) slugs.push(s);
  return slugs.map((slug) => ({ slug, label: noteLabel(lang, slug) }));
}

/** Every accord of the vocabulary, named in the page's language. */
export const accordChoices = (lang: Lang): Choice[] => ACCORDS.map((a) => ({ slug: a.slug, label: a[lang] }));
