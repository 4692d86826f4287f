/**
 * The connectors by kind, and one page read by any of them. Every connector caps its work (at most
 * MAX_ITEMS_PER_PAGE items of a page, MAX_PAGE_CHARS characters, text cut to the product sync's
 * limits) and never throws: what it cannot read is rejected with a reason (docs/feeds.md). Pure.
 */
import { failedPage } from './common.ts';
import { csv, json } from './generic.ts';
import { google } from './google.ts';
import { salla } from './salla.ts';
import { shopify, shopifyAdmin } from './shopify.ts';
import { shopifyGraphql } from './shopify-graphql.ts';
import type { Connector, FeedKind, FeedPage, FeedSource, ResponseHeaders } from './types.ts';
import { woocommerce } from './woocommerce.ts';
import { zid } from './zid.ts';

export { MAX_ITEMS_PER_PAGE, MAX_PAGE_CHARS } from './common.ts';

const CONNECTORS: Record<FeedKind, Connector> = {
  shopify,
  shopify_admin: shopifyAdmin,
  shopify_graphql: shopifyGraphql,
  woocommerce,
  salla,
  zid,
  google,
  csv,
  json,
};

export const FEED_KINDS = Object.keys(CONNECTORS) as FeedKind[];

export function connectorFor(kind: FeedKind): Connector {
  const connector = Object.hasOwn(CONNECTORS, kind) ? CONNECTORS[kind] : undefined;
  if (!connector) throw new Error(`no connector reads feeds of kind "${String(kind)}"`);
  return connector;
}

/** One page read by the kind's connector; an unknown kind or any error is a page rejected whole. */
export function readPage(
  kind: FeedKind,
  body: string,
  url: string,
  source: FeedSource,
  headers?: ResponseHeaders,
  /** when the page is read (a sale's dates are compared with it) */
  now?: number,
): FeedPage {
  if (!Object.hasOwn(CONNECTORS, kind)) return failedPage(`no connector reads feeds of kind "${String(kind)}"`);
  try {
    return CONNECTORS[kind].parse(body, url, source, headers, now);
  } catch (e) {
    return failedPage(`the page could not be read (${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'})`);
  }
}
