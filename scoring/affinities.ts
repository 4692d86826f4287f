/**
 * What a season and an occasion lean towards, as accords with a weight, and
 * the time of day an occasion implies. Perfumery common sense: summer, day
 * and office lean fresh, citrus, aquatic and musky; winter and evening lean
 * amber, vanilla, warm spices and oud; Gulf celebrations lean oud, rose,
 * saffron and incense.
 */
import type { AccordSlug, OccasionSlug, SeasonSlug, TimeSlug } from '../vocabulary/index.ts';

type Lean = readonly (readonly [AccordSlug, number])[];

export const SEASON_LEANS: Record<SeasonSlug, Lean> = {
  spring: [
    ['floral', 1],
    ['green', 0.8],
    ['fresh', 0.7],
    ['fruity', 0.6],
    ['citrus', 0.5],
    ['white floral', 0.5],
    ['powdery', 0.3],
  ],
  summer: [
    ['citrus', 1],
    ['fresh', 1],
    ['aquatic', 0.9],
    ['marine', 0.7],
    ['ozonic', 0.6],
    ['fresh spicy', 0.5],
    ['musky', 0.4],
    ['green', 0.4],
  ],
  autumn: [
    ['woody', 1],
    ['warm spicy', 0.8],
    ['amber', 0.7],
    ['leather', 0.5],
    ['tobacco', 0.5],
    ['patchouli', 0.5],
    ['vanilla', 0.4],
  ],
  winter: [
    ['amber', 1],
    ['vanilla', 0.9],
    ['warm spicy', 0.9],
    ['oud', 0.8],
    ['leather', 0.6],
    ['tobacco', 0.6],
    ['balsamic', 0.6],
    ['sweet', 0.5],
  ],
};

export const OCCASION_LEANS: Record<OccasionSlug, Lean> = {
  daily: [
    ['fresh', 0.8],
    ['musky', 0.7],
    ['citrus', 0.6],
    ['woody', 0.5],
    ['aromatic', 0.4],
  ],
  office: [
    ['fresh', 1],
    ['citrus', 0.8],
    ['musky', 0.8],
    ['aromatic', 0.6],
    ['powdery', 0.5],
    ['green', 0.4],
    ['iris', 0.4],
  ],
  evening: [
    ['amber', 1],
    ['oud', 0.8],
    ['warm spicy', 0.8],
    ['sweet', 0.6],
    ['leather', 0.6],
    ['vanilla', 0.5],
  ],
  'date-night': [
    ['vanilla', 1],
    ['amber', 0.8],
    ['sweet', 0.7],
    ['musky', 0.7],
    ['rose', 0.5],
    ['white floral', 0.5],
  ],
  'special-occasion': [
    ['oud', 0.9],
    ['amber', 0.9],
    ['rose', 0.7],
    ['saffron', 0.7],
    ['incense', 0.5],
    ['musky', 0.5],
  ],
  wedding: [
    ['oud', 1],
    ['rose', 0.9],
    ['musky', 0.8],
    ['saffron', 0.7],
    ['white floral', 0.6],
    ['amber', 0.6],
  ],
  eid: [
    ['oud', 1],
    ['rose', 0.8],
    ['saffron', 0.8],
    ['amber', 0.7],
    ['incense', 0.6],
    ['musky', 0.6],
  ],
  // evenings after iftar, at home and in the majlis: warm, close, resinous
  'ramadan-nights': [
    ['oud', 1],
    ['amber', 0.8],
    ['incense', 0.7],
    ['rose', 0.6],
    ['saffron', 0.6],
    ['musky', 0.5],
    ['sweet', 0.3],
  ],
  gathering: [
    ['oud', 1],
    ['incense', 0.8],
    ['saffron', 0.7],
    ['amber', 0.7],
    ['rose', 0.5],
    ['smoky', 0.4],
  ],
  sport: [
    ['fresh', 1],
    ['citrus', 0.9],
    ['aquatic', 0.8],
    ['ozonic', 0.6],
    ['marine', 0.6],
    ['green', 0.4],
  ],
  travel: [
    ['fresh', 0.9],
    ['citrus', 0.8],
    ['aquatic', 0.6],
    ['green', 0.5],
    ['musky', 0.5],
    ['tea', 0.3],
  ],
};

/**
 * Occasions of the calendar rather than of a scent: no record lists them, so a perfume is worn for
 * one when it is worn for any occasion named here (Ramadan nights: the evening, the majlis, Eid).
 * Profiles read from accords never list them either (matching/note-profile.ts): they would take the
 * place of an occasion a record could list.
 */
export const OCCASIONS_WORN_AS: Partial<Record<OccasionSlug, readonly OccasionSlug[]>> = {
  'ramadan-nights': ['evening', 'gathering', 'eid'],
};

export const OCCASION_TIME: Record<OccasionSlug, TimeSlug | null> = {
  daily: 'day',
  office: 'day',
  evening: 'night',
  'date-night': 'night',
  'special-occasion': 'night',
  wedding: 'night',
  eid: null,
  'ramadan-nights': 'night',
  gathering: null,
  sport: 'day',
  travel: 'day',
};
