/**
 * The data types of our perfume catalog and of the scent profile a merchant's
 * product is recommended by. Pure: the database tables (schema/) store these
 * shapes; nothing here knows of a database.
 */

export interface AccordWeight {
  name: string;
  /** 0–1, the dominant accord of a perfume is 1 */
  weight: number;
}

export interface NotePyramid {
  top?: string[];
  heart?: string[];
  base?: string[];
}

/** How sure a record's scent profile is (docs/catalog.md "Evidence"); null: an identity without a profile. */
export type ProfileGrade = 'confirmed' | 'referenced' | 'unreviewed';

/**
 * A perfume of our catalog as the service holds it in memory. A record with
 * `grade` null is an identity without a profile: its families, accords,
 * notes, seasons, times and occasions are empty.
 */
export interface CatalogPerfume {
  id: string;
  name: string;
  nameAr: string | null;
  house: string;
  houseAr: string | null;
  concentration: string | null;
  year: number | null;
  gender: string | null;
  families: string[];
  accords: AccordWeight[];
  notes: NotePyramid;
  seasons: string[];
  times: string[];
  occasions: string[];
  aliases: string[];
  imageUrl: string | null;
  grade: ProfileGrade | null;
  /** the perfume it is sold as the answer to, where its sources say so */
  inspiredBy: string | null;
  barcodes: string[];
}

export interface CatalogHouse {
  name: string;
  nameAr: string | null;
  aliases: string[];
  abbreviations: string[];
  region: string | null;
  country: string | null;
}

/**
 * What a product's scent profile rests on (docs/widget-api.md "quality"), most certain first:
 * full, its perfume's own confirmed or referenced profile; unreviewed, its perfume's own profile
 * from the files not yet reviewed house by house; sibling, the profile of a close version of its
 * line; described, its perfume has no profile and the shop's own words give one; partial, not
 * matched and the shop's own words give one; inspired, the profile of the perfume it is sold as
 * the answer to; guessed, the note and family words of its name alone.
 */
export type ProfileQuality =
  | 'full'
  | 'unreviewed'
  | 'sibling'
  | 'shops'
  | 'described'
  | 'partial'
  | 'inspired'
  | 'guessed';

/** What a partial profile was built from, most trusted first. */
/** What a merchant's (partial) profile was built from: its accords, notes, description, name, or its own answer in the console (matching/answers.ts). */
export type ProfileBasis = 'accords' | 'notes' | 'description' | 'name' | 'answer';

/** The scent profile a product is recommended by: a perfume's of our catalog, or built from the merchant's words. */
export interface ProductProfile {
  /** catalog: a perfume's own; merchant: what the shop says of its product; shops: what shops agree a perfume is (matching/shop-notes.ts) */
  source: 'catalog' | 'merchant' | 'shops';
  /** for a merchant's (partial) profile: the sources it was built from */
  basis?: ProfileBasis[];
  families: string[];
  accords: AccordWeight[];
  notes: { top: string[]; heart: string[]; base: string[] };
  seasons: string[];
  times: string[];
  occasions: string[];
}
