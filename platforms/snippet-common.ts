/**
 * What the platforms' storefront scripts share (salla-snippet.ts, zid-snippet.ts), as the text of
 * JavaScript functions placed inside each script's closure (where `BASE` is the service's address):
 * reading values, reporting a purchase to the widget (queued until it is ready), and loading the
 * widget with the key the store's public settings name. Pure: text only.
 */
export const SNIPPET_HELPERS = `  function str(v) { return v === undefined || v === null ? '' : String(v); }
  function num(v) {
    var n = typeof v === 'object' && v !== null ? Number(v.amount) : Number(v);
    return isFinite(n) && n >= 0 ? n : 0;
  }

  function trackPurchase(o) {
    var W = (window.Sillage = window.Sillage || {});
    if (W.ready && typeof W.trackPurchase === 'function') W.trackPurchase(o);
    else (W.q = W.q || []).push(['trackPurchase', o]);
  }

  /** The store's key read from its public settings, and the widget loaded with it. */
  function loadWidget(settingsUrl, lang) {
    fetch(settingsUrl, { credentials: 'omit' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (w) {
        if (!w || typeof w.publishable_key !== 'string') return;
        var s = document.createElement('script');
        s.src = BASE + '/widget/v1/sillage.js';
        s.async = true;
        s.setAttribute('data-key', w.publishable_key);
        s.setAttribute('data-locale', lang);
        s.setAttribute('data-base-url', BASE);
        document.body.appendChild(s);
      })
      .catch(function () {});
  }
`;
