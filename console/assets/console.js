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
// The day-by-day chart: one day is in the tab order; the arrow keys move to the day beside it on the
// screen (the next one is to the left in Arabic), Home and End to the first and the last.
document.addEventListener('keydown', (event) => {
  const day = event.target instanceof Element ? event.target.closest('.plot .day') : null;
  if (!day) return;
  const days = [...day.parentNode.querySelectorAll('.day')];
  const rtl = getComputedStyle(day.closest('.plot')).direction === 'rtl';
  const at = days.indexOf(day);
  const moves = {
    ArrowRight: rtl ? at - 1 : at + 1,
    ArrowLeft: rtl ? at + 1 : at - 1,
    Home: 0,
    End: days.length - 1,
  };
  if (!(event.key in moves)) return;
  const next = days[Math.min(days.length - 1, Math.max(0, moves[event.key]))];
  event.preventDefault();
  day.setAttribute('tabindex', '-1');
  next.setAttribute('tabindex', '0');
  next.focus();
});
