import type { CatalogPerfume } from '../catalog/types.ts';
import type { MatchWhy, ReasonPerfume } from '../matching/reason.ts';
import { labelOf } from '../vocabulary/index.ts';
import { type Lang, listSeparator, notPerfumeName, t } from './i18n.ts';

/**
 * Our catalog's perfumes and the matcher's reasons in the page's language: the Arabic name and
 * house where the catalog has them (the English ones where it has not), the concentration as a
 * word ("أو دو بارفان", not "edp"), and the reason written from the matcher's decision as data
 * (matching/reason.ts), never translated from its English sentence.
 */

/** What the console reads of our catalog: a perfume by id, a house's Arabic name by its name. */
export interface CatalogNames {
  perfume(id: string): CatalogPerfume | undefined;
  houseAr(house: string): string | null;
}

export const catalogNames = (snapshot: {
  byId: ReadonlyMap<string, CatalogPerfume>;
  houseByName: ReadonlyMap<string, { nameAr: string | null }>;
}): CatalogNames => ({
  perfume: (id) => snapshot.byId.get(id),
  houseAr: (house) => snapshot.houseByName.get(house)?.nameAr ?? null,
});

/** A perfume as a page names it, in both languages. */
export interface PerfumeNames {
  name: string;
  nameAr: string | null;
  house: string;
  houseAr: string | null;
  concentration: string | null;
}

export const perfumeName = (lang: Lang, p: Pick<PerfumeNames, 'name' | 'nameAr'>) =>
  lang === 'ar' && p.nameAr ? p.nameAr : p.name;
export const houseName = (lang: Lang, p: Pick<PerfumeNames, 'house' | 'houseAr'>) =>
  lang === 'ar' && p.houseAr ? p.houseAr : p.house;
/** "Eau de Parfum", "أو دو بارفان" for `edp`; a slug the vocabulary lacks as it is */
export const concentrationName = (lang: Lang, slug: string) => labelOf('concentration', slug, lang) ?? slug;

/** "Khamrah (Eau de Parfum) by Lattafa", "خمرة (أو دو بارفان) من لطافة" */
export function perfumeLabel(lang: Lang, p: PerfumeNames, withConcentration = true): string {
  const n = perfumeName(lang, p);
  const h = houseName(lang, p);
  return withConcentration && p.concentration
    ? t(lang, 'perfumeBy', { n, c: concentrationName(lang, p.concentration), h })
    : t(lang, 'perfumeByNoConcentration', { n, h });
}

/** A perfume a reason names, with its Arabic names from the catalog (a perfume gone from it: its own). */
function named(names: CatalogNames, p: ReasonPerfume): PerfumeNames {
  return names.perfume(p.id) ?? { ...p, nameAr: null, houseAr: names.houseAr(p.house) };
}

/** The matcher's decision in a language. */
export function whyText(lang: Lang, names: CatalogNames, why: MatchWhy): string {
  const label = (p: ReasonPerfume, withConcentration = true) => perfumeLabel(lang, named(names, p), withConcentration);
  switch (why.kind) {
    case 'not_perfume':
      return t(lang, 'reasonNotPerfume', { w: notPerfumeName(lang, why.what) });
    // an empty house field: no house was given
    case 'house_unknown':
      return why.house ? t(lang, 'reasonHouseUnknown', { h: why.house }) : t(lang, 'reasonNoHouse');
    case 'house_unknown_no_name':
      return t(lang, why.house ? 'reasonHouseUnknownNoName' : 'reasonNoHouseNoName', { h: why.house });
    case 'name_alone_unsure':
      return t(lang, why.house ? 'reasonNameAloneUnsure' : 'reasonNoHouseNameAloneUnsure', {
        h: why.house,
        p: label(why.closest),
      });
    case 'house_only':
      return t(lang, 'reasonHouseOnly');
    case 'none_in_house':
      return t(lang, 'reasonNoneInHouse', {
        h: houseName(lang, { house: why.house, houseAr: names.houseAr(why.house) }),
      });
    case 'concentration_missing':
      return t(lang, 'reasonConcentrationMissing', {
        p: label(why.perfume, false),
        held: why.held.flatMap((c) => (c ? [concentrationName(lang, c)] : [])).join(listSeparator(lang)),
        c: concentrationName(lang, why.stated),
      });
    case 'elixir_only':
      return t(lang, 'reasonElixirOnly', { p: label(why.perfume, false) });
    case 'oil_only':
      return t(lang, 'reasonOilOnly', { p: label(why.perfume, false) });
    case 'too_far':
      return t(lang, 'reasonTooFar', { p: label(why.perfume), l: why.listing });
    case 'ambiguous':
      return t(lang, 'reasonAmbiguous', { p: label(why.perfume), r: label(why.rival) });
    case 'matched':
      return [
        t(lang, 'reasonMatched', { p: label(why.perfume) }),
        why.houseInName ? t(lang, 'reasonHouseInName') : '',
        why.nameAlone ? t(lang, 'reasonNameAlone') : '',
        why.lineOriginal ? t(lang, 'reasonLineOriginal') : '',
        why.siblingOf ? t(lang, 'reasonSibling', { c: concentrationName(lang, why.siblingOf) }) : '',
      ]
        .filter(Boolean)
        .join(' ');
  }
}

/** A product's match as stored (the decision the scores use) and as the matcher reads its listing now. */
export interface ShownMatch {
  status: 'pending' | 'matched' | 'partial' | 'unmatched';
  pinned: boolean;
  /** the perfume it is matched or pinned to */
  perfumeId: string | null;
  /** the stored reason, in English */
  reason: string | null;
  /** the perfume it was matched to before a catalog withdrew it (or a rematch changed it) */
  previousPerfumeId: string | null;
  /** what the matcher makes of the listing now */
  matcher: { reason: string; why: MatchWhy } | null;
}

/**
 * Why a product is matched as it is, in a language: a pin names its perfume; the matcher's reason
 * is written from its decision when that decision is the stored one (the matcher reads the listing
 * now as it did when it was stored); otherwise, what the stored status says.
 */
export function matchReason(lang: Lang, names: CatalogNames, m: ShownMatch): string {
  const perfume = m.perfumeId ? names.perfume(m.perfumeId) : undefined;
  if (m.pinned && perfume) return t(lang, 'reasonPinned', { p: perfumeLabel(lang, perfume) });
  if (m.matcher && m.matcher.reason === m.reason) return whyText(lang, names, m.matcher.why);
  if (m.status === 'pending') return t(lang, m.previousPerfumeId ? 'reasonWithdrawn' : 'reasonPending');
  // a perfume is the stored decision's only when it is matched (pending products have none)
  if (perfume) return t(lang, 'reasonMatched', { p: perfumeLabel(lang, perfume) });
  return t(lang, m.status === 'partial' ? 'reasonPartial' : 'reasonUnmatched');
}
