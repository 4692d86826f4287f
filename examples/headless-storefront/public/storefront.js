// @ts-check
/**
 * The storefront page's own script: finds the perfumes the shopper loves as
 * they type (the package's type-ahead, in the ARIA combobox pattern), and
 * reports to Sillage, from the shopper's browser, what the server rendered and
 * what the shopper clicked — in the session the server scored with (the page
 * carries its id). The import map of the page points `@sillage/client` at the
 * package's module, served by the storefront itself.
 */
import { createPerfumeSuggester, createSillageClient, moveHighlight } from '@sillage/client';

const WORDS = {
  ar: {
    found: (/** @type {number} */ n) => (n === 1 ? 'عطر واحد' : n === 2 ? 'عطران' : `${n} عطور`),
    none: 'لم نجد عطراً بهذا الاسم.',
    full: 'خمسة عطور على الأكثر: ألغِ اختيار واحد لتضيف غيره.',
  },
  en: {
    found: (/** @type {number} */ n) => (n === 1 ? '1 perfume found' : `${n} perfumes found`),
    none: 'No perfume found by that name.',
    full: 'Five perfumes at most: untick one to add another.',
  },
};

const picker = document.getElementById('sillage-perfumes');
const field = picker?.querySelector('[role=combobox]');
const list = picker?.querySelector('[role=listbox]');
const status = picker?.querySelector('[role=status]');
const chosen = picker?.querySelector('.chosen');
const search = picker?.querySelector('.search');

if (
  picker?.dataset.sillageUrl &&
  picker.dataset.key &&
  field instanceof HTMLInputElement &&
  list instanceof HTMLElement &&
  status &&
  chosen &&
  search instanceof HTMLElement
) {
  const locale = document.documentElement.lang === 'en' ? 'en' : 'ar';
  const words = WORDS[locale];
  const max = Number(picker.dataset.max);
  // lookups only: no session is needed
  const client = createSillageClient({ baseUrl: picker.dataset.sillageUrl, apiKey: picker.dataset.key });
  /** @type {import('@sillage/client').PerfumeResult[]} */
  let found = [];
  let active = -1;
  const boxes = () => [...chosen.querySelectorAll('input[name=perfume]:checked')];
  const setActive = (/** @type {number} */ i) => {
    active = i;
    [...list.children].forEach((li, j) => {
      li.setAttribute('aria-selected', String(j === i));
    });
    const li = list.children[i];
    if (li) field.setAttribute('aria-activedescendant', li.id);
    else field.removeAttribute('aria-activedescendant');
  };
  const expand = (/** @type {boolean} */ open) => {
    list.hidden = !open;
    field.setAttribute('aria-expanded', String(open));
    if (!open) setActive(-1);
  };
  const pick = (/** @type {import('@sillage/client').PerfumeResult | undefined} */ p) => {
    if (!p) return;
    // a box like the server's: the form sends it as perfume=<id>
    const box = document.createElement('input');
    Object.assign(box, { type: 'checkbox', name: 'perfume', value: p.sillage_perfume_id, checked: true });
    const label = document.createElement('label');
    label.append(box, ` ${(locale === 'ar' && p.name_ar) || p.name}`);
    chosen.append(label);
    field.value = '';
    found = [];
    list.replaceChildren();
    expand(false);
  };
  const suggester = createPerfumeSuggester(client, {
    onResults({ results }) {
      const taken = boxes().map((b) => /** @type {HTMLInputElement} */ (b).value);
      found = (results ?? []).filter((p) => !taken.includes(p.sillage_perfume_id));
      list.replaceChildren(
        ...found.map((p, i) => {
          const li = document.createElement('li');
          li.id = `sillage-option-${i}`;
          li.setAttribute('role', 'option');
          li.setAttribute('aria-selected', 'false');
          const house = (locale === 'ar' && p.house_ar) || p.house;
          li.textContent = `${(locale === 'ar' && p.name_ar) || p.name} — ${house}${p.concentration ? ` · ${p.concentration.toUpperCase()}` : ''}`;
          li.addEventListener('mousedown', (e) => e.preventDefault());
          li.addEventListener('click', () => pick(p));
          return li;
        }),
      );
      expand(found.length > 0);
      status.textContent = results === null ? '' : found.length ? words.found(found.length) : words.none;
    },
  });
  search.hidden = false;
  field.addEventListener('input', () => {
    if (boxes().length >= max) {
      status.textContent = words.full;
      return;
    }
    suggester.input(field.value);
  });
  field.addEventListener('keydown', (e) => {
    const next = moveHighlight(e.key, active, found.length);
    if (next !== null) {
      e.preventDefault();
      expand(true);
      setActive(next);
    } else if (e.key === 'Enter' && active >= 0) {
      // picks the perfume; Enter without one submits the form, as ever
      e.preventDefault();
      pick(found[active]);
    } else if (e.key === 'Escape' && !list.hidden) {
      e.preventDefault();
      expand(false);
    }
  });
  field.addEventListener('blur', () => expand(false));
}

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
