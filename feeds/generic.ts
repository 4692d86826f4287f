/**
 * A CSV or JSON file at a URL, in the product upload's own format (feeds/upload-format.ts,
 * docs/merchant-catalog.md) with four more fields a feed may give: `sale_price`, `available`,
 * `size` and `group_id` (rows with one group_id are the variants of one product), and
 * `categories` (separated by `|`). A row's `barcode` (else `gtin`, `ean` or `upc`) is its size's.
 * `mapping` names the feed's column for each of our fields when the feed names it otherwise
 * (`{"name": "Product Title"}`; the other way round, `{"Product Title": "name"}`, is read the
 * same). One file is one page. Pure.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import {
  barcodeOf,
  categoriesOf,
  currencyOf,
  cut,
  failedPage,
  groupItems,
  idOf,
  MAX_DOCUMENT_CHARS,
  MAX_HOUSE,
  MAX_ITEMS_PER_DOCUMENT,
  MAX_NAME,
  obj,
  parseJson,
  plainName,
  plainText,
  priceOf,
  rowsOf,
  safeUrl,
  sourceCurrency,
  type VariantDraft,
} from './common.ts';
import type { Connector, FeedPage, FeedProblem, FeedRow, FeedSource } from './types.ts';
import { barcodeField, csvProduct, jsonProducts, PRODUCT_CSV_COLUMNS, PRODUCT_CSV_OPTIONS } from './upload-format.ts';

/** Our fields: the upload's columns and what a feed adds. */
export const FEED_FIELDS: readonly string[] = [
  ...PRODUCT_CSV_COLUMNS,
  'sale_price',
  'available',
  'size',
  'group_id',
  'categories',
];
const OURS = new Set(FEED_FIELDS);

/** A record with its columns renamed to ours by the mapping; columns the mapping does not name keep theirs. */
export function mapColumns(record: Record<string, unknown>, mapping: Record<string, string> | undefined) {
  if (!mapping) return record;
  const out: Record<string, unknown> = { ...record };
  for (const [a, b] of Object.entries(mapping)) {
    const [ours, theirs] = OURS.has(a) ? [a, b] : OURS.has(b) ? [b, a] : [null, null];
    if (!ours || theirs === null || !Object.hasOwn(record, theirs)) continue;
    out[ours] = record[theirs];
  }
  return out;
}

const NOT_AVAILABLE = new Set([
  'false',
  '0',
  'no',
  'n',
  'out_of_stock',
  'outofstock',
  'sold_out',
  'غير متوفر',
  'نفذ',
  'نفدت الكمية',
]);

/** A feed's availability: false, 0, no, out_of_stock, sold_out (or "غير متوفر") cannot be bought; none said can. */
export function availableValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v > 0;
  if (typeof v !== 'string') return false;
  const s = v.trim().toLowerCase();
  return !NOT_AVAILABLE.has(s) && !NOT_AVAILABLE.has(s.replace(/[\s-]+/g, '_'));
}

interface Read {
  id: string;
  group: string | null;
  name: string;
  house: string;
  currency: string | null;
  description: string | null;
  categories: string[];
  /** the upload format's hints, passed on as written (the product sync validates them) */
  accords: unknown;
  notes: unknown;
  variant: VariantDraft;
}

