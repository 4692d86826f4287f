/**
 * Why the matcher decided as it did, as data: the one form its English reason is written from
 * (`reasonText`, stored with each product and shown by the admin API), and that the merchant console
 * writes in the page's language with the catalog's Arabic names (console/reasons.ts). Pure.
 */

/** A perfume of ours as a reason names it. */
export interface ReasonPerfume {
  id: string;
  name: string;
  house: string;
  concentration: string | null;
}

export type MatchWhy =
  /** a product that carries a perfume's name but is not one (matching/parse.ts NOT_PERFUME_KINDS) */
  | { kind: 'not_perfume'; what: string }
  /**
   * the house field names a house we lack (its first 80 characters); or it is a placeholder or
   * empty ('': no house given) and the listing names no perfume
   */
  | { kind: 'house_unknown'; house: string }
  /** …and no perfume of ours is named like the listing either */
  | { kind: 'house_unknown_no_name'; house: string }
  /** …and the name alone is not enough to tell which perfume */
  | { kind: 'name_alone_unsure'; house: string; closest: ReasonPerfume }
  | { kind: 'house_only' }
  /** a house of ours (by its catalog name), none of whose perfumes is named like the listing */
  | { kind: 'none_in_house'; house: string }
  /** the line the listing names exists in other concentrations than the one it states */
  | { kind: 'concentration_missing'; perfume: ReasonPerfume; held: (string | null)[]; stated: string }
  | { kind: 'elixir_only'; perfume: ReasonPerfume }
  | { kind: 'oil_only'; perfume: ReasonPerfume }
  /** the closest perfume scores below the threshold; `listing` is the listing's first 80 characters */
  | { kind: 'too_far'; perfume: ReasonPerfume; listing: string }
  | { kind: 'ambiguous'; perfume: ReasonPerfume; rival: ReasonPerfume }
  | {
      kind: 'matched';
      perfume: ReasonPerfume;
      /** the house was found in the listing's title, not its house field */
      houseInName: boolean;
      /** no house given: recognised by the name alone */
      nameAlone: boolean;
      /** the listing states no concentration: the line's original is taken */
      lineOriginal: boolean;
      /** the concentration the listing states, which the catalog lacks: the perfume is its nearest sibling */
      siblingOf: string | null;
    };

/** The matcher's reason in English, as stored with a product and shown by the admin API. */
export function reasonText(why: MatchWhy): string {
  switch (why.kind) {
    case 'not_perfume':
      return `not a perfume (${why.what})`;
    case 'house_unknown':
      return why.house
        ? `house "${why.house}" is not in our catalog`
        : 'no house given, and the listing names no perfume';
    case 'house_unknown_no_name':
      return `${why.house ? `house "${why.house}" is not in our catalog` : 'no house given'}, and no perfume of ours is named like this`;
    case 'name_alone_unsure':
      return `${why.house ? `house "${why.house}" is not in our catalog` : 'no house given'}; the name alone does not say which perfume (closest: ${why.closest.name} by ${why.closest.house})`;
    case 'house_only':
      return 'the listing names no perfume, only a house';
    case 'none_in_house':
      return `no perfume of ${why.house} is named like this`;
    case 'concentration_missing':
      return `${why.perfume.name} by ${why.perfume.house} exists as ${why.held.join(', ')}, not ${why.stated}`;
    case 'elixir_only':
      return `${why.perfume.name} by ${why.perfume.house} is held as an elixir only; the listing names no elixir`;
    case 'oil_only':
      return `${why.perfume.name} by ${why.perfume.house} is held as an oil; the listing is a spray`;
    case 'too_far':
      return `closest is ${why.perfume.name} (${why.perfume.concentration ?? '?'}) by ${why.perfume.house}, too far from "${why.listing}"`;
    case 'ambiguous':
      return `ambiguous between ${why.perfume.name} and ${why.rival.name}`;
    case 'matched': {
      const p = why.perfume;
      return `${p.name} ${p.concentration ?? ''} by ${p.house}${why.houseInName ? ' (house found in the name)' : ''}${why.nameAlone ? ' (no house given: recognised by its name alone)' : ''}${why.lineOriginal ? ', no concentration listed: the line original' : ''}${why.siblingOf ? `; listed as ${why.siblingOf}, which the catalog lacks: recommended as a sibling of the ${p.concentration}` : ''}`
        .replace(/\s+/g, ' ')
        .trim();
    }
  }
}
