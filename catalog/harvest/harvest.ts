/**
 * Harvesting perfume identities from real shops' listings (docs/catalog.md
 * "Harvesting identities"). Offline tooling, never run on a request.
 *
 * 1. Every listing of every shop source goes through the project's own
 *    listing parser and matcher. A listing matched to a record of the
 *    catalog (confidence at least MIN_CONFIDENCE, the listing's own
 *    concentration) is that shop's evidence for the record.
 * 2. A Latin-script listing that names a house and a concentration but no
 *    perfume of ours joins the cluster of its house, line words and
 *    concentration. A listing that is a concentration the catalog lacks of a
 *    line it has joins that line's cluster under its own concentration.
 * 3. The clusters become temporary identities, and every listing, Arabic
 *    ones included, is matched again against catalog and clusters together:
 *    what each cluster's listings name, from how many independent shops, and
 *    the Arabic name Arabic listings give it.
 *
 * A proposal is never a record: a writer turns it into one, checking its
 * sources, and a reviewer other than the writer checks the record.
 */

import { normalizeText } from '../../lib/text.ts';
import { explainMatch, listingHouse, MATCH_THRESHOLD, saysNoHouse } from '../../matching/matcher.ts';
import { parseListing } from '../../matching/parse.ts';
import { ownerKey, shopListingProblem } from '../evidence.ts';
import type { Evidence } from '../schema.ts';
import { buildSnapshot, type CatalogSnapshot } from '../store.ts';
import type { CatalogHouse, CatalogPerfume } from '../types.ts';
import { splitInspiredClaim } from './inspired.ts';
import { type HarvestSource, sourceRef } from './sources.ts';

/** A listing counts as a shop's word for a perfume only when the matcher is this sure. */
export const MIN_CONFIDENCE = 0.95;

const ARABIC = /[\u0600-\u06FF]/;
const UNISEX = /\b(unisex|uni sex)\b|للجنسين|يونيسكس/;

export interface HarvestedListing {
  source: HarvestSource;
  title: string;
  houseField: string;
  /** the listing's description, when its source's rule reads one */
  description?: string;
  /** the same product as the same shop lists it in the other script */
  twin?: HarvestedListing;
}

export interface Proposal {
  /** house|line|concentration, folded */
  key: string;
  house: string;
  /** the house is one of the catalog's houses */
  houseKnown: boolean;
  /** for a house the catalog lacks: the Arabic house names its shops' Arabic listings give, most shops first */
  houseAr: string[];
  name: string;
  concentration: string;
  /** the gender the listings state, when they agree; null when none states one or they disagree */
  gender: 'men' | 'women' | 'unisex' | null;
  /** the Arabic name most independent shops' Arabic listings give, if any */
  nameAr: string | null;
  /** a concentration the catalog lacks of a line it has */
  siblingOf: string | null;
  shops: number;
  owners: string[];
  listings: number;
  evidence: Evidence[];
}

export interface HarvestResult {
  /** evidence for records the catalog already has, by record id */
  known: Map<string, Evidence[]>;
  proposals: Proposal[];
  stats: {
    sources: number;
    owners: number;
    listings: number;
    notPerfume: number;
    matchedKnown: number;
    matchedProposals: number;
    unplaced: number;
  };
}

interface Cluster {
  key: string;
  house: string;
  houseKnown: boolean;
  concentration: string;
  lineWords: string[];
  siblingOf: string | null;
  /** original spellings of each folded word, counted */
  spellings: Map<string, Map<string, number>>;
  /** the Arabic titles the same shops give the cluster's listings */
  arabicTwins: { title: string; owner: string }[];
}

function houseWords(snapshot: CatalogSnapshot, house: string): Set<string> {
  const h = snapshot.houseByName.get(house);
  const names = h ? [h.name, h.nameAr ?? '', ...h.aliases, ...h.abbreviations] : [house];
  return new Set(names.flatMap((n) => normalizeText(n).split(' ')).filter(Boolean));
}

/**
 * Words that say for whom a bottle is sold and never name a line; "Her",
 * "Homme", "Pour Femme" and "Man" do ("Burberry Her", "Club de Nuit Intense Man").
 */
const FOR_WHOM = new Set(
  [
    'men',
    'mens',
    'women',
    'womens',
    'unisex',
    'mujer',
    'hombre',
    'masculino',
    'feminino',
    'masculina',
    'femenino',
    'male',
    'female',
    'للرجال',
    'للنساء',
    'رجالي',
    'نسائي',
    'للجنسين',
  ].map(normalizeText),
);