function readRecord(r: Record<string, unknown>, url: string): Read | FeedProblem {
  const id = idOf(r.merchant_product_id);
  if (!id) return { reason: 'the row has no merchant_product_id' };
  const name = plainName(r.name, MAX_NAME);
  if (!name) return { id, reason: 'the row has no name' };
  // no house: read from the name by the matcher, as a placeholder house is
  const house = plainName(r.house, MAX_HOUSE) ?? '';
  const price = r.price === undefined || r.price === null || r.price === '' ? null : priceOf(r.price);
  if (price === null && r.price !== undefined && r.price !== null && r.price !== '')
    return { id, reason: 'price is not a number ≥ 0' };
  const sale = priceOf(r.sale_price);
  const currency = r.currency === undefined || r.currency === '' ? null : currencyOf(r.currency);
  if (r.currency !== undefined && r.currency !== '' && !currency)
    return { id, reason: 'currency is not an ISO 4217 code such as SAR, AED, USD' };
  const size = cut(r.size, 80);
  const categories = Array.isArray(r.categories)
    ? r.categories
    : typeof r.categories === 'string'
      ? r.categories.split('|')
      : [];
  return {
    id,
    group: idOf(r.group_id),
    name,
    house,
    currency,
    description: plainText(r.description),
    categories: categoriesOf(categories),
    accords: r.accords,
    notes: r.notes,
    variant: {
      id,
      label: size ?? '',
      text: size ? `${name} ${size}` : name,
      name,
      price,
      sale_price: sale !== null && price !== null && sale < price ? sale : null,
      available: availableValue(r.available),
      image_url: safeUrl(r.image_url, url),
      product_url: safeUrl(r.product_url, url),
      barcode: barcodeOf(barcodeField(r)),
    },
  };
}

function rowsOfRecords(records: Record<string, unknown>[], total: number, url: string, source: FeedSource): FeedPage {
  const { groups, rejected } = groupItems(
    records,
    total,
    (raw) => readRecord(mapColumns(obj(raw), source.mapping), url),
    'row',
  );
  const rows: FeedRow[] = [];
  for (const list of groups) {
    const first = list[0] as Read;
    rows.push(
      ...rowsOf(
        {
          id: first.group ?? first.id,
          name: first.name,
          house: first.house,
          currency: first.currency ?? sourceCurrency(source),
          image_url: first.variant.image_url ?? null,
          product_url: first.variant.product_url ?? null,
          description: first.description,
          categories: first.categories,
          accords: first.accords,
          notes: first.notes,
        },
        list.map((r) => r.variant),
      ),
    );
  }
  return { rows, rejected, next: null };
}

/** CSV records as the upload reads them (csvProduct), with the feed's own fields kept beside. */
function csvRecords(body: string, mapping: Record<string, string> | undefined): Record<string, unknown>[] {
  const raw: Record<string, string>[] = parseCsv(body, { ...PRODUCT_CSV_OPTIONS, to: MAX_ITEMS_PER_DOCUMENT + 1 });
  return raw.map((r) => {
    const mapped = mapColumns(r, mapping) as Record<string, string>;
    const upload = csvProduct(mapped);
    return {
      ...upload,
      sale_price: mapped.sale_price,
      available: mapped.available,
      size: mapped.size,
      group_id: mapped.group_id,
      categories: mapped.categories,
    };
  });
}

export const csv: Connector = {
  kind: 'csv',
  firstUrl: (source) => source.url,
  parse(body, url, source) {
    if (typeof body !== 'string') return failedPage('the page is not text');
    if (body.length > MAX_DOCUMENT_CHARS) return failedPage(`the file is longer than ${MAX_DOCUMENT_CHARS} characters`);
    let records: Record<string, unknown>[];
    try {
      records = csvRecords(body, source.mapping);
    } catch (e) {
      return failedPage(
        `the file is not CSV that can be read (${e instanceof Error ? cut(e.message, 120) : 'unknown error'})`,
      );
    }
    const total =
      records.length > MAX_ITEMS_PER_DOCUMENT
        ? Math.max(records.length, body.split('\n').filter((l) => l.trim() !== '').length - 1)
        : records.length;
    // already renamed: the mapping is not applied twice
    return rowsOfRecords(records.slice(0, MAX_ITEMS_PER_DOCUMENT), total, url, { ...source, mapping: undefined });
  },
};

export const json: Connector = {
  kind: 'json',
  firstUrl: (source) => source.url,
  parse(body, url, source) {
    const parsed = parseJson(body, MAX_DOCUMENT_CHARS);
    if (!parsed.ok) return failedPage(parsed.reason);
    const products = jsonProducts(parsed.value);
    if (!products) return failedPage('the file is neither a JSON list of products nor {"products": [...]}');
    return rowsOfRecords(products as Record<string, unknown>[], products.length, url, source);
  },
};
