/**
 * The one path from a merchant's listing to a product the engine can score.
 * A product synced, sent inline with a score request, compiled from its stored
 * row or shown in the admin list goes through `recogniseProduct`, so the four
 * can never disagree about what a listing is (tests/product-parity.test.ts).
 * Pure: the catalog snapshot comes in as data.
 */

import type { CatalogSnapshot } from '../catalog/store.ts';
import type { CatalogPerfume, ProductProfile, ProfileQuality } from '../catalog/types.ts';
import { Cache } from '../lib/cache.ts';
import { lineOf, type ScoringProduct } from '../scoring/products.ts';
import { answerProfile } from './answers.ts';
import { type ProductKind, productKind } from './kind.ts';
import { type ProductInput, spellingOf, validateProductInput } from './listing.ts';
import { type ExplainedMatch, explainMatch, listingHouse, type MatchResult } from './matcher.ts';
import { type ProductForm, parseListing } from './parse.ts';
import { catalogProfile, partialProfile } from './profile.ts';
import type { MatchWhy } from './reason.ts';
import type { ShopProfile } from './shop-notes.ts';

export type RecognisedStatus = 'matched' | 'partial' | 'unmatched';

/** What was decided for a product earlier and stored with it: the matcher's answer, or a pin. */
export interface StoredDecision {
  status: 'pending' | RecognisedStatus;
  perfumeId: string | null;
  confidence: number | null;
  reason: string | null;
  pinned: boolean;
  /** matched to the nearest concentration of the line, which the listing does not name */
  sibling: boolean;
}

/** A listing as the service understands it. */
export interface RecognisedProduct {
  listing: ProductInput;
  /**
   * matched: the perfume is ours (recognised, whether or not a profile was found for it); partial: not
   * ours, with a profile from the merchant's words; unmatched: neither, never recommended
   */
  status: RecognisedStatus;
  /** the perfume is a concentration sibling of the product, not the product (never when pinned by hand) */
  sibling: boolean;
  match: MatchResult;
  pinned: boolean;
  perfume: CatalogPerfume | null;
  /** the profile it is recommended by, from the best evidence there is (`profileOf`); null: never recommended */
  profile: ProductProfile | null;
  /** what the profile rests on (catalog/types.ts ProfileQuality); null with no profile */
  quality: ProfileQuality | null;
  /** for quality inspired: the perfume it is sold as the answer to, whose profile it takes */
  inspiredBy: CatalogPerfume | null;
  /** for quality inspired, who says so: our record (with its evidence), the merchant's own answer, or shops' answers in force (matching/answers.ts) */
  inspiredFrom?: 'catalog' | 'merchant' | 'shops';
  /** for quality shops: how many independent shop descriptions its profile rests on (never which) */
  shops?: number;
  /** the merchant's own image wins; the perfume's is the fallback */
  imageUrl: string | null;
  /** the barcode key (GTIN-14) it was matched by (matching/barcodes.ts); absent when matched by its name or pinned */
  matchKey?: string;
  /** its listing's spelling key (matching/listing.ts spellingOf), worked out where it was recognised in bulk (the matcher's worker) */
  spelling?: string | null;
  /** perfume line (house + name) for diversity; the listing's own when unmatched */
  line: string;
  lineHouse: string;
}

/**
 * Listings matched recently. A storefront sends the same inline products with
 * every quiz, and a re-sync sends the same feed again. Keyed by catalog
 * version: an entry of an older catalog is never read again and ages out.
 */
const matches = new Cache<string, ExplainedMatch>({
  name: 'listing-matches',
  max: 20_000,
  invalidatedBy: 'a catalog change: the key carries the catalog version, so older entries are never read and age out',
});

/**
 * Partial profiles built recently, by what the merchant says of the product:
 * a storefront sends the same inline products, descriptions and all, with
 * every quiz. Each is at most 4,000 characters of description and a few
 * short lists, so 2,000 entries stay under about 10 MB.
 */
const partials = new Cache<string, ProductProfile | null>({
  name: 'partial-profiles',
  max: 2_000,
  invalidatedBy: 'nothing: a profile depends only on the listing text and the shipped notes',
});