/** The words of a listing that name its line: the house's words, for-whom words and concentration words left out. */
function lineWordsOf(words: readonly string[], house: Set<string>, concentrationWords: Set<string>): string[] {
  return words.filter((w) => !house.has(w) && !FOR_WHOM.has(w) && !concentrationWords.has(w));
}

/**
 * The line's name as a listing writes it: the stretch of its title from the
 * first line word to the last, small words inside kept ("Club de Nuit").
 */
function addSpellings(cluster: Cluster, title: string): void {
  const raw = title.split(/[\s—–|,()]+/).map((t) => t.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}'’]+$/gu, ''));
  const folded = raw.map((t) => normalizeText(t));
  const at = folded.map((f, i) => (cluster.lineWords.includes(f) ? i : -1)).filter((i) => i >= 0);
  if (at.length === 0) return;
  const span = raw.slice(at[0], (at.at(-1) as number) + 1).join(' ');
  if (span.split(' ').length > cluster.lineWords.length + 3) return;
  cluster.spellings.set(span, new Map([[span, (cluster.spellings.get(span)?.get(span) ?? 0) + 1]]));
}

function displayName(cluster: Cluster): string {
  const seen = [...cluster.spellings.keys()].map((k) => [k, cluster.spellings.get(k)?.get(k) ?? 0] as const);
  // the spelling most listings use, one in title case first
  seen.sort((a, b) => b[1] - a[1] || Number(/^\p{Lu}\p{Ll}/u.test(b[0])) - Number(/^\p{Lu}\p{Ll}/u.test(a[0])));
  const best = seen[0]?.[0] ?? cluster.lineWords.join(' ');
  return best === best.toUpperCase()
    ? best
        .toLowerCase()
        .replace(/(^|\s)(\p{L})/gu, (_, s: string, c: string) => s + c.toUpperCase())
        .replace(/\b(De|Du|La|Le|Di|Al|Of|Pour|Des)\b/g, (w) => (w === 'Al' ? w : w.toLowerCase()))
    : best;
}

function slug(s: string): string {
  return normalizeText(s)
    .normalize('NFKD')
    .replace(/[^a-z0-9 ]/g, '')
    .trim()
    .replace(/ +/g, '-');
}

function genderOfTitle(title: string): 'men' | 'women' | 'unisex' | null {
  if (UNISEX.test(normalizeText(title))) return 'unisex';
  return parseListing(title).gender;
}

/** A listing's evidence entry: the shop's listing, what it gave and the facts it backs. */
function listingEvidence(l: HarvestedListing, facts: { gender: string | null; nameAr: string | null }): Evidence {
  const supports: Evidence['supports'] = ['identity'];
  const g = genderOfTitle(l.title);
  if (g !== null && g === facts.gender) supports.push('gender');
  if (facts.nameAr && normalizeText(l.title).includes(normalizeText(facts.nameAr))) supports.push('name_ar');
  return {
    source: sourceRef(l.source),
    kind: 'shop',
    owner: l.source.owner,
    gave: (l.houseField && !normalizeText(l.title).includes(normalizeText(l.houseField))
      ? `${l.houseField} — ${l.title}`
      : l.title
    ).slice(0, 600),
    supports,
  };
}

/**
 * The listings' evidence: one listing per owner and script (a Latin one and
 * an Arabic one), those that give the Arabic name first.
 */
function evidenceOf(listings: readonly HarvestedListing[], facts: { gender: string | null; nameAr: string | null }) {
  const arabic = facts.nameAr ? normalizeText(facts.nameAr) : null;
  const ordered = [...listings].sort(
    (a, b) =>
      Number(arabic !== null && normalizeText(b.title).includes(arabic)) -
      Number(arabic !== null && normalizeText(a.title).includes(arabic)),
  );
  const seen = new Set<string>();
  const kept: Evidence[] = [];
  for (const l of ordered) {
    const k = `${ownerKey(l.source.owner)}|${ARABIC.test(l.title) ? 'ar' : 'latin'}`;
    if (seen.has(k)) continue;
    seen.add(k);
    kept.push(listingEvidence(l, facts));
  }
  return kept;
}

/** The Arabic house fields of listings, by how many owners give each, most first. */
function arabicHouseFields(list: readonly HarvestedListing[]): string[] {
  const owners = new Map<string, Set<string>>();
  for (const l of list) {
    for (const field of l.houseField.split('|').map((f) => f.trim())) {
      if (!ARABIC.test(field)) continue;
      const set = owners.get(field) ?? new Set<string>();
      set.add(ownerKey(l.source.owner));
      owners.set(field, set);
    }
  }
  return [...owners].sort((a, b) => b[1].size - a[1].size || a[0].localeCompare(b[0])).map(([f]) => f);
}

