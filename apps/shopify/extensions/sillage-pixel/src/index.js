/**
 * Sillage's web pixel: when a checkout completes, it reports the purchase to the service
 * (`POST {base}/api/widget/event`) with the shop's publishable key, so that the order is tied to
 * the quiz session the shopper had on the storefront. Its settings (`base`, `key`) are set by the
 * service at install (webPixelCreate). The `orders/create` webhook records the same order too; the
 * service keeps one purchase per order id.
 */
import { register } from '@shopify/web-pixels-extension';
import { eventUrl, purchaseEvent, sessionStorageName } from './purchase.js';

register(({ analytics, browser, settings }) => {
  analytics.subscribe('checkout_completed', async (event) => {
    const url = eventUrl(settings);
    if (!url) return;
    let stored = null;
    const name = sessionStorageName(settings?.key);
    if (name) {
      try {
        // the top frame's localStorage, where the widget keeps the session (a promise)
        stored = await browser.localStorage.getItem(name);
      } catch {
        stored = null;
      }
    }
    const body = purchaseEvent(event?.data?.checkout, settings, stored, Date.now());
    if (!body) return;
    try {
      // keepalive: the request outlives the page; text/plain holding JSON, which the service
      // reads like application/json, needs no CORS preflight
      await fetch(url, {
        method: 'POST',
        body: JSON.stringify(body),
        keepalive: true,
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      });
    } catch {
      // not sent: the orders/create webhook still records the order (without its session)
    }
  });
});
