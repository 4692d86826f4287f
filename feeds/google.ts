/**
 * Google Merchant Center product feeds, as Salla, Zid and most shop platforms export them for ad
 * channels: RSS 2.0 (`<rss xmlns:g="http://base.google.com/ns/1.0"><channel><item>`), Atom
 * (`<feed><entry>`) and the tab-separated form (a header row of the attribute names, with or
 * without `g:`). One feed is one page. Items that share `item_group_id` are the variants of one
 * product (docs/feeds.md); an item's `g:gtin` is its size's barcode. Pure.
 *
 * The XML is read by fast-xml-parser, configured so that a hostile feed costs bounded work:
 * - a document type declaration (`<!DOCTYPE`, where entities are declared) refuses the page: no
 *   entity is ever declared or expanded, so "billion laughs" has nothing to expand;
 * - entity processing is off; the five XML entities and numeric references are decoded afterwards
 *   in one pass over each field we keep (`&amp;lt;` stays `&lt;`);
 * - elements nest at most MAX_XML_DEPTH deep (a feed needs 4), deeper refuses the page;
 * - the page is at most MAX_DOCUMENT_CHARS characters, and at most MAX_ITEMS_PER_DOCUMENT items are read.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import {
  arr,
  barcodeOf,
  categoriesOf,
  currencyOf,
  cut,
  decodeEntities,
  failedPage,
  groupItems,
  idOf,
  MAX_DOCUMENT_CHARS,
  MAX_HOUSE,
  MAX_HTML_CHARS,
  MAX_ITEMS_PER_DOCUMENT,
  MAX_NAME,
  obj,
  plainText,
  priceOf,
  rowsOf,
  safeUrl,
  sourceCurrency,
  type VariantDraft,
} from './common.ts';
import type { Connector, FeedPage, FeedProblem, FeedRow, FeedSource } from './types.ts';

/** Elements nested deeper than this refuse the page (rss › channel › item › g:shipping › g:price is 5). */
export const MAX_XML_DEPTH = 16;
/** Elements in the items read (outside CDATA): a feed item holds 10–40; more refuses the page. */
export const MAX_XML_TAGS = 30 * MAX_ITEMS_PER_DOCUMENT;

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  htmlEntities: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  maxNestedTags: MAX_XML_DEPTH,
  isArray: (name) => name === 'item' || name === 'entry' || name === 'link',
});

/** An item's attributes, by name without `g:`, as text. */
type Item = Record<string, unknown>;

/** The text of a parsed XML value: a string, `{#text}`, or the first of several. */
function text(v: unknown): string | null {
  if (Array.isArray(v)) return text(v[0]);
  // no field is read past MAX_HTML_CHARS: decode no more
  if (typeof v === 'string') return decodeEntities(v.slice(0, MAX_HTML_CHARS));
  if (typeof v === 'number') return String(v);
  if (v && typeof v === 'object') return text((v as Record<string, unknown>)['#text']);
  return null;
}

/** An attribute of an XML item: `g:name` first, then the plain element (`title`, `link`, `description`). */
function field(item: Item, name: string): string | null {
  return text(item[`g:${name}`]) ?? text(item[name]);
}

/** Atom's `<link href="…" rel="alternate"/>`, or RSS's `<link>…</link>`. */
function linkOf(item: Item): string | null {
  const g = text(item['g:link']);
  if (g) return g;
  if (typeof item.link === 'string') return item.link;
  const links = arr(item.link);
  const alternate = links.find((l) => {
    const rel = obj(l)['@_rel'];
    return rel === undefined || rel === 'alternate';
  });
  for (const l of [alternate, ...links]) {
    const href = obj(l)['@_href'];
    if (typeof href === 'string') return decodeEntities(href);
    const t = text(l);
    if (t) return t;
  }
  return null;
}

/** "150.00 SAR", "SAR 150.00", "150 ر.س": the amount and its currency, when it names one. */
export function moneyOf(v: string | null): { amount: number | null; currency: string | null } {
  if (!v) return { amount: null, currency: null };
  const s = v.trim().slice(0, 64);
  const code = /\b([A-Za-z]{3})\b/.exec(s)?.[1] ?? null;
  const number = /\d[\d.,]*/.exec(s)?.[0] ?? null;
  return { amount: priceOf(number), currency: currencyOf(code) };
}

/** in_stock, preorder and backorder can be bought; out_of_stock (and any other word) cannot; none said: in stock. */
export function availableOf(v: string | null): boolean {
  if (v === null || v.trim() === '') return true;
  const a = v
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return a === 'in_stock' || a === 'preorder' || a === 'backorder' || a === 'available_for_order';
}

/**
 * Google's `sale_price_effective_date`, "start/end" in ISO 8601 ("2026-11-20T00:00+0300/2026-11-30T23:59+0300"):
 * whether the sale runs at `now`. A window that cannot be read counts as running: the sale price
 * is the one the shop sends.
 */
