/**
 * A perfume the catalog does not know, proposed by shelves (docs/learning.md "New identities"):
 * listings of different shops that spell the same house and line (the same spelling key,
 * matching/listing.ts spellingOf) and match no perfume of ours. What the listings say is read here,
 * as data: the house they name (one of ours, and the same for all), the line's words, the
 * concentration and gender they state, and each listing as evidence the operator can open. Only a
 * bottle backs an identity (catalog/evidence.ts shopListingProblem): a sample, a miniature, a set
 * or a perfume sold as the answer to another is left out. Pure: the database side is
 * services/identities.ts.
 */
import { ownerKey, SHOPS_FOR_IDENTITY, shopListingProblem } from '../catalog/evidence.ts';
import type { SearchIndex } from '../catalog/search.ts';
import { searchTokens } from '../catalog/search.ts';
import { listingHouse } from './matcher.ts';
import { GENDER_WORDS, LINKING_WORDS, parseListing } from './parse.ts';

/** One shop's listing of a spelling the catalog does not match. */
export interface IdentityWitness {
  merchantId: string;
  /** the listing's page on the shop's storefront */
  url: string;
  /** its title and house field, as the shop wrote them */
  name: string;
  house: string;
}

/** A listing as evidence: its page, whose shop it is (its host), and its title. */
export interface IdentityEvidence {
  url: string;
  owner: string;
  title: string;
}

export interface IdentityProposal {
  key: string;
  /** the catalog's house the listings name */
  house: string;
  /** the line, from the listings' words less the house's */
  name: string;
  /** the concentration the spelling states, or null (the operator gives it) */
  concentration: string | null;
  /** the gender every counted listing states, or null when they state none or disagree */
  gender: 'men' | 'women' | null;
  /** independent shops (storefront hosts) whose listings back it */
  shops: number;
  merchantIds: string[];
  evidence: IdentityEvidence[];
}

/** Listings kept as a proposal's evidence, at most (the first of each shop, by host). */
export const MAX_IDENTITY_EVIDENCE = 6;
/** Independent shops whose bottles must name a line before it is proposed: as the catalog's rule for an identity. */
export const MIN_IDENTITY_SHOPS = SHOPS_FOR_IDENTITY;
/** A source the catalog accepts: http(s), at most 600 characters (catalog/schema.ts SOURCE_PATTERN). */
const MAX_SOURCE_LENGTH = 600;
const MAX_TITLE_LENGTH = 200;

/** The host a listing's page is on, or null for a page that is not a web address the catalog can cite. */
export function pageOwner(url: string): string | null {
  if (url.length > MAX_SOURCE_LENGTH || /\s/.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  return ownerKey(parsed.host) || null;
}

const isGenderTail = (w: string) => GENDER_WORDS.has(w) || LINKING_WORDS.has(w);
const titleCase = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);

/** The line's words: the spelling's, less every word the house is known by and the listings' house fields. */
export function lineName(key: string, house: string, index: SearchIndex, houseFields: readonly string[]): string {
  const words = key.slice(2, key.lastIndexOf('|')).split(' ');
  const houseWords = new Set<string>();
  for (const [k, h] of index.houseKeys) if (h === house) for (const w of k.split(' ')) houseWords.add(w);
  for (const f of houseFields) for (const w of searchTokens(f)) houseWords.add(w);
  const line = words.filter((w) => !houseWords.has(w));
  // "… for men", "… للرجال": who it is for, said after the name, is the gender's, not the line's (a
  // line of such words alone, "Pour Homme", is too little to tell it from the house's others)
  while (isGenderTail(line[line.length - 1] ?? '')) line.pop();
  return line.map(titleCase).join(' ');
}

/**
 * What the listings of one spelling propose, or null when they back no identity: fewer than
 * MIN_IDENTITY_SHOPS independent shops whose bottle names a house of ours, the same one, with a
 * page to cite and a word of its own beyond the house's. Work: one parse and one house lookup a
 * listing (each bounded, matching/parse.ts and matching/matcher.ts).
 */
export function identityProposalOf(
  key: string,
  witnesses: readonly IdentityWitness[],
  index: SearchIndex,
): IdentityProposal | null {
  const counted = new Map<string, { w: IdentityWitness; house: string; gender: 'men' | 'women' | null }>();
  const houses = new Set<string>();
  for (const w of witnesses) {
    const owner = pageOwner(w.url);
    if (owner === null || counted.has(owner)) continue;
    if (shopListingProblem(w.name) !== null) continue;
    const parsed = parseListing(w.name);
    const { house } = listingHouse(index, w.house, parsed);
    if (house === null) continue;
    houses.add(house);
    counted.set(owner, { w, house, gender: parsed.gender });
  }
  // shops that name different houses for one spelling: the spelling is not one perfume's
  if (houses.size !== 1 || counted.size < MIN_IDENTITY_SHOPS) return null;
  const house = [...houses][0] as string;
  const entries = [...counted.entries()].sort(([a], [b]) => a.localeCompare(b));
  const name = lineName(
    key,
    house,
    index,
    entries.map(([, c]) => c.w.house),
  );
  if (!name) return null;
  const genders = new Set(entries.map(([, c]) => c.gender));
  const gender = genders.size === 1 ? ([...genders][0] ?? null) : null;
  const concentration = key.slice(key.lastIndexOf('|') + 1) || null;
  return {
    key,
    house,
    name,
    concentration,
    gender,
    shops: counted.size,
    merchantIds: [...new Set(entries.map(([, c]) => c.w.merchantId))].sort(),
    evidence: entries.slice(0, MAX_IDENTITY_EVIDENCE).map(([owner, c]) => ({
      url: c.w.url,
      owner,
      title: c.w.name.slice(0, MAX_TITLE_LENGTH),
    })),
  };
}
