/*
 * Demo storefront, thank-you page: reports the demo order to Sillage the way a
 * merchant's order confirmation page would. The order is in the data
 * attributes of #sillage-order (server-rendered); the widget script loads
 * async, so it may be ready before or after this file runs.
 */
(() => {
  const el = document.getElementById('sillage-order');
  if (!el) return;
  let items;
  try {
    items = JSON.parse(el.dataset.items || '[]');
  } catch {
    return;
  }
  const order = {
    order_id: el.dataset.orderId,
    total: Number(el.dataset.total),
    currency: el.dataset.currency,
    items,
  };

  let reported = false;
  function report() {
    if (reported || !window.Sillage || typeof window.Sillage.trackPurchase !== 'function') return;
    reported = true;
    Promise.resolve(window.Sillage.trackPurchase(order))
      .then((result) => {
        if (result?.ok !== true) return;
        const status = document.getElementById('sillage-order-status');
        if (!status) return;
        status.textContent = el.dataset.reportedText || 'Purchase reported.';
        status.hidden = false;
      })
      .catch(() => {
        // the demo order stays on screen; the widget logs its own errors
      });
  }

  if (window.Sillage?.ready) report();
  else window.addEventListener('sillage:ready', report, { once: true });
})();