export function saleRunning(window: string | null, now: number): boolean {
  if (!window) return true;
  const ends = window.trim().slice(0, 100).split('/');
  if (ends.length !== 2) return true;
  const [start, end] = ends.map((e) => Date.parse(e.trim()));
  if (start === undefined || end === undefined || Number.isNaN(start) || Number.isNaN(end)) return true;
  return start <= now && now < end;
}

interface ReadItem {
  id: string;
  /** its sale has dates: the page reads otherwise at another time */
  timed: boolean;
  group: string | null;
  title: string;
  brand: string | null;
  variant: VariantDraft;
  currency: string | null;
  description: string | null;
  categories: string[];
}

function readItem(item: Item, base: string, now: number): ReadItem | FeedProblem {
  const id = idOf(field(item, 'id'));
  if (!id) return { reason: 'the item has no g:id' };
  // Google's title and brand are plain text: decoded once, as XML
  const title = cut(field(item, 'title'), MAX_NAME);
  if (!title) return { id, reason: 'the item has no title' };
  const price = moneyOf(field(item, 'price'));
  const sale = moneyOf(field(item, 'sale_price'));
  const size = cut(field(item, 'size'), 80);
  const window = field(item, 'sale_price_effective_date');
  const onSale =
    price.amount !== null && sale.amount !== null && sale.amount < price.amount && saleRunning(window, now);
  return {
    id,
    timed: window !== null && window.trim() !== '',
    group: idOf(field(item, 'item_group_id')),
    title,
    brand: cut(field(item, 'brand'), MAX_HOUSE),
    variant: {
      id,
      label: size ?? '',
      text: size ? `${title} ${size}` : title,
      name: title,
      price: price.amount,
      sale_price: onSale ? sale.amount : null,
      available: availableOf(field(item, 'availability')),
      image_url: safeUrl(field(item, 'image_link'), base),
      product_url: safeUrl(linkOf(item), base),
      barcode: barcodeOf(field(item, 'gtin')),
    },
    currency: price.currency ?? sale.currency,
    description: plainText(field(item, 'description') ?? text(item.summary) ?? text(item.content)),
    categories: categoriesOf([field(item, 'product_type'), field(item, 'google_product_category')]),
  };
}

/** Items read, grouped by item_group_id (an item without one is a product of its own), into rows. */
function rowsOfItems(items: Item[], total: number, url: string, source: FeedSource, now: number): FeedPage {
  const { groups, rejected } = groupItems(items, total, (raw) => readItem(obj(raw), url, now), 'item');
  const rows: FeedRow[] = [];
  for (const list of groups) {
    const first = list[0] as ReadItem;
    // no g:brand: the house is read from the title by the matcher, as a placeholder brand is
    const house = list.find((i) => i.brand)?.brand ?? '';
    rows.push(
      ...rowsOf(
        {
          id: first.group ?? first.id,
          name: first.title,
          house,
          currency: list.find((i) => i.currency)?.currency ?? sourceCurrency(source),
          image_url: first.variant.image_url ?? null,
          product_url: first.variant.product_url ?? null,
          description: first.description,
          categories: first.categories,
        },
        list.map((i) => i.variant),
      ),
    );
  }
  return { rows, rejected, next: null, ...(groups.some((g) => g.some((i) => i.timed)) ? { timed: true } : {}) };
}

/** The start of an RSS item or an Atom entry. */
const ITEM_START = /<(?:item|entry)(?=[\s>/])/g;

/** The document as markup and CDATA sections, in order (found by indexOf: linear on any input). */
function sections(body: string): { text: string; cdata: boolean }[] {
  const out: { text: string; cdata: boolean }[] = [];
  let i = 0;
  while (i < body.length) {
    const open = body.indexOf('<![CDATA[', i);
    if (open === -1) break;
    const close = body.indexOf(']]>', open + 9);
    const end = close === -1 ? body.length : close + 3;
    if (open > i) out.push({ text: body.slice(i, open), cdata: false });
    out.push({ text: body.slice(open, end), cdata: true });
    i = end;
  }
  if (i < body.length) out.push({ text: body.slice(i), cdata: false });
  return out;
}

/** Markup with every run of text longer than MAX_HTML_CHARS cut to it (the parser reads long text slowly). */
function capTextRuns(markup: string): string {
  // most feeds have no such run: then the markup is read as it is, without copying it in pieces
  let long = false;
  for (let i = 0, lt = markup.indexOf('<'); ; i = lt + 1, lt = markup.indexOf('<', i)) {
    if ((lt === -1 ? markup.length : lt) - i > MAX_HTML_CHARS) {
      long = true;
      break;
    }
    if (lt === -1) break;
  }
  if (!long) return markup;
  const parts: string[] = [];
  let i = 0;
  while (i < markup.length) {
    const lt = markup.indexOf('<', i);
    const end = lt === -1 ? markup.length : lt;
    parts.push(end - i > MAX_HTML_CHARS ? markup.slice(i, i + MAX_HTML_CHARS) : markup.slice(i, end));
    if (lt === -1) break;
    parts.push('<');
    i = lt + 1;
  }
  return parts.join('');
}