/** A product's listings with their twins in the other script, each once. */
function withTwins(list: readonly HarvestedListing[]): HarvestedListing[] {
  const all = new Set<HarvestedListing>(list);
  for (const l of list) if (l.twin) all.add(l.twin);
  return [...all];
}

/** The Arabic name of a perfume as Arabic listings give it: the words they share beyond the house and the seller's words. */
function arabicName(titles: readonly { title: string; owner: string }[], house: Set<string>): string | null {
  const counts = new Map<string, Set<string>>();
  for (const { title, owner } of titles) {
    const parsed = parseListing(title);
    const conc = new Set(parsed.concentrationWords);
    const words = lineWordsOf(parsed.words, house, conc).filter((w) => ARABIC.test(w) && w !== 'عطر');
    if (words.length === 0 || words.length > 5) continue;
    const name = words.join(' ');
    const owners = counts.get(name) ?? new Set<string>();
    owners.add(ownerKey(owner));
    counts.set(name, owners);
  }
  const best = [...counts.entries()].sort((a, b) => b[1].size - a[1].size || a[0].localeCompare(b[0]))[0];
  return best ? best[0] : null;
}

/** Runs a harvest over the given listings against the catalog snapshot. */
export function harvest(snapshot: CatalogSnapshot, listings: readonly HarvestedListing[]): HarvestResult {
  const clusters = new Map<string, Cluster>();
  let notPerfume = 0;
  const perfumeListings: HarvestedListing[] = [];

  // 1. clusters of what the catalog does not know
  for (const l of listings) {
    const parsed = parseListing(l.title);
    // only a perfume's bottle names it: not a sample, a decant shop's pour, a miniature, a set,
    // nor another perfume sold as the answer to it (catalog/evidence.ts)
    if (parsed.notPerfume || l.source.sells === 'decants' || shopListingProblem(l.title) !== null) {
      notPerfume++;
      continue;
    }
    perfumeListings.push(l);
    if (ARABIC.test(l.title) || !parsed.concentration) continue;
    // "Salvo Elixir EDP": a concentration word in the name of a perfume sold as another concentration
    const named = parsed.namePartConcentrations.map((c) => c.slug);
    const soldAs = parsed.concentrations.find((c) => !named.includes(c));
    const concentration = named.length > 0 && soldAs ? soldAs : parsed.concentration;
    const nameWords =
      concentration === parsed.concentration ? [] : parsed.namePartConcentrations.flatMap((c) => c.tokens);
    const match = explainMatch(snapshot, { name: l.title, house: l.houseField });
    const perfume = match.perfumeId ? snapshot.byId.get(match.perfumeId) : undefined;
    if (perfume && match.confidence >= MIN_CONFIDENCE && !match.sibling) continue;
    let house: string;
    let houseKnown: boolean;
    let lineWords: string[];
    let siblingOf: string | null = null;
    const conc = new Set(parsed.concentrationWords);
    if (perfume && match.sibling && match.confidence >= MIN_CONFIDENCE) {
      // a concentration of a line the catalog has, which it lacks
      house = perfume.house;
      houseKnown = true;
      lineWords = normalizeText(perfume.name).split(' ');
      siblingOf = perfume.id;
    } else {
      // a house field may give the house in two scripts ("لطافة | Latafa")
      const fields = l.houseField.split('|').map((f) => f.trim());
      const found = fields.map((f) => listingHouse(snapshot.index, f, parsed).house).find((h) => h !== null);
      const latin = fields.find((f) => f && !saysNoHouse(f) && !ARABIC.test(f));
      if (found) {
        house = found;
        houseKnown = true;
      } else if (latin) {
        house = latin.replace(/\s+/g, ' ').trim();
        houseKnown = false;
      } else continue;
      lineWords = [
        ...lineWordsOf(parsed.words, houseWords(snapshot, house), conc).filter((w) => !/^\d+$/.test(w)),
        ...nameWords,
      ];
    }
    if (lineWords.length === 0 || lineWords.length > 6) continue;
    const key = `${normalizeText(house)}|${lineWords.join(' ')}|${concentration}`;
    let cluster = clusters.get(key);
    if (!cluster) {
      cluster = {
        key,
        house,
        houseKnown,
        concentration,
        lineWords,
        siblingOf,
        spellings: new Map(),
        arabicTwins: [],
      };
      clusters.set(key, cluster);
    }
    addSpellings(cluster, l.title);
    if (l.twin && ARABIC.test(l.twin.title)) cluster.arabicTwins.push({ title: l.twin.title, owner: l.source.owner });
  }

  // 2. the clusters as identities beside the catalog's records, and every listing matched again
  const tempHouses = new Map<string, CatalogHouse>();
  for (const c of clusters.values()) {
    if (c.houseKnown || tempHouses.has(c.house)) continue;
    tempHouses.set(c.house, {
      name: c.house,
      nameAr: null,
      aliases: [],
      abbreviations: [],
      region: null,
      country: null,
    });
  }
  const temp: CatalogPerfume[] = [...clusters.values()].map((c) => ({
    id: `proposal:${c.key}`,
    name: displayName(c),
    // the Arabic name the same shop gives it, so that other shops' Arabic listings find it
    nameAr: arabicName(c.arabicTwins, houseWords(snapshot, c.house)),
    house: c.house,
    houseAr: null,
    concentration: c.concentration,
    year: null,
    gender: null,
    families: [],
    accords: [],
    notes: {},
    seasons: [],
    times: [],
    occasions: [],
    aliases: [],
    imageUrl: null,
    grade: null,
    inspiredBy: null,
    barcodes: [],
  }));
  const joint = buildSnapshot(
    snapshot.version,
    [...snapshot.perfumes, ...temp],
    [...snapshot.houses, ...tempHouses.values()],
  );
  const byPerfume = new Map<string, HarvestedListing[]>();
  let matchedKnown = 0;
  let matchedProposals = 0;
  let unplaced = 0;
  for (const l of perfumeListings) {
    const match = explainMatch(joint, { name: l.title, house: l.houseField });
    const perfume = match.perfumeId ? joint.byId.get(match.perfumeId) : undefined;
    // a listing that does not state the concentration names the line, not this perfume of it
    const stated = parseListing(l.title).concentrations;
    if (
      !match.perfumeId ||
      !perfume ||
      match.confidence < MIN_CONFIDENCE ||
      match.sibling ||
      !stated.includes(perfume.concentration ?? '')
    ) {
      unplaced++;
      continue;
    }
    if (match.perfumeId.startsWith('proposal:')) matchedProposals++;
    else matchedKnown++;
    const list = byPerfume.get(match.perfumeId) ?? [];
    list.push(l);
    byPerfume.set(match.perfumeId, list);
  }

  // 3. what each names, from how many shops
  const known = new Map<string, Evidence[]>();
  const proposals: Proposal[] = [];
  for (const [id, list] of byPerfume) {
    const perfume = joint.byId.get(id) as CatalogPerfume;
    const house = houseWords(joint, perfume.house);
    if (!id.startsWith('proposal:')) {
      known.set(id, evidenceOf(withTwins(list), { gender: perfume.gender, nameAr: perfume.nameAr }));
      continue;
    }
    const cluster = clusters.get(id.slice('proposal:'.length)) as Cluster;
    const genders = new Set(list.map((l) => genderOfTitle(l.title)).filter((g) => g !== null));
    const gender = genders.size === 1 ? ([...genders][0] as 'men' | 'women' | 'unisex') : null;
    const nameAr = arabicName(
      [...list, ...list.flatMap((l) => (l.twin ? [l.twin] : []))]
        .filter((l) => ARABIC.test(l.title))
        .map((l) => ({ title: l.title, owner: l.source.owner })),
      house,
    );
    const byKey = new Map(list.map((l) => [ownerKey(l.source.owner), l.source.owner]));
    const owners = [...byKey.values()].sort();
    proposals.push({
      key: cluster.key,
      house: perfume.house,
      houseKnown: cluster.houseKnown,
      houseAr: cluster.houseKnown ? [] : arabicHouseFields(withTwins(list)),
      name: perfume.name,
      concentration: cluster.concentration,
      gender,
      nameAr,
      siblingOf: cluster.siblingOf,
      shops: owners.length,
      owners,
      listings: list.length,
      evidence: evidenceOf(withTwins(list), { gender, nameAr }),
    });
  }
  proposals.sort((a, b) => b.shops - a.shops || b.listings - a.listings || a.key.localeCompare(b.key));
  return {
    known,
    proposals,
    stats: {
      sources: new Set(listings.map((l) => l.source.id)).size,
      owners: new Set(listings.map((l) => ownerKey(l.source.owner))).size,
      listings: listings.length,
      notPerfume,
      matchedKnown,
      matchedProposals,
      unplaced,
    },
  };
}

