// The app's page in a Salla store's dashboard (docs/platforms.md): served after Salla's own
// embedded SDK (@salla.sa/embedded-sdk), it does the handshake with the dashboard, sets the page's
// title and tells the dashboard the page is ready (until then Salla shows its loading overlay). A
// page whose token had expired offers a button that asks Salla for a fresh one (never on its own:
// a token that stays refused must not reload the page in a loop).
(() => {
  const embedded = window.Salla?.embedded;
  if (!embedded) return;
  const state = document.body.getAttribute('data-embedded');
  embedded
    .init()
    .then(() => {
      embedded.page.setTitle(document.title);
      embedded.ready();
      document.documentElement.setAttribute('data-salla', 'ready');
    })
    .catch(() => {
      // opened outside Salla's dashboard: the page still reads as it is
      document.documentElement.setAttribute('data-salla', 'alone');
    });
  if (state === 'refresh') {
    document.addEventListener('click', (event) => {
      const button = event.target instanceof Element ? event.target.closest('button[data-refresh]') : null;
      if (button) embedded.auth.refresh();
    });
  }
})();