/** The XML feed's items (RSS `item`s or Atom `entry`s), or why there are none. */
function xmlItems(body: string): { items: Item[]; total: number } | string {
  const parts = sections(body);
  // items past the cap are counted, not parsed: the document is cut before the first of them
  let total = 0;
  let tags = 0;
  let cutPart = -1;
  let cutAt = -1;
  for (const [n, part] of parts.entries()) {
    if (part.cdata) continue;
    if (/<!(DOCTYPE|ENTITY)/i.test(part.text))
      return 'the feed declares a document type or entities (<!DOCTYPE>, <!ENTITY>): they are not read';
    for (const m of part.text.matchAll(ITEM_START)) {
      total++;
      if (total === MAX_ITEMS_PER_DOCUMENT + 1) {
        cutPart = n;
        cutAt = m.index;
      }
    }
    if (cutPart === -1) tags += part.text.match(/<[^!?/]/g)?.length ?? 0;
    else if (cutPart === n) tags += part.text.slice(0, cutAt).match(/<[^!?/]/g)?.length ?? 0;
  }
  if (tags > MAX_XML_TAGS) return `the feed's items hold more than ${MAX_XML_TAGS} elements`;
  const kept = cutPart === -1 ? parts : parts.slice(0, cutPart + 1);
  if (cutPart !== -1) {
    const last = kept[cutPart] as { text: string; cdata: boolean };
    const atom = /<feed[\s>]/.test(body.slice(0, 4000));
    kept[cutPart] = { text: `${last.text.slice(0, cutAt)}${atom ? '</feed>' : '</channel></rss>'}`, cdata: false };
  }
  const read = kept.map((p) => (p.cdata ? p.text : capTextRuns(p.text))).join('');
  let doc: Record<string, unknown>;
  try {
    doc = obj(xml.parse(read));
  } catch (e) {
    return `the feed is not XML that can be read (${e instanceof Error ? cut(e.message, 120) : 'unknown error'})`;
  }
  const items =
    doc.rss !== undefined
      ? arr(obj(obj(doc.rss).channel).item)
      : doc.feed !== undefined
        ? arr(obj(doc.feed).entry)
        : null;
  if (items) return { items: items.slice(0, MAX_ITEMS_PER_DOCUMENT).map(obj), total: Math.max(total, items.length) };
  return 'the feed is neither RSS 2.0 (<rss><channel><item>) nor Atom (<feed><entry>)';
}

/** The tab-separated feed's rows, by attribute name without `g:` (and "image link" as image_link). */
function tsvItems(body: string): { items: Item[]; total: number } | string {
  const header = (h: string) =>
    h
      .trim()
      .toLowerCase()
      .replace(/^g:/, '')
      .replace(/[\s-]+/g, '_');
  const options = {
    delimiter: '\t',
    bom: true,
    columns: (names: string[]) => names.map(header),
    skip_empty_lines: true,
    relax_column_count: true,
    // the header row, and one past the cap to know that there were more
    to: MAX_ITEMS_PER_DOCUMENT + 1,
  };
  let records: Record<string, string>[];
  try {
    records = parseCsv(body, { ...options, relax_quotes: true });
  } catch {
    try {
      records = parseCsv(body, { ...options, quote: false });
    } catch (e) {
      return `the feed is not tab-separated text that can be read (${e instanceof Error ? cut(e.message, 120) : 'unknown error'})`;
    }
  }
  if (!records.length) return { items: [], total: 0 };
  if (!('id' in (records[0] as object))) return 'the tab-separated feed has no "id" column in its header row';
  // rows past the cap are counted (one a line), not read
  const total =
    records.length > MAX_ITEMS_PER_DOCUMENT
      ? Math.max(records.length, body.split('\n').filter((l) => l.trim() !== '').length - 1)
      : records.length;
  return { items: records.slice(0, MAX_ITEMS_PER_DOCUMENT), total };
}

export const google: Connector = {
  kind: 'google',
  firstUrl: (source) => source.url,
  parse(body, url, source, _headers, now = Date.now()) {
    if (typeof body !== 'string') return failedPage('the page is not text');
    if (body.length > MAX_DOCUMENT_CHARS) return failedPage(`the feed is longer than ${MAX_DOCUMENT_CHARS} characters`);
    const trimmed = body.replace(/^\uFEFF/, '').trimStart();
    const read = trimmed.startsWith('<') ? xmlItems(trimmed) : tsvItems(trimmed);
    if (typeof read === 'string') return failedPage(read);
    return rowsOfItems(read.items, read.total, url, source, now);
  },
};
