/**
 * A shop's products as its own feed publishes them (Shopify, WooCommerce, Salla, Google Merchant
 * Center XML or TSV, a CSV or JSON URL), read into one shape: the product rows the product sync stores
 * (services/products.ts), with what a feed adds to them — availability, sale price and sizes.
 *
 * Pure: a connector turns the text of one page into rows and names the next page; fetching is
 * elsewhere (services/feed-fetch.ts), so every connector is tested on fixtures alone.
 */

export type FeedKind =
  | 'shopify'
  | 'shopify_admin'
  | 'shopify_graphql'
  | 'woocommerce'
  | 'salla'
  | 'zid'
  | 'google'
  | 'csv'
  | 'json';

export interface FeedSize {
  /** as the shop names the variant: "100 ml", "50ml EDP", "3.4 oz" */
  label: string;
  /** the size in millilitres when the label or the variant says it */
  ml: number | null;
  price: number | null;
  /** the price now, when the shop discounts this size */
  sale_price: number | null;
  available: boolean;
  /**
   * the variant's barcode (GTIN, EAN, UPC) as the feed gives it: trimmed text, at most 40 characters;
   * absent when it has none. Its check digit is the product sync's to check.
   */
  barcode?: string | null;
}

/**
 * One product: one perfume in one concentration (a shop's variants by size are its sizes, not
 * products of their own). Field names are the product sync's (docs/merchant-catalog.md).
 */
export interface FeedRow {
  merchant_product_id: string;
  name: string;
  house: string;
  /** the default size's regular price (the first available size, else the first) */
  price: number | null;
  /** the default size's discounted price, when there is one */
  sale_price: number | null;
  currency: string;
  /** false when no size can be bought: such a product is stored, never recommended */
  available: boolean;
  sizes: FeedSize[];
  image_url: string | null;
  product_url: string | null;
  description: string | null;
  categories: string[];
  /** the merchant's accord hints, when the feed gives them (CSV and JSON feeds in the upload's format) */
  accords?: string[] | null;
  /** the merchant's note pyramid, when the feed gives it (CSV and JSON feeds in the upload's format) */
  notes?: FeedNotes | null;
  /**
   * the product's barcode as the feed gives it: the product's own when the feed has one, else the
   * default size's (the size whose price the row takes); absent when neither has one
   */
  barcode?: string | null;
}

export interface FeedNotes {
  top?: string[];
  heart?: string[];
  base?: string[];
}

export interface FeedProblem {
  /** the shop's id of the item, when it has one */
  id?: string;
  reason: string;
}

export interface FeedPage {
  rows: FeedRow[];
  /** items of the page that could not be read, each with why */
  rejected: FeedProblem[];
  /** the next page's URL, or null when this was the last */
  next: string | null;
  /**
   * true when what the page says depends on the time it is read (a sale with its dates): the same
   * document read later can give other prices, so it is never answered from a conditional request
   */
  timed?: boolean;
  /**
   * the page could not be read at all (not the format, an error answer): after the first page, the
   * pull fails whole rather than apply what the pages before it gave (the rest would be removed)
   */
  failed?: boolean;
}

export interface FeedSource {
  kind: FeedKind;
  /** the shop's address (Shopify, WooCommerce), the API's base (Salla) or the feed's URL (google, csv, json) */
  url: string;
  /** csv and json: which of the feed's columns holds each field, when not named as ours */
  mapping?: Record<string, string>;
  /** the shop's currency when the feed does not say it (ISO 4217; SAR by default) */
  currency?: string;
  /**
   * salla: the store's brands, id → name (from Salla's Brands resource), naming the house of a
   * product that gives only its `brand_id`
   */
  brands?: Record<string, string>;
  /**
   * zid: the store's id (`Store-Id`) and its second token (`authorization`, the bearer), given at
   * each pull with the access token; never stored with the source
   */
  zid?: { storeId: string; authorization: string };
}

export interface Connector {
  kind: FeedKind;
  /** the first page to fetch for a source */
  firstUrl(source: FeedSource): string;
  /** extra request headers (an Admin API token, Salla's bearer token) */
  headers?(source: FeedSource, secret: string | null): Record<string, string>;
  /**
   * a page's request body, when the page is asked for with POST (Shopify's GraphQL query, its
   * cursor carried in the page URL's fragment, which is never sent)
   */
  body?(url: string, source: FeedSource): string | undefined;
  /**
   * one page's text, read; `url` is the page's own (for relative links and the next page);
   * `headers` are the response's, when the next page is named there (Shopify Admin's `Link`)
   */
  parse(body: string, url: string, source: FeedSource, headers?: ResponseHeaders, now?: number): FeedPage;
}

/** A response's headers as fetched: names in any case, a value or several. */
export type ResponseHeaders = Record<string, string | string[] | undefined>;
