/**
 * The Zid app's storefront script: the file of the App Script the app creates in each store that
 * installs it (`POST /v1/managers/app-scripts`, docs/platforms.md), so one store's, its id in the
 * address. It asks the service for the store's publishable key and loads the widget with it, in the
 * page's language. A purchase reaches the widget as `Sillage.trackPurchase` (counted once per order
 * id, and merged with the order's `order.create` webhook) in two ways, since how Zid hands a script
 * the order on its thank-you page is not settled: `SillageZid.purchase(order)` for the App Script's
 * Purchase event code, and Zid's `sendPurchaseEvent(order)` when the page has one (wrapped, still
 * called). Nothing secret is in it. Pure: the text only.
 */
import { SNIPPET_HELPERS } from './snippet-common.ts';

/** The script of the store `storeId` for a service at `baseUrl` (PUBLIC_BASE_URL). */
export function zidSnippet(baseUrl: string, storeId: string): string {
  const base = JSON.stringify(baseUrl.replace(/\/+$/, ''));
  const store = JSON.stringify(storeId.replace(/[^0-9]/g, ''));
  return `/* Sillage: the scent quiz for this store (${baseUrl.replace(/\*\//g, '')}) */
(function () {
  'use strict';
  var BASE = ${base};
  var STORE = ${store};
  if (window.SillageZid) return;
${SNIPPET_HELPERS}
  /** Zid's Purchase (transactionItems, id, currency, total) or its Order (products, order_total, currency_code) as the widget's purchase. */
  function order(p) {
    p = (p && p.order) || p || {};
    var id = str(p.id || p.order_id);
    var lines = Array.isArray(p.transactionItems) ? p.transactionItems : Array.isArray(p.products) ? p.products : [];
    var items = [];
    for (var i = 0; i < lines.length && i < 200; i++) {
      var x = lines[i] || {};
      var pid = str(x.parent_id || x.product_id || x.id);
      if (!pid) continue;
      var q = Math.floor(Number(x.quantity) || 1);
      items.push({ merchant_product_id: pid, quantity: q > 0 ? q : 1, price: num(x.price) });
    }
    if (!id || items.length === 0) return null;
    var total = p.total !== undefined ? p.total : p.order_total;
    var currency = str(p.currency || p.currency_code || 'SAR').toUpperCase();
    return { order_id: id, total: num(total), currency: currency, items: items };
  }

  function purchase(p) {
    var o = order(p);
    if (o) trackPurchase(o);
  }
  window.SillageZid = { purchase: purchase };

  function wrap() {
    var f = window.sendPurchaseEvent;
    if (typeof f !== 'function' || f.__sillage) return;
    var wrapped = function (p) {
      try { purchase(p); } catch (e) {}
      return f.apply(this, arguments);
    };
    wrapped.__sillage = true;
    window.sendPurchaseEvent = wrapped;
  }

  function start() {
    wrap();
    var lang = (document.documentElement.lang || '').slice(0, 2) === 'en' ? 'en' : 'ar';
    loadWidget(BASE + '/api/platforms/zid/stores/' + STORE + '/widget', lang);
  }

  // Zid's page may define its function after this script: wrapped again when the page has loaded
  wrap();
  window.addEventListener('load', wrap);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
}