/** kinds that are not a perfume of ours but are worn or burnt for their scent */
const WORN_OR_BURNT: ReadonlySet<ProductKind> = new Set(['mist', 'bakhoor', 'oud_wood']);
/** what the merchant's correction says is one product worn or burnt for its scent (never a set, a kit, or another thing) */
const WORN_OR_BURNT_SAID: ReadonlySet<ProductKind> = new Set([...WORN_OR_BURNT, 'spray', 'oil']);

function partialOf(listing: ProductInput): ProductProfile | null {
  const key = JSON.stringify([listing.name, listing.accords, listing.notes, listing.description, listing.kindOverride]);
  if (partials.has(key)) return partials.get(key) ?? null;
  // a body lotion or a deodorant carries a perfume's words but is never recommended as a perfume; a
  // mist, bakhoor or oud wood is matched to no perfume either, but is recommended for what it is
  // (its product_kind) by the profile its shop gives it (docs/gulf-shelf.md); so is one the
  // merchant's correction says is one product worn or burnt for its scent ("Body Spray" sold as a perfume)
  const parsed = parseListing(listing.name);
  const corrected = listing.kindOverride;
  const profiled =
    parsed.notPerfume === null ||
    (corrected ? WORN_OR_BURNT_SAID.has(corrected) : WORN_OR_BURNT.has(productKind(listing.name, parsed).kind));
  const profile = profiled ? partialProfile(listing) : null;
  partials.set(key, profile);
  return profile;
}

function matchOf(snapshot: CatalogSnapshot, listing: Pick<ProductInput, 'name' | 'house'>): ExplainedMatch {
  const key = `${snapshot.version}\u0000${listing.house}\u0000${listing.name}`;
  let hit = matches.get(key);
  if (!hit) {
    hit = explainMatch(snapshot, { name: listing.name, house: listing.house });
    matches.set(key, hit);
  }
  return hit;
}

/** A profile and what it rests on; the original, when it is borrowed from the perfume it is inspired by. */
interface FoundProfile {
  profile: ProductProfile | null;
  quality: ProfileQuality | null;
  inspiredBy: CatalogPerfume | null;
  inspiredFrom?: 'catalog' | 'merchant' | 'shops';
  shops?: number;
}

/**
 * What the shelves taught, for recognising products, by perfume id: perfumes' profiles as shops
 * describe them, and the perfumes merchants' answers in force say they are sold as the answer to.
 */
export interface Learnt {
  profiles: ReadonlyMap<string, ShopProfile>;
  inspired?: ReadonlyMap<string, string>;
}

const NO_PROFILE: FoundProfile = { profile: null, quality: null, inspiredBy: null };

/** Whether a merchant's profile rests on more than the words of the product's name. */
const describedBeyondName = (p: ProductProfile) => (p.basis ?? []).some((b) => b !== 'name');

/**
 * A product's scent profile from the best evidence there is, in order: its perfume's own profile
 * (full for a confirmed or referenced one, unreviewed for the older grouped files, sibling for a
 * close version's); the notes shops agree it has, from `learnt` (shops: at least two merchants'
 * descriptions or answers, never a sibling's); the merchant's own answer's notes and accords, then
 * its accords, notes and description (described when the perfume is ours, partial when it is not);
 * the profile of the perfume it is inspired by, when that one has its own (inspired): as our record
 * says, else as the merchant's own answer says, else as merchants' answers in force say; the note
 * and family words of the product's name alone (guessed); otherwise none: recognised, or not, but
 * never recommended.
 */
