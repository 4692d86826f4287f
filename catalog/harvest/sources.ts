/**
 * Public shop catalogs the catalog's identities are harvested from, and how
 * to read listings out of each (docs/catalog.md "Harvesting identities").
 * Pure: a file's text and its extract rule in, listings out. Offline tooling:
 * never run on a request.
 */
import { parse as parseCsv } from 'csv-parse/sync';

/** How listings are read out of one source file. */
export type ExtractRule =
  | {
      format: 'json';
      /** dot path to the array of products ('' for a top-level array) */
      items: string;
      /** fields joined with a space make the listing's title */
      title: string[];
      house?: string | null;
      price?: string | null;
      /** the field holding the listing's description, read for what it claims ("inspired by") */
      description?: string | null;
    }
  | {
      format: 'csv';
      delimiter?: string;
      title: string[];
      house?: string | null;
      price?: string | null;
      description?: string | null;
    }
  | {
      format: 'regex';
      /** one listing per match: named groups `title` (or `name`), optional `house` and `description` */
      pattern: string;
      flags?: string;
    };

export interface HarvestSource {
  id: string;
  /** the shop as it presents itself */
  shop: string;
  /** who runs the shop: two sources of one owner are one shop */
  owner: string;
  country: string;
  /** only `shop` sources are harvested; `demo` and `unknown` are kept to say why not */
  kind: 'shop' | 'demo' | 'unknown';
  why: string;
  repo: string;
  path: string;
  commit: string;
  url: string;
  licence: string;
  extract: ExtractRule;
  listings: number;
  /** set when the source may not be used, with why (a copy of a test fixture's origin) */
  excluded?: string;
  /**
   * `decants`: the shop pours the perfumes it lists into small bottles of its own; its listings
   * name perfumes, never sell their bottles, and back no identity
   */
  sells?: 'decants';
  /**
   * the id of a source of the same shop listing the same products in the
   * other script, row by row (a shop's Arabic and English catalogs): its
   * listing i is this one's listing i, used only when both read as many
   */
  twin_of?: string;
}

export interface SourceListing {
  title: string;
  house: string;
  /** the listing's description, when the source's rule reads one (at most MAX_DESCRIPTION characters) */
  description?: string;
}

/** The most characters of a listing's description kept: enough for what it claims of the perfume. */
export const MAX_DESCRIPTION = 2_000;

/** The most listings read from one source file, whatever it holds. */
export const MAX_LISTINGS_PER_SOURCE = 50_000;

/** The evidence `source` of a listing of this source: its repository, path and commit. */
export function sourceRef(s: Pick<HarvestSource, 'repo' | 'path' | 'commit'>): string {
  return `github:${s.repo}/${s.path}@${s.commit}`;
}

function at(value: unknown, path: string): unknown {
  let v = value;
  for (const key of path.split('.').filter(Boolean)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

function titleOf(fields: readonly string[], get: (field: string) => unknown): string {
  return fields
    .map((f) => text(get(f)))
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ');
}

/**
 * The listings of one source file, read by its extract rule. `rows` keeps a
 * row with no title as an empty listing, so that a catalog's rows stay
 * aligned with its twin's in the other script.
 */
export function extractListings(content: string, rule: ExtractRule, opts: { rows?: boolean } = {}): SourceListing[] {
  const out: SourceListing[] = [];
  const push = (title: string, house: string, description = '') => {
    if ((!title && !opts.rows) || out.length >= MAX_LISTINGS_PER_SOURCE) return;
    // every field comes trimmed (`text`)
    const about = description.replace(/\s+/g, ' ').slice(0, MAX_DESCRIPTION);
    out.push(about ? { title, house, description: about } : { title, house });
  };
  if (rule.format === 'json') {
    const items = at(JSON.parse(content.replace(/^\uFEFF/, '')), rule.items);
    if (!Array.isArray(items)) throw new Error(`no array at "${rule.items}"`);
    for (const item of items) {
      const get = (f: string) => at(item, f);
      push(
        titleOf(rule.title, get),
        rule.house ? text(get(rule.house)) : '',
        rule.description ? text(get(rule.description)) : '',
      );
    }
  } else if (rule.format === 'csv') {
    const rows = parseCsv(content, {
      columns: true,
      bom: true,
      delimiter: rule.delimiter ?? ',',
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    }) as Record<string, string>[];
    for (const row of rows) {
      push(
        titleOf(rule.title, (f) => row[f]),
        rule.house ? text(row[rule.house]) : '',
        rule.description ? text(row[rule.description]) : '',
      );
    }
  } else {
    const flags = rule.flags?.includes('g') ? rule.flags : `${rule.flags ?? ''}g`;
    for (const m of content.matchAll(new RegExp(rule.pattern, flags))) {
      const g = m.groups ?? {};
      push(decodeEscapes(text(g.title ?? g.name)), decodeEscapes(text(g.house)), decodeEscapes(text(g.description)));
      if (out.length >= MAX_LISTINGS_PER_SOURCE) break;
    }
  }
  return out;
}

/** A title taken out of source code as written there: `\u00e9`, `\"` and HTML's `&amp;` read as what they stand for. */
function decodeEscapes(s: string): string {
  return s
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\\(["'\\/])/g, '$1')
    .replace(/&amp;/g, '&')
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/&quot;/g, '"');
}