/** The id a record written from a proposal takes: house-name-concentration. */
export function proposalId(p: Pick<Proposal, 'house' | 'name' | 'concentration'>): string {
  return [slug(p.house), slug(p.name), p.concentration].filter(Boolean).join('-');
}

/** An "inspired by" the shops' listings claim: a record of ours sold as the answer to another record of ours. */
export interface InspiredProposal {
  /** the record sold as the answer */
  alternative: string;
  /** the record it is sold as the answer to */
  original: string;
  shops: number;
  owners: string[];
  /** one listing per shop, its claim as written */
  evidence: Evidence[];
}

export interface InspiredHarvest {
  proposals: InspiredProposal[];
  stats: {
    /** listings whose title or description makes a claim */
    claims: number;
    /** claims both of whose perfumes are records of ours, and not one line (a line's claim is its every record's) */
    placed: number;
    /** claims whose alternative is no record of ours (a house's own dupe line, mostly) */
    alternativeUnknown: number;
    /** claims whose original is no record of ours, or names a line whose concentration it leaves open */
    originalUnknown: number;
  };
}

/** The records of the line a claim's text names, matched at least `sure` and not as a sibling. */
function claimLine(snapshot: CatalogSnapshot, name: string, house: string, sure: number): CatalogPerfume[] {
  const match = explainMatch(snapshot, { name, house });
  const perfume = match.perfumeId ? snapshot.byId.get(match.perfumeId) : undefined;
  if (!perfume || match.confidence < sure || match.sibling) return [];
  // the concentration it states names one perfume of the line; none names the line
  if (parseListing(name).concentrations.includes(perfume.concentration ?? '')) return [perfume];
  return snapshot.perfumes.filter((p) => lineOf(p) === lineOf(perfume));
}

