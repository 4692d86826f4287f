/**
 * sillage.js — the one script a merchant puts on the store:
 *
 *   <script src="{base}/widget/v1/sillage.js" data-key="pk_…" data-locale="ar" async></script>
 *
 * It defines <sillage-quiz>, mounts a launcher (unless data-mount="none", e.g.
 * on a thank-you page), and exposes `window.Sillage` with `trackPurchase` and
 * `open`. Calls queued before it loaded (`window.Sillage.q`) are replayed, and a
 * `sillage:ready` event fires on window.
 *
 * Nothing here may throw into the host page: every step is guarded, and a
 * failure only leaves the widget hidden.
 */
import { type PurchaseInput, type Result, UNAVAILABLE } from './client.ts';
import { SillageQuiz } from './quiz-element.ts';
import { clientFor } from './runtime.ts';

declare const __WIDGET_BUILD__: string;

type Queued = [string, ...unknown[]];
interface SillageApi {
  ready: true;
  version: string;
  open(): void;
  trackPurchase(order: PurchaseInput): Promise<Result<{ accepted: number; duplicates: number }>>;
}

function currentScript(): HTMLScriptElement | null {
  const s = document.currentScript;
  if (s instanceof HTMLScriptElement) return s;
  return document.querySelector<HTMLScriptElement>('script[src*="/widget/v1/sillage"]');
}

/** The service's base URL: data-base-url, else where this script came from. */
function baseOf(script: HTMLScriptElement | null): string | null {
  const given = script?.dataset.baseUrl;
  try {
    if (given) return new URL(given, location.href).href.replace(/\/+$/, '');
    if (!script?.src) return null;
    const u = new URL(script.src, location.href);
    const at = u.pathname.indexOf('/widget/v1/');
    return `${u.origin}${at > 0 ? u.pathname.slice(0, at) : ''}`;
  } catch {
    return null;
  }
}

function start() {
  const script = currentScript();
  const base = baseOf(script);
  const data = script?.dataset ?? {};
  const key = data.key ?? null;

  // <sillage-quiz> elements the page placed itself learn the base from this
  // script, before they are upgraded (their set-up reads it)
  for (const el of Array.from(document.querySelectorAll('sillage-quiz'))) {
    if (base && !el.hasAttribute('base-url')) el.setAttribute('base-url', base);
  }
  if (!customElements.get('sillage-quiz')) customElements.define('sillage-quiz', SillageQuiz);

  let launcher: SillageQuiz | null = null;
  const mount = () => {
    if (!key || !base || data.mount === 'none' || !document.body) return;
    const el = document.createElement('sillage-quiz') as SillageQuiz;
    el.setAttribute('mode', 'launcher');
    el.setAttribute('key', key);
    el.setAttribute('base-url', base);
    for (const name of ['locale', 'accent', 'position', 'fallback', 'limit', 'timeout', 'reserve'] as const) {
      const v = data[name];
      if (v) el.setAttribute(name, v);
    }
    if (data.debug !== undefined) el.setAttribute('debug', '');
    launcher = el;
    document.body.append(el);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mount, { once: true });
  else mount();

  const api: SillageApi = {
    ready: true,
    version: __WIDGET_BUILD__,
    open() {
      launcher?.openQuiz();
    },
    async trackPurchase(order) {
      try {
        if (!key || !base) return { ok: false, status: 0, code: 'not_configured', error: UNAVAILABLE };
        return await clientFor(base, key).trackPurchase(order);
      } catch {
        return { ok: false, status: 0, code: 'unavailable', error: UNAVAILABLE };
      }
    },
  };
  const w = window as unknown as { Sillage?: { q?: Queued[] } & Partial<SillageApi> };
  const queued = Array.isArray(w.Sillage?.q) ? w.Sillage.q : [];
  w.Sillage = api;
  for (const [method, ...args] of queued) {
    const fn = (api as unknown as Record<string, unknown>)[method];
    if (typeof fn === 'function') {
      try {
        void (fn as (...a: unknown[]) => unknown).apply(api, args);
      } catch {
        // a bad queued call is dropped
      }
    }
  }
  dispatchEvent(new CustomEvent('sillage:ready'));
}

try {
  start();
} catch {
  // never into the host page
}