export function profileOf(
  listing: ProductInput,
  perfume: CatalogPerfume | null,
  sibling: boolean,
  snapshot: Pick<CatalogSnapshot, 'byId'>,
  learnt?: Learnt,
): FoundProfile {
  if (perfume?.grade) {
    const quality = sibling ? 'sibling' : perfume.grade === 'unreviewed' ? 'unreviewed' : 'full';
    return { profile: catalogProfile(perfume), quality, inspiredBy: null };
  }
  // what shops agree the perfume is: the product's own perfume only, never a close version's
  const shops = perfume && !sibling ? learnt?.profiles.get(perfume.id) : undefined;
  if (shops) return { profile: shops.profile, quality: 'shops', inspiredBy: null, shops: shops.shops };
  const answered = listing.answer ? answerProfile(listing.answer) : null;
  if (answered) return { profile: answered, quality: perfume ? 'described' : 'partial', inspiredBy: null };
  const own = partialOf(listing);
  if (own && describedBeyondName(own))
    return { profile: own, quality: perfume ? 'described' : 'partial', inspiredBy: null };
  // one step only: the original lends its own profile, never one it borrows in turn
  const said: [string | null | undefined, 'catalog' | 'merchant' | 'shops'][] = [
    [perfume?.inspiredBy, 'catalog'],
    [listing.answer?.inspired_by, 'merchant'],
    [perfume && !sibling ? learnt?.inspired?.get(perfume.id) : undefined, 'shops'],
  ];
  for (const [id, from] of said) {
    const original = id ? snapshot.byId.get(id) : undefined;
    if (original?.grade)
      return { profile: catalogProfile(original), quality: 'inspired', inspiredBy: original, inspiredFrom: from };
  }
  return own ? { profile: own, quality: 'guessed', inspiredBy: null } : NO_PROFILE;
}

/**
 * What a listing is: matched to a perfume of ours (by the matcher, or by the
 * stored decision when one is given: a pin, or the match made at sync), else
 * profiled from the merchant's hints, else unmatched. Its profile comes from
 * the best evidence there is (`profileOf`).
 */
export function recogniseProduct(
  listing: ProductInput,
  snapshot: CatalogSnapshot,
  stored?: StoredDecision,
  learnt?: Learnt,
): RecognisedProduct {
  const match: MatchResult = stored
    ? {
        perfumeId: stored.status === 'matched' ? stored.perfumeId : null,
        confidence: stored.confidence ?? 0,
        reason: stored.reason ?? '',
        sibling: stored.sibling,
      }
    : matchOf(snapshot, listing);
  // a perfume that has left the catalog since the decision was stored cannot lend its profile
  const perfume = (match.perfumeId ? snapshot.byId.get(match.perfumeId) : undefined) ?? null;
  const sibling = perfume !== null && match.sibling === true && !stored?.pinned;
  const found = profileOf(listing, perfume, sibling, snapshot, learnt);
  const status: RecognisedStatus = perfume ? 'matched' : found.profile ? 'partial' : 'unmatched';
  return {
    listing,
    status,
    sibling,
    match,
    pinned: stored?.pinned ?? false,
    perfume,
    ...found,
    imageUrl: listing.imageUrl ?? perfume?.imageUrl ?? null,
    line: perfume ? lineOf(perfume.house, perfume.name) : `merchant|${lineOf(listing.house, listing.name)}`,
    lineHouse: perfume?.house ?? listing.house,
  };
}

/** The engine's view of a recognised product; null when it cannot be recommended. */
export function scoringProductOf(r: RecognisedProduct): ScoringProduct | null {
  // no profile (its quality is then none): never recommended; sold out: neither, whatever it fits
  if (!r.quality || !r.listing.available) return null;
  return {
    merchantProductId: r.listing.merchantProductId,
    perfumeId: r.perfume?.id ?? null,
    name: r.listing.name,
    house: r.listing.house,
    // what the shopper pays now: the sale price when the shop discounts it
    price: r.listing.salePrice ?? r.listing.price,
    currency: r.listing.currency,
    productUrl: r.listing.productUrl,
    imageUrl: r.imageUrl,
    quality: r.quality,
    ...(r.sibling ? { sibling: true } : {}),
    gender: genderOf(r),
    ...kindOf(r.listing.name, r.sibling ? null : (r.perfume?.concentration ?? null), r.listing.kindOverride),
    profile: r.profile as ProductProfile,
    line: r.line,
    lineHouse: r.lineHouse,
    // the product is our perfume, whatever its profile rests on: our names for it (never a sibling's)
    ...(r.perfume && !r.sibling ? { names: namesOf(r.perfume) } : {}),
    ...(r.inspiredBy ? { inspiredBy: { id: r.inspiredBy.id, ...namesOf(r.inspiredBy) } } : {}),
    ...(r.quality === 'shops' && r.shops ? { shops: r.shops } : {}),
  };
}

