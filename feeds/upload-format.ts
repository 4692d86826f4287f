/**
 * The product upload's own formats (`products:sync`, docs/merchant-catalog.md): a JSON array of
 * MerchantProductInput objects (or `{products: [...]}`), or a CSV with the columns below (lists
 * separated by `|`; the barcode's column may be named `gtin`, `ean` or `upc` instead). Values are
 * passed on as written; the sync validates each row. Pure: reading a file is
 * services/product-feed.ts's, and a feed URL's is feeds/generic.ts's.
 */
export const PRODUCT_CSV_COLUMNS = [
  'merchant_product_id',
  'name',
  'house',
  'price',
  'currency',
  'image_url',
  'product_url',
  'accords',
  'top_notes',
  'heart_notes',
  'base_notes',
  'description',
  'barcode',
] as const;

/** Other names of the `barcode` column or field, read when `barcode` itself is missing or empty. */
export const BARCODE_ALIASES = ['gtin', 'ean', 'upc'] as const;

/** A record's barcode as written: its `barcode`, else the first of its aliases that holds a value. */
export function barcodeField(r: Record<string, unknown>): unknown {
  for (const k of ['barcode', ...BARCODE_ALIASES]) {
    const v = r[k];
    if (v === undefined || v === null || (typeof v === 'string' && !v.trim())) continue;
    return v;
  }
  return undefined;
}

/** The options the upload's CSV is read with (csv-parse). */
export const PRODUCT_CSV_OPTIONS = {
  columns: true,
  bom: true,
  skip_empty_lines: true,
  trim: true,
  relax_column_count: true,
} as const;

const list = (v: string | undefined) =>
  v?.trim()
    ? v
        .split('|')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** One CSV record as a MerchantProductInput. */
export function csvProduct(r: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {
    merchant_product_id: r.merchant_product_id,
    name: r.name,
    house: r.house,
  };
  if (r.price?.trim()) {
    const n = Number(r.price.trim().replace(',', '.'));
    out.price = Number.isFinite(n) ? n : r.price;
  }
  for (const k of ['currency', 'image_url', 'product_url', 'description'] as const)
    if (r[k]?.trim()) out[k] = r[k]?.trim();
  const barcode = barcodeField(r);
  if (typeof barcode === 'string') out.barcode = barcode.trim();
  const accords = list(r.accords);
  if (accords) out.accords = accords;
  const top = list(r.top_notes);
  const heart = list(r.heart_notes);
  const base = list(r.base_notes);
  if (top || heart || base)
    out.notes = { ...(top ? { top } : {}), ...(heart ? { heart } : {}), ...(base ? { base } : {}) };
  return out;
}

/** The products of a parsed JSON upload, or null when it is neither an array nor `{products: [...]}`. */
export function jsonProducts(parsed: unknown): unknown[] | null {
  if (Array.isArray(parsed)) return parsed;
  if (parsed && typeof parsed === 'object' && Array.isArray((parsed as { products?: unknown }).products)) {
    return (parsed as { products: unknown[] }).products;
  }
  return null;
}
