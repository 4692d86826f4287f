// The console's only script, from its own origin: copy buttons and a confirmation before an
// irreversible action. Every page works without it.
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button.copy') : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute('data-copy') || '');
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent || '').then(() => {
    const label = button.textContent;
    button.textContent = button.getAttribute('data-copied') || label;
    setTimeout(() => {
      button.textContent = label;
    }, 2000);
  });
});
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  const question = form.getAttribute('data-confirm');
  if (question && !window.confirm(question)) event.preventDefault();
});