/**
 * The "inspired by" claims of shops' listings (catalog/harvest/inspired.ts),
 * grouped by the two records they name, with the independent shops behind
 * each. A claim in a title names the alternative in the rest of the title;
 * one in a description names the listing itself. A proposal is never a
 * record: a writer checks its listings, and the record needs two
 * independent sources or the house (catalog/evidence.ts).
 */
export function harvestInspired(snapshot: CatalogSnapshot, listings: readonly HarvestedListing[]): InspiredHarvest {
  const groups = new Map<string, { alternative: string; original: string; byOwner: Map<string, Evidence> }>();
  const stats = { claims: 0, placed: 0, alternativeUnknown: 0, originalUnknown: 0 };
  for (const l of listings) {
    const inTitle = splitInspiredClaim(l.title);
    const claim = inTitle ?? (l.description ? splitInspiredClaim(l.description) : null);
    if (!claim) continue;
    stats.claims++;
    // the alternative as surely as the harvest asks of any listing; the original, named in the shop's
    // words and seldom with its house as the catalog spells it, as surely as a shop's product is matched
    // a claim that names a line and no concentration of it speaks of every perfume of the line
    const alternatives = claimLine(snapshot, inTitle ? claim.alternative : l.title, l.houseField, MIN_CONFIDENCE);
    if (alternatives.length === 0) {
      stats.alternativeUnknown++;
      continue;
    }
    // the original lends its profile: the claim must name one perfume, not a line of several
    const originals = claimLine(snapshot, claim.original, '', MATCH_THRESHOLD);
    const original = originals.length === 1 ? (originals[0] as CatalogPerfume) : null;
    if (!original || lineOf(original) === lineOf(alternatives[0] as CatalogPerfume)) {
      stats.originalUnknown++;
      continue;
    }
    stats.placed++;
    const evidence: Evidence = {
      source: sourceRef(l.source),
      kind: 'shop',
      owner: l.source.owner,
      gave: (inTitle ? l.title : `${l.title} — ${claim.said}`).slice(0, 600),
      supports: ['inspired_by'],
    };
    for (const alternative of alternatives) {
      const key = `${alternative.id}|${original.id}`;
      const group = groups.get(key) ?? { alternative: alternative.id, original: original.id, byOwner: new Map() };
      groups.set(key, group);
      const owner = ownerKey(l.source.owner);
      if (!group.byOwner.has(owner)) group.byOwner.set(owner, evidence);
    }
  }
  const proposals = [...groups.values()].map((g) => ({
    alternative: g.alternative,
    original: g.original,
    shops: g.byOwner.size,
    owners: [...g.byOwner.values()].map((e) => e.owner).sort(),
    evidence: [...g.byOwner.values()],
  }));
  proposals.sort(
    (a, b) => b.shops - a.shops || a.alternative.localeCompare(b.alternative) || a.original.localeCompare(b.original),
  );
  return { proposals, stats };
}

function lineOf(p: CatalogPerfume): string {
  return `${p.house}|${normalizeText(p.name)}`;
}
