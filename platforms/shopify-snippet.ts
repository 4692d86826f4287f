/**
 * The Shopify app's storefront script: what the theme's app embed block loads on every page once
 * the merchant switches it on (apps/shopify/extensions/sillage-quiz; its address is in an
 * app-owned metafield the app sets at install, docs/platforms.md), one shop's, its handle in the
 * address. It asks the service for the shop's publishable key and loads the widget with it, in the
 * page's language. Purchases are reported by the app's web pixel (checkout pages run no theme
 * script), and by the `orders/create` webhook. Nothing secret is in it. Pure: the text only.
 */
import { SNIPPET_HELPERS } from './snippet-common.ts';

/** The script of the shop `handle` for a service at `baseUrl` (PUBLIC_BASE_URL). */
export function shopifySnippet(baseUrl: string, handle: string): string {
  const base = JSON.stringify(baseUrl.replace(/\/+$/, ''));
  const shop = JSON.stringify(handle.replace(/[^a-z0-9-]/g, ''));
  return `/* Sillage: the scent quiz for this shop (${baseUrl.replace(/\*\//g, '')}) */
(function () {
  'use strict';
  var BASE = ${base};
  var SHOP = ${shop};
  if (window.__sillageShopify) return;
  window.__sillageShopify = true;
${SNIPPET_HELPERS}
  function start() {
    var locale = (window.Shopify && window.Shopify.locale) || document.documentElement.lang || '';
    loadWidget(BASE + '/api/platforms/shopify/shops/' + SHOP + '/widget', String(locale).slice(0, 2) === 'en' ? 'en' : 'ar');
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
}
