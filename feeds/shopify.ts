/**
 * Shopify, read two ways (docs/feeds.md):
 * - `shopify`: the storefront's public listing `GET {shop}/products.json?limit=250&page=N`, paged
 *   by `page=` until a page has no products; a variant's `available` says whether it can be bought;
 * - `shopify_admin`: the Admin REST API `GET {shop}/admin/api/2024-10/products.json?limit=250`
 *   with the `X-Shopify-Access-Token` header, paged by the `Link: <…>; rel="next"` header; a
 *   variant can be bought when Shopify does not track its stock, sells it out of stock
 *   (`inventory_policy: continue`), or has some (`inventory_quantity > 0`).
 * A variant's `barcode`, when the listing gives it (Admin's does), is its size's. Pure.
 */
import {
  arr,
  barcodeOf,
  categoriesOf,
  cut,
  failedPage,
  header,
  idOf,
  MAX_HOUSE,
  MAX_NAME,
  obj,
  parseJson,
  plainName,
  plainText,
  priceOf,
  readItems,
  rowsOf,
  safeUrl,
  saleOf,
  sourceCurrency,
  type VariantDraft,
} from './common.ts';
import type { Connector, FeedPage, FeedSource, ResponseHeaders } from './types.ts';

export const SHOPIFY_PAGE_SIZE = 250;
export const SHOPIFY_ADMIN_API_VERSION = '2024-10';

/** The shop's origin: `https://{host}` for "myshop.com", "https://myshop.com/collections/x"… */
export function shopOrigin(url: string): string {
  return shopUrl(url).origin;
}

/** A shop's address as given, read with https:// when it names no scheme ("shop.example"). */
export function shopUrl(url: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim()) ? url.trim() : `https://${url.trim()}`;
  return new URL(withScheme);
}

type Mode = 'public' | 'admin';

function variantAvailable(v: Record<string, unknown>, mode: Mode): boolean {
  if (mode === 'public') return v.available === true;
  if (v.inventory_management === null || v.inventory_management === undefined) return true;
  if (v.inventory_policy === 'continue') return true;
  return typeof v.inventory_quantity === 'number' && v.inventory_quantity > 0;
}

function tagsOf(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return typeof v === 'string' ? v.split(',') : [];
}

function readProduct(
  raw: unknown,
  mode: Mode,
  origin: string,
  source: FeedSource,
): { rows: ReturnType<typeof rowsOf> } | { reason: string; id?: string } {
  const p = obj(raw);
  const id = idOf(p.id);
  if (!id) return { reason: 'the product has no id' };
  const fail = (reason: string) => ({ id, reason });
  if (mode === 'admin' && typeof p.status === 'string' && p.status !== 'active')
    return fail(`the product is ${cut(p.status, 20)}, not active`);
  const name = plainName(p.title, MAX_NAME);
  if (!name) return fail('the product has no title');
  // no vendor: the house is read from the title by the matcher, as a placeholder vendor is
  const house = plainName(p.vendor, MAX_HOUSE) ?? '';
  const handle = typeof p.handle === 'string' ? p.handle.trim() : '';
  const image = obj(arr(p.images)[0]).src ?? obj(p.image).src;
  const variants: VariantDraft[] = arr(p.variants).map((raw) => {
    const v = obj(raw);
    const title = typeof v.title === 'string' && v.title !== 'Default Title' ? v.title : '';
    const options = [v.option1, v.option2, v.option3].filter(
      (o): o is string => typeof o === 'string' && o !== 'Default Title',
    );
    const label = title || options.join(' / ');
    const { price, sale_price } = saleOf(priceOf(v.price), priceOf(v.compare_at_price));
    return {
      label,
      text: [label, ...options].join(' / '),
      price,
      sale_price,
      available: variantAvailable(v, mode),
      barcode: barcodeOf(v.barcode),
    };
  });
  if (!variants.length) return fail('the product has no variants (no price)');
  return {
    rows: rowsOf(
      {
        id,
        name,
        house,
        currency: sourceCurrency(source),
        image_url: safeUrl(image, origin),
        product_url: handle ? safeUrl(`/products/${encodeURIComponent(handle)}`, origin) : null,
        description: plainText(p.body_html),
        categories: categoriesOf([p.product_type, ...tagsOf(p.tags)]),
      },
      variants,
    ),
  };
}

function readPage(body: string, url: string, source: FeedSource, mode: Mode, next: (count: number) => string | null) {
  const json = parseJson(body);
  if (!json.ok) return failedPage(json.reason);
  const products = obj(json.value).products;
  if (!Array.isArray(products)) return failedPage('the page has no "products" list');
  let origin: string;
  try {
    origin = shopOrigin(source.url || url);
  } catch {
    return failedPage('the shop address is not a URL');
  }
  const { rows, rejected } = readItems(products, (p) => readProduct(p, mode, origin, source));
  return { rows, rejected, next: next(products.length) } satisfies FeedPage;
}

/** The public listing's next page: the same URL with `page` one more, unless this page was empty. */
function nextPublicPage(url: string, count: number): string | null {
  if (count === 0) return null;
  try {
    const u = new URL(url);
    const page = Number(u.searchParams.get('page') ?? '1');
    u.searchParams.set('page', String(Number.isSafeInteger(page) && page >= 1 ? page + 1 : 2));
    return u.toString();
  } catch {
    return null;
  }
}

/** The `rel="next"` URL of a Link header, when it is on the page's own origin (the token goes with it). */
export function nextFromLink(link: string | null, url: string): string | null {
  if (!link) return null;
  for (const part of link.slice(0, 8000).split(',')) {
    const m = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (!m || !/\brel\s*=\s*"?next"?/i.test(m[2] as string)) continue;
    const next = safeUrl(m[1], url);
    try {
      return next && new URL(next).origin === new URL(url).origin ? next : null;
    } catch {
      return null;
    }
  }
  return null;
}

export const shopify: Connector = {
  kind: 'shopify',
  firstUrl: (source) => `${shopOrigin(source.url)}/products.json?limit=${SHOPIFY_PAGE_SIZE}&page=1`,
  parse: (body, url, source) => readPage(body, url, source, 'public', (count) => nextPublicPage(url, count)),
};

export const shopifyAdmin: Connector = {
  kind: 'shopify_admin',
  firstUrl: (source) =>
    `${shopOrigin(source.url)}/admin/api/${SHOPIFY_ADMIN_API_VERSION}/products.json?limit=${SHOPIFY_PAGE_SIZE}&status=active`,
  headers: (_source, secret): Record<string, string> => (secret ? { 'X-Shopify-Access-Token': secret } : {}),
  parse: (body, url, source, headers?: ResponseHeaders) =>
    readPage(body, url, source, 'admin', () => nextFromLink(header(headers, 'link'), url)),
};
