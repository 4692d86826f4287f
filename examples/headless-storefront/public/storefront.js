// @ts-check
/**
 * The storefront page's own script: reports to Sillage, from the shopper's
 * browser, what the server rendered and what the shopper clicked — in the
 * session the server scored with (the page carries its id). The import map of
 * the page points `@sillage/client` at the package's module, served by the
 * storefront itself.
 */
import { createSillageClient } from '@sillage/client';

const results = document.getElementById('sillage-results');
const { sillageUrl, key, session } = results?.dataset ?? {};

if (results && sillageUrl && key && session) {
  const sillage = createSillageClient({
    baseUrl: sillageUrl,
    apiKey: key,
    sessionId: session,
    // queued events leave by beacon when the shopper follows a link or leaves
    sendBeacon: typeof navigator.sendBeacon === 'function' ? navigator.sendBeacon.bind(navigator) : null,
  });

  const links = [...results.querySelectorAll('a[data-kind]')].filter(
    /** @returns {a is HTMLAnchorElement} */ (a) => a instanceof HTMLAnchorElement,
  );
  const shown = links.filter((a) => a.dataset.kind === 'recommendation').length;
  // the impression: what the server rendered is on screen
  sillage.track({ type: 'results_viewed', data: { count: shown, rendered: 'server' } });

  for (const link of links) {
    link.addEventListener('click', () => {
      const { kind, productId, position } = link.dataset;
      if (kind === 'powered_by') sillage.track({ type: 'powered_by_clicked' });
      else if (productId && position) {
        sillage.track({
          type: kind === 'also_explore' ? 'also_explore_clicked' : 'recommendation_clicked',
          merchant_product_id: productId,
          position: Number(position),
        });
      }
      void sillage.flush({ beacon: true });
    });
  }
  addEventListener('pagehide', () => void sillage.flush({ beacon: true }));
}
