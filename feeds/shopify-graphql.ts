/**
 * Shopify's Admin GraphQL API (docs/feeds.md, docs/platforms.md), as the Shopify app reads a shop
 * that installed it (and as an operator may read a shop with an Admin API token of its own):
 * `POST {shop}/admin/api/{version}/graphql.json` with the `X-Shopify-Access-Token` header and the
 * products query below, 25 active products a page with up to 20 variants each, paged by the
 * answer's `pageInfo.endCursor` (kept in the page URL's fragment, which is never sent: the query's
 * body carries it). New public apps may not read products with the REST Admin API.
 *
 * A variant can be bought when Shopify says it is `availableForSale`; a `compareAtPrice` above the
 * price makes the price a sale. The house is the product's `vendor`; a variant's `barcode` is its
 * size's. Pure.
 */
import {
  arr,
  barcodeOf,
  categoriesOf,
  cut,
  failedPage,
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
import { shopOrigin, shopUrl } from './shopify.ts';
import type { Connector, FeedRow, FeedSource } from './types.ts';

export const SHOPIFY_GRAPHQL_VERSION = '2025-10';
/** Products a page: with 20 variants each the query asks for about 550 of a shop's 1,000 points. */
export const SHOPIFY_GRAPHQL_PAGE_SIZE = 25;
export const SHOPIFY_GRAPHQL_VARIANTS = 20;

/** What is read of a product: the same for a page and for one product (a webhook's refetch). */
export const PRODUCT_FIELDS = `fragment SillageProduct on Product {
  id title handle vendor productType tags status onlineStoreUrl
  description(truncateAt: 4000)
  featuredMedia { preview { image { url } } }
  variants(first: ${SHOPIFY_GRAPHQL_VARIANTS}) {
    nodes { id title price compareAtPrice availableForSale barcode selectedOptions { name value } }
  }
}`;

export const PRODUCTS_QUERY = `query SillageProducts($first: Int!, $after: String) {
  products(first: $first, after: $after, query: "status:active") {
    pageInfo { hasNextPage endCursor }
    nodes { ...SillageProduct }
  }
}
${PRODUCT_FIELDS}`;

export const PRODUCT_QUERY = `query SillageProduct($id: ID!) {
  product(id: $id) { ...SillageProduct }
}
${PRODUCT_FIELDS}`;

/**
 * The GraphQL endpoint of a shop at `url`: its myshopify.com address, or a path on a host that
 * serves shops under it (a simulator's `http://127.0.0.1:3000/demo.myshopify.com`); any `/admin…`
 * of the address is dropped.
 */
export function graphqlUrl(url: string): string {
  const u = shopUrl(url);
  const path = u.pathname.replace(/\/admin(\/.*)?$/, '').replace(/\/+$/, '');
  return `${u.origin}${path}/admin/api/${SHOPIFY_GRAPHQL_VERSION}/graphql.json`;
}

/** The cursor a page URL carries in its fragment (`#after=…`); null on the first page. */
function cursorOf(url: string): string | null {
  try {
    const after = new URLSearchParams(new URL(url).hash.slice(1)).get('after');
    return after && after.length <= 1000 ? after : null;
  } catch {
    return null;
  }
}

function readProduct(raw: unknown, origin: string, source: FeedSource) {
  const p = obj(raw);
  const id = idOf(typeof p.id === 'string' ? p.id.replace(/^gid:\/\/shopify\/Product\//, '') : p.id);
  if (!id) return { reason: 'the product has no id' };
  const fail = (reason: string) => ({ id, reason });
  if (typeof p.status === 'string' && p.status !== 'ACTIVE') return fail(`the product is ${cut(p.status, 20)}`);
  const name = plainName(p.title, MAX_NAME);
  if (!name) return fail('the product has no title');
  // no vendor: the house is read from the title by the matcher, as a placeholder vendor is
  const house = plainName(p.vendor, MAX_HOUSE) ?? '';
  const handle = typeof p.handle === 'string' ? p.handle.trim() : '';
  const variants: VariantDraft[] = arr(obj(p.variants).nodes).map((raw) => {
    const v = obj(raw);
    const options = arr(v.selectedOptions)
      .slice(0, 5)
      .map((o) => obj(o).value)
      .filter((o): o is string => typeof o === 'string' && o !== 'Default Title');
    const title = typeof v.title === 'string' && v.title !== 'Default Title' ? v.title : '';
    const label = title || options.join(' / ');
    return {
      label,
      text: [label, ...options].join(' / '),
      ...saleOf(priceOf(v.price), priceOf(v.compareAtPrice)),
      available: v.availableForSale === true,
      barcode: barcodeOf(v.barcode),
    };
  });
  if (!variants.length) return fail('the product has no variants (no price)');
  const image = obj(obj(obj(p.featuredMedia).preview).image).url;
  return {
    rows: rowsOf(
      {
        id,
        name,
        house,
        currency: sourceCurrency(source),
        image_url: safeUrl(image, origin),
        product_url:
          safeUrl(p.onlineStoreUrl) ?? (handle ? safeUrl(`/products/${encodeURIComponent(handle)}`, origin) : null),
        description: plainText(p.description),
        categories: categoriesOf([p.productType, ...arr(p.tags)]),
      },
      variants,
    ),
  };
}

/** One product as the product query answers it (a webhook's refetch): its rows, none when it is not active or unreadable. */
export function shopifyProductRows(answer: unknown, source: FeedSource): FeedRow[] {
  const product = obj(obj(answer).data).product;
  if (!product) return [];
  const read = readItems([product], (p) => readProduct(p, shopOrigin(source.url), source));
  return read.rows;
}

export const shopifyGraphql: Connector = {
  kind: 'shopify_graphql',
  firstUrl: (source) => graphqlUrl(source.url),
  headers: (_source, secret): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json',
    ...(secret ? { 'X-Shopify-Access-Token': secret } : {}),
  }),
  body: (url) =>
    JSON.stringify({
      query: PRODUCTS_QUERY,
      variables: { first: SHOPIFY_GRAPHQL_PAGE_SIZE, after: cursorOf(url) },
    }),
  parse(body, url, source) {
    const json = parseJson(body);
    if (!json.ok) return failedPage(json.reason);
    const answer = obj(json.value);
    const products = obj(obj(answer.data).products);
    const nodes = products.nodes;
    // errors beside the data (a field refused, a timeout inside Shopify) leave the page unknown
    if (!Array.isArray(nodes) || arr(answer.errors).length > 0) {
      const error = obj(arr(answer.errors)[0]).message;
      return failedPage(
        typeof error === 'string' ? `Shopify answered: ${cut(error, 200)}` : 'the answer has no products',
      );
    }
    let origin: string;
    try {
      origin = shopOrigin(source.url || url);
    } catch {
      return failedPage('the shop address is not a URL');
    }
    const { rows, rejected } = readItems(nodes, (p) => readProduct(p, origin, source));
    const info = obj(products.pageInfo);
    const cursor = typeof info.endCursor === 'string' && info.endCursor.length <= 1000 ? info.endCursor : null;
    const next = info.hasNextPage === true && cursor && nodes.length > 0 ? nextUrl(url, cursor) : null;
    return { rows, rejected, next };
  },
};

function nextUrl(url: string, cursor: string): string {
  const u = new URL(url);
  u.hash = new URLSearchParams({ after: cursor }).toString();
  return u.toString();
}