/**
 * A product's kind (the merchant's correction, else as its listing reads: matching/kind.ts), whether
 * its listing says it holds no alcohol (an oil, bakhoor or oud wood holds none by its kind:
 * scoring/engine.ts), and a spray's or sample's concentration: the listing's words, else our
 * perfume's (for how it lasts: scoring/heat.ts).
 */
function kindOf(
  name: string,
  ours: string | null,
  corrected?: ProductKind | null,
): { kind: ProductKind; alcoholFree?: true; concentration: string | null } {
  const k = productKind(name);
  const kind = corrected ?? k.kind;
  return {
    kind,
    ...(k.alcoholFree ? { alcoholFree: true as const } : {}),
    concentration: kind === 'spray' || kind === 'sample' ? (k.concentration ?? ours) : null,
  };
}

const namesOf = (p: CatalogPerfume) => ({
  en: { name: p.name, house: p.house },
  ar: { name: p.nameAr, house: p.houseAr },
});

/** For whom a product is: our perfume's gender, else the listing's own words ("for men", "نسائي"), else not known. */
function genderOf(r: RecognisedProduct): 'men' | 'women' | 'unisex' | null {
  const g = r.perfume?.gender;
  if (g === 'men' || g === 'women' || g === 'unisex') return g;
  return parseListing(r.listing.name).gender;
}

export interface ListingProblem {
  /** the row's position in the list it came in */
  index: number;
  /** the row's merchant_product_id, when it has a usable one */
  merchantProductId?: string;
  message: string;
}

/**
 * A list of listings as a merchant sends it (a feed to sync, or an inline
 * catalog with a score request): each row validated, a repeated
 * merchant_product_id refused, and the rest recognised. A bad row is a problem
 * named by its position, never a reason to refuse the others.
 */
export function recogniseListings(
  rows: readonly unknown[],
  snapshot: CatalogSnapshot,
): { recognised: RecognisedProduct[]; problems: ListingProblem[] } {
  const problems: ListingProblem[] = [];
  const recognised: RecognisedProduct[] = [];
  const seen = new Set<string>();
  rows.forEach((raw, index) => {
    const v = validateProductInput(raw);
    if (!v.ok) {
      problems.push({ index, merchantProductId: v.merchantProductId, message: v.reason });
      return;
    }
    const id = v.product.merchantProductId;
    if (seen.has(id)) {
      problems.push({ index, merchantProductId: id, message: 'merchant_product_id appears twice in the list' });
      return;
    }
    seen.add(id);
    recognised.push(withSpelling(recogniseProduct(v.product, snapshot)));
  });
  return { recognised, problems };
}

export type RecognisedListings = ReturnType<typeof recogniseListings>;

/**
 * A product recognised in bulk, with its listing's spelling: read once where it was recognised (the
 * matcher's worker in the service), so a sync never reads a name again on the event loop.
 */
export const withSpelling = (r: RecognisedProduct): RecognisedProduct => ({ ...r, spelling: spellingOf(r.listing) });

/**
 * Recognises many listings for a merchant (`owner`): `listings` as `recogniseListings` does (rows as
 * a merchant sends them), `products` listings already validated (stored products matched again)
 * as `recogniseProduct` does without a stored decision. In the service this is the matcher's worker
 * thread, a slice at a time (plugins/app/inline-matcher.ts), never the event loop that answers the
 * requests; `inProcessMatcher` is the same work here (a command-line tool, the tests).
 */
export interface ListingMatcher {
  listings(owner: string, rows: readonly unknown[]): Promise<RecognisedListings>;
  products(owner: string, products: readonly ProductInput[]): Promise<RecognisedProduct[]>;
  /** `explainListing` of each (a page of the shelf, the admin product list) */
  explain(owner: string, listings: readonly ExplainedListing[]): Promise<ListingExplanation[]>;
}

/** what an explanation is of: a listing's name and house */
export type ExplainedListing = Pick<ProductInput, 'name' | 'house'>;

