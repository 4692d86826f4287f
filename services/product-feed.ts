import { createReadStream, readFileSync } from 'node:fs';
import { parse } from 'csv-parse';
import { csvProduct, jsonProducts, PRODUCT_CSV_OPTIONS } from '../feeds/upload-format.ts';

/**
 * Reads a product feed file for `products:sync`: a JSON array of
 * MerchantProductInput objects (or `{products: [...]}`), or a CSV with the
 * columns of feeds/upload-format.ts (lists separated by `|`). Values are passed
 * on as written; the sync validates each row.
 */
export { csvProduct, PRODUCT_CSV_COLUMNS } from '../feeds/upload-format.ts';

export async function readProductFeed(path: string): Promise<unknown[]> {
  if (path.toLowerCase().endsWith('.csv')) {
    const rows: unknown[] = [];
    const parser = createReadStream(path).pipe(parse({ ...PRODUCT_CSV_OPTIONS }));
    for await (const r of parser as AsyncIterable<Record<string, string>>) rows.push(csvProduct(r));
    return rows;
  }
  const products = jsonProducts(JSON.parse(readFileSync(path, 'utf8')) as unknown);
  if (products) return products;
  throw new Error(`${path}: expected a JSON array of products, {"products": [...]}, or a .csv file`);
}
