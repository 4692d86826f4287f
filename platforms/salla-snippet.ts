/**
 * The Salla app's storefront script (an App Snippet: pure JavaScript that Salla serves on every page
 * of every store that installed the app, before `</body>`; docs/platforms.md). One script for all
 * stores: it reads the store's id from Salla's storefront SDK, asks the service for the store's
 * publishable key, and loads the widget with it; it registers a Salla analytics tracker that turns
 * `Order Completed` into `Sillage.trackPurchase`, which the service counts once per order id (and
 * merges with the order's `order.created` webhook). Nothing secret is in it. Pure: the text only.
 */

import { SNIPPET_HELPERS } from './snippet-common.ts';

/** The snippet for a service at `baseUrl` (PUBLIC_BASE_URL), as the operator pastes it into the Partner Portal. */
export function sallaSnippet(baseUrl: string): string {
  const base = JSON.stringify(baseUrl.replace(/\/+$/, ''));
  return `/* Sillage: the scent quiz for this store (${baseUrl.replace(/\*\//g, '')}) */
(function () {
  'use strict';
  var BASE = ${base};
  if (window.__sillageSalla) return;
  window.__sillageSalla = true;
  var S = window.salla || window.Salla;
  if (!S || !S.config || typeof S.config.get !== 'function') return;


  /** Salla's Order Completed (Segment's e-commerce names) as the widget's purchase. */
  function order(p) {
    p = p || {};
    var id = str(p.order_id || p.id);
    var items = [];
    var products = Array.isArray(p.products) ? p.products : [];
    for (var i = 0; i < products.length && i < 200; i++) {
      var x = products[i] || {};
      var pid = str(x.product_id || x.id);
      if (!pid) continue;
      var q = Math.floor(Number(x.quantity) || 1);
      items.push({ merchant_product_id: pid, quantity: q > 0 ? q : 1, price: num(x.price) });
    }
    if (!id || items.length === 0) return null;
    var currency = str(p.currency || S.config.get('store.currency') || 'SAR').toUpperCase();
    return { order_id: id, total: num(p.total !== undefined ? p.total : p.revenue), currency: currency, items: items };
  }

${SNIPPET_HELPERS}
  function start() {
    var store = str(S.config.get('store.id'));
    if (!/^[0-9]{1,20}$/.test(store)) return;
    var lang = str(S.config.get('store.lang')) === 'en' ? 'en' : 'ar';
    if (S.analytics && typeof S.analytics.registerTracker === 'function') {
      S.analytics.registerTracker({
        name: 'sillage',
        track: function (event, payload) {
          if (event !== 'Order Completed') return;
          var o = order(payload);
          if (o) trackPurchase(o);
        },
        page: function () {}
      });
    }
    loadWidget(BASE + '/api/platforms/salla/stores/' + store + '/widget', lang);
  }

  if (typeof S.onReady === 'function') S.onReady(start);
  else if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
}