export const inProcessMatcher = (snapshot: CatalogSnapshot): ListingMatcher => ({
  listings: async (_owner, rows) => recogniseListings(rows, snapshot),
  products: async (_owner, products) => products.map((p) => withSpelling(recogniseProduct(p, snapshot))),
  explain: async (_owner, listings) => listings.map((l) => explainListing(l, snapshot)),
});

/**
 * `recogniseListings` of `rows`, `size` rows at a time through `recognise` (each slice on its own):
 * the same answer as of the whole list at once. Problems name a row by its place in `rows`, and a
 * merchant_product_id already recognised in an earlier slice is refused as repeated, as it is in one list.
 */
export async function recogniseInSlices(
  rows: readonly unknown[],
  size: number,
  recognise: (slice: readonly unknown[]) => Promise<RecognisedListings>,
): Promise<RecognisedListings> {
  const recognised: RecognisedProduct[] = [];
  const problems: ListingProblem[] = [];
  const seen = new Set<string>();
  for (let from = 0; from < rows.length; from += size) {
    const slice = rows.slice(from, from + size);
    const part = await recognise(slice);
    const refused = new Set(part.problems.map((p) => p.index));
    for (const p of part.problems) problems.push({ ...p, index: p.index + from });
    // the recognised rows are the slice's rows that are not problems, in order
    let k = 0;
    for (let i = 0; i < slice.length; i++) {
      if (refused.has(i)) continue;
      const r = part.recognised[k++];
      if (!r) break;
      const id = r.listing.merchantProductId;
      if (seen.has(id)) {
        problems.push({
          index: from + i,
          merchantProductId: id,
          message: 'merchant_product_id appears twice in the list',
        });
        continue;
      }
      seen.add(id);
      recognised.push(r);
    }
  }
  if (rows.length > size) problems.sort((a, b) => a.index - b.index);
  return { recognised, problems };
}

/** Why the service reads a listing as it does: for an operator deciding whether to pin it. */
export interface ListingExplanation {
  parsed: {
    words: string[];
    concentration: string | null;
    gender: 'men' | 'women' | null;
    size: { value: number; unit: 'ml' | 'oz' } | null;
    form: ProductForm;
    noise: string[];
    not_perfume: string | null;
    /** what kind of product it is (matching/kind.ts): a spray, an oil, bakhoor, oud wood, a mist… */
    kind: ProductKind;
    /** true when the listing says it holds no alcohol */
    alcohol_free: true | null;
    /** a gift set's kinds, as its listing names them */
    contents: ProductKind[];
  };
  house: { name: string | null; from: 'house' | 'name' | null };
  /** what the matcher makes of the listing now (a pin may have overruled it) */
  matcher: {
    perfume_id: string | null;
    confidence: number;
    sibling: boolean;
    reason: string;
    /** the reason as data (matching/reason.ts), for a reader in another language (the console) */
    why: MatchWhy;
  };
  /** the closest perfumes it examined, best first */
  candidates: { sillage_perfume_id: string; name: string; concentration: string | null; score: number }[];
}

export function explainListing(
  listing: Pick<ProductInput, 'name' | 'house'>,
  snapshot: CatalogSnapshot,
): ListingExplanation {
  const parsed = parseListing(listing.name);
  const house = listingHouse(snapshot.index, listing.house, parsed);
  const match = matchOf(snapshot, listing);
  const kind = productKind(listing.name, parsed);
  return {
    parsed: {
      words: parsed.words,
      concentration: parsed.concentration,
      gender: parsed.gender,
      size: parsed.size,
      form: parsed.form,
      noise: parsed.noise,
      not_perfume: parsed.notPerfume,
      kind: kind.kind,
      alcohol_free: kind.alcoholFree,
      contents: kind.contents,
    },
    house: { name: house.house, from: house.from },
    matcher: {
      perfume_id: match.perfumeId,
      confidence: match.confidence,
      sibling: match.sibling === true,
      reason: match.reason,
      why: match.why,
    },
    candidates: (match.candidates ?? []).flatMap((c) => {
      const p = snapshot.byId.get(c.perfumeId);
      return p ? [{ sillage_perfume_id: p.id, name: p.name, concentration: p.concentration, score: c.score }] : [];
    }),
  };
}
