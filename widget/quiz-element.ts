/**
 * <sillage-quiz>: the quiz and its results in a shadow root.
 *
 * Everything a merchant or the service sends is rendered with textContent or
 * as attribute values of elements we create, never parsed as HTML; links are
 * followed only when they are http(s). No inline handlers, no eval, styles as
 * a constructed stylesheet: it runs under a strict Content-Security-Policy.
 *
 * When the key is refused or the service cannot be reached, the element
 * hides itself (showing the merchant's fallback, when there is one) and the
 * page goes on exactly as without it; each refusal prints one console line
 * naming its cause and fix (diagnostics.ts). A slow or failed score never
 * loses the shopper's answers: they are kept (sessionStorage, per key), and
 * the shopper is offered a retry, or waits out a Retry-After.
 */
import { MAX_REFERENCE_PERFUMES } from '../contracts/limits.ts';
import type { Alternatives, PerfumeResult, Recommendation, ScoreResponse } from '../contracts/widget.ts';
import {
  createPerfumeSuggester,
  type Failure,
  moveHighlight,
  type PerfumeSuggester,
  type SillageClient,
  type Suggestions,
  type WidgetEvent,
} from './client.ts';
import { explain, lastProblem, maskKey, onProblem, report, reportNetwork, watchCsp } from './diagnostics.ts';
import {
  budgetBands,
  CONSENT_VERSION,
  formatPercent,
  formatPrice,
  formatSeconds,
  GIFT_OCCASIONS,
  type Locale,
  MESSAGES,
  type Messages,
  type Option,
  quizOptions,
  termLabel,
} from './i18n.ts';
import { foldPhone, phoneShapeOk } from './phone.ts';
import { clearQuiz, clientFor, loadQuiz, saveQuiz, type VerifiedKey, verifyKey } from './runtime.ts';
import { CSS } from './styles.ts';

type Attrs = Record<string, string | null | undefined | false>;
type Child = Node | string | null | undefined | false;
type Click = 'recommendation_clicked' | 'also_explore_clicked';

/** Creates an element; strings become text nodes, never markup. */
function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined && v !== false) el.setAttribute(k, v);
  for (const c of children) if (c) el.append(c);
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function icon(path: string): SVGElement {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const p = document.createElementNS(SVG_NS, 'path');
  p.setAttribute('d', path);
  p.setAttribute('fill', 'none');
  p.setAttribute('stroke', 'currentColor');
  p.setAttribute('stroke-width', '2');
  p.setAttribute('stroke-linecap', 'round');
  svg.append(p);
  return svg;
}
const CLOSE_PATH = 'M6 6l12 12M18 6L6 18';
/** A perfume bottle with its cap: an outlined drop read as the Arabic digit ٥ (five) in Arabic pages */
const BOTTLE_PATH =
  'M10 2h4v3h-4zM11 5v2M13 5v2M8 9a2 2 0 0 1 2-2h4a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2h-4a2 2 0 0 1-2-2zM10 13h4';

/** Only http(s) URLs become links or images: a `javascript:` product URL stays inert text. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, location.href);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** The attribution mark: parsed as SVG (not HTML), with anything active removed. */
function parseLogo(markup: string): Node | null {
  try {
    const doc = new DOMParser().parseFromString(markup, 'image/svg+xml');
    const svg = doc.documentElement;
    if (svg.nodeName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) return null;
    for (const bad of Array.from(svg.querySelectorAll('script,foreignObject,use,a,image'))) bad.remove();
    for (const el of [svg, ...Array.from(svg.querySelectorAll('*'))]) {
      for (const a of Array.from(el.attributes)) {
        if (/^on/i.test(a.name) || /href$/i.test(a.name)) el.removeAttribute(a.name);
      }
    }
    svg.setAttribute('aria-hidden', 'true');
    return document.importNode(svg, true);
  } catch {
    return null;
  }
}

/** Black or white text on the merchant's accent, whichever reads better (WCAG relative luminance). */
export function contrastText(color: string): string | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color.trim());
  if (!m?.[1]) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const lum = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return (1.05 / (lum + 0.05) >= (lum + 0.05) / 0.05 ? '#ffffff' : '#111111') as string;
}

/** A perfume the shopper loves, as lookup found it: kept with the answers, to show and to send. */
type LovedPerfume = Pick<
  PerfumeResult,
  'sillage_perfume_id' | 'name' | 'name_ar' | 'house' | 'house_ar' | 'concentration'
>;

/** A loved perfume out of a lookup result or the kept answers (anything else is not one). */
function lovedOf(v: unknown): LovedPerfume | null {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const text = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : null);
  const [id, name, house] = [text('sillage_perfume_id'), text('name'), text('house')];
  return id && name && house
    ? {
        sillage_perfume_id: id,
        name,
        name_ar: text('name_ar'),
        house,
        house_ar: text('house_ar'),
        concentration: text('concentration'),
      }
    : null;
}

interface Answers {
  /** the first, optional step: sent as loved_perfumes */
  perfumes: LovedPerfume[];
  families: string[];
  love: string[];
  avoid: string[];
  season: string | null;
  occasion: string | null;
  /**
   * for whom: women or men, null for no preference (the quiz's gender, an extension of the interface); or a
   * gift for him, her or anyone: the gift path (quiz.gift, and gender men, women or none)
   */
  gender: string | null;
  /** product kinds wanted (quiz.kinds) */
  kinds: string[];
  /** a price band of budgetBands, null for any price */
  budget: string | null;
  /** toggles: alcohol (alcohol-free only), heat (lasts in the heat), layer (the shopper layers) */
  extras: string[];
}
type Step =
  | 'intro'
  | 'gender'
  | 'perfumes'
  | 'families'
  | 'love'
  | 'avoid'
  | 'season'
  | 'occasion'
  | 'kinds'
  | 'budget'
  | 'extras'
  | 'loading'
  | 'failed'
  | 'results';
const QUIZ_STEPS: Step[] = [
  'gender',
  'perfumes',
  'families',
  'love',
  'avoid',
  'season',
  'occasion',
  'kinds',
  'budget',
  'extras',
];
const MAX_FAMILIES = 3;
const MAX_ACCORDS = 5;
const noAnswers = (): Answers => ({
  perfumes: [],
  families: [],
  love: [],
  avoid: [],
  season: null,
  occasion: null,
  gender: null,
  kinds: [],
  budget: null,
  extras: [],
});
/** the gift path's recipient (him, her, anyone), from the "for whom" answer; null when it is for the shopper */
const giftFor = (gender: string | null) => (gender && gender in MESSAGES.en.gifts ? gender : null);

/** Progress shows after this much waiting for results: a quick answer never flickers. */
export const PROGRESS_AFTER_MS = 1000;
/**
 * A score answer not back after this is given up and a retry offered (the
 * `timeout` attribute overrides it). The service bounds its own work well
 * below it (a database that does not answer in 3 s is a 503).
 */
export const SCORE_TIMEOUT_MS = 8000;
/** After a 429 or 503 with a Retry-After of at most AUTO_RETRY_MAX_WAIT_S, the widget waits and retries by itself, this many times a submission. */
export const AUTO_RETRIES = 2;
export const AUTO_RETRY_MAX_WAIT_S = 30;

interface ScoreFailure {
  kind: 'slow' | 'failed' | 'busy';
  /** when a retry may be made (ms since the epoch); 0: at once */
  until: number;
  /** the widget retries by itself at `until` */
  auto: boolean;
}

let sheet: CSSStyleSheet | null = null;

export class SillageQuiz extends HTMLElement {
  private shadow: ShadowRoot | null = null;
  private client: SillageClient | null = null;
  private locale: Locale = 'ar';
  private t: Messages = MESSAGES.ar;
  private step: Step = 'intro';
  private answers: Answers = noAnswers();
  private result: ScoreResponse | null = null;
  /** how many recommendations were asked for (the score's limit): fewer means fewer fit */
  private asked = 6;
  private testMode = false;
  /** verify's leads.email_picks: a lead's email gets its picks; else the shop contacts the shopper */
  private emailPicks = false;
  /** whether the lead sent had an email (the thanks says what happens next) */
  private leadByEmail = false;
  private open = false;
  private booted = false;
  private launcherButton: HTMLElement | null = null;
  /** the skip link first in the page (launcher mode) */
  private skipLink: HTMLElement | null = null;
  private panel: HTMLElement | null = null;
  private body: HTMLElement | null = null;
  private live: HTMLElement | null = null;
  private leadState: 'idle' | 'sending' | 'sent' | 'failed' = 'idle';
  private failure: ScoreFailure | null = null;
  private autoRetries = 0;
  /** the submission whose answer is awaited; an older one's answer is dropped */
  private attempt = 0;
  private timers: ReturnType<typeof setTimeout>[] = [];
  private verified: VerifiedKey | null = null;
  private debugBox: HTMLElement | null = null;
  /** the type-ahead of the perfumes step: one per element, so its answers stay cached from step to step */
  private suggester: PerfumeSuggester | null = null;
  /** where its answers go: the field on screen, when there is one */
  private onSuggestions: ((s: Suggestions) => void) | null = null;

  private attr(name: string): string | null {
    return this.getAttribute(name) ?? this.getAttribute(`data-${name}`);
  }
  /** the shop's currency, for the budget step's bands: the `currency` attribute, else SAR */
  private get currency(): string {
    const c = this.attr('currency');
    return c && /^[a-z]{3}$/i.test(c) ? c.toUpperCase() : 'SAR';
  }
  private get mode(): 'launcher' | 'inline' {
    return this.attr('mode') === 'launcher' ? 'launcher' : 'inline';
  }

  connectedCallback() {
    if (this.booted) return;
    this.booted = true;
    this.hidden = true; // shown only once the key is known to work
    void this.boot();
  }

  /** Opens the quiz (launcher mode) — also what `Sillage.open()` calls. */
  openQuiz() {
    if (this.hidden || !this.shadow) return;
    if (this.mode === 'launcher' && !this.open) {
      this.open = true;
      this.track({ type: 'widget_opened' });
      this.render();
      this.persist();
    }
  }

  private async boot() {
    const key = this.attr('key');
    const base = this.attr('base-url');
    this.locale = this.attr('locale') === 'en' ? 'en' : 'ar';
    this.t = MESSAGES[this.locale];
    if (!key || !base) {
      this.diagnose(key ? 'no_base_url' : 'not_configured', 'verify');
      return this.fail('not_configured', false);
    }
    watchCsp(base, key);
    const timeout = Number(this.attr('timeout'));
    this.client = clientFor(base, key, Number.isFinite(timeout) && timeout > 0 ? timeout : undefined);
    let verified = await verifyKey(this.client, key);
    // a 429 or 503 that says when: waited out, a few times, before the widget gives up
    for (let i = 0; 'error' in verified && i < AUTO_RETRIES; i++) {
      const wait = verified.retryAfter;
      if (wait === undefined || wait > AUTO_RETRY_MAX_WAIT_S) break;
      this.diagnose(verified.error, 'verify', { retryAfter: wait });
      await new Promise((r) => setTimeout(r, wait * 1000));
      verified = await verifyKey(this.client, key);
    }
    if ('error' in verified) {
      this.diagnose(verified.error, 'verify', { retryAfter: verified.retryAfter });
      return this.fail(verified.error, false);
    }
    this.verified = verified;
    if (!verified.ready) {
      const c = verified.counts;
      this.diagnose('catalog_not_ready', 'verify', {
        counts: `${c.total} products: ${c.matched} matched, ${c.partial} partial, ${c.unmatched} unmatched`,
      });
      return this.fail('catalog_not_ready', true);
    }
    this.testMode = verified.testMode;
    this.emailPicks = verified.emailPicks;
    this.restore(key);
    this.setup();
    this.hidden = false;
    this.addSkipLink();
    this.track({ type: 'widget_loaded', data: { mode: this.mode, locale: this.locale } });
  }

  /** The debug attribute (or data-debug on the script tag) asks for the install panel. */
  private get debug(): boolean {
    return this.attr('debug') !== null;
  }

  /** One console line for a refusal, naming cause and fix (diagnostics.ts). */
  private diagnose(code: string, op: string, extra: { retryAfter?: number; counts?: string } = {}) {
    const key = this.attr('key') ?? '';
    const base = this.attr('base-url') ?? '';
    if (code === 'network') reportNetwork(base, key, op);
    else report(code, key, explain(code, { key, origin: location.origin, base, op, ...extra }));
  }

  /** The answers kept in this tab (a reload, a failed score) come back, at the step the shopper was at. */
  private restore(key: string) {
    const saved = loadQuiz(key);
    if (!saved) return;
    const a = this.answers as unknown as Record<string, unknown>;
    for (const [k, d] of Object.entries(a)) {
      const v = saved.answers[k];
      if (k === 'perfumes') {
        if (Array.isArray(v))
          a[k] = v
            .map(lovedOf)
            .filter((p) => p !== null)
            .slice(0, MAX_REFERENCE_PERFUMES);
      } else if (Array.isArray(d)) {
        if (Array.isArray(v)) a[k] = v.filter((x): x is string => typeof x === 'string').slice(0, 24);
      } else if (v === null || typeof v === 'string') a[k] = v;
    }
    // a submission that had not answered: back to the last question, answers ready to send again
    this.step = QUIZ_STEPS.includes(saved.step as Step) ? (saved.step as Step) : (QUIZ_STEPS.at(-1) as Step);
    if (this.mode === 'launcher' && saved.open) this.open = true;
  }

  /** Keeps the answers for this tab while the quiz is under way. */
  private persist() {
    const key = this.attr('key');
    if (!key || this.step === 'intro' || this.step === 'results') return;
    saveQuiz(key, {
      answers: this.answers as unknown as Record<string, unknown>,
      step: this.step,
      open: this.open,
    });
  }

  /**
   * The launcher comes after the whole page in the tab order (the element is added at the end of
   * the body): a skip link first in the page, shown only when focused, opens the quiz.
   */
  private addSkipLink() {
    if (this.mode !== 'launcher' || this.skipLink || !document.body) return;
    const host = document.createElement('sillage-skip');
    const shadow = host.attachShadow({ mode: 'open' });
    const side = this.locale === 'ar' ? 'right' : 'left';
    const button = h('button', { type: 'button', lang: this.locale }, this.t.skipToQuiz) as HTMLButtonElement;
    // styles through the CSSOM (allowed under a strict Content-Security-Policy), out of view until focused
    button.style.cssText = `position:fixed;top:8px;${side}:8px;z-index:2147483647;padding:10px 16px;border:0;border-radius:8px;background:#1f1b16;color:#fff;font:600 15px system-ui,sans-serif;transform:translateY(-300%)`;
    button.addEventListener('focus', () => {
      button.style.transform = 'none';
    });
    button.addEventListener('blur', () => {
      button.style.transform = 'translateY(-300%)';
    });
    button.addEventListener('click', () => this.openQuiz());
    shadow.append(button);
    document.body.prepend(host);
    this.skipLink = host;
  }

  /** Hides the widget and shows the merchant's fallback; reports why when the service can hear it. */
  private fail(code: string, report: boolean) {
    this.skipLink?.remove();
    this.skipLink = null;
    this.open = false;
    this.clearTimers();
    delete this.dataset.docked;
    const slot = this.querySelector('[slot=fallback]');
    if (this.debug) {
      // asked for: the install panel stays, with the fallback beside it
      const shadow = this.ensureShadow();
      shadow.replaceChildren(
        ...this.keptStyles(),
        this.docked(h('div', { class: `root mode-${this.mode}` }, this.debugPanel())),
        ...(slot ? [h('slot', { name: 'fallback' })] : []),
      );
      this.hidden = false;
    } else if (slot) {
      // without a shadow root yet (verify failed), light-DOM children render as they are
      this.shadow?.replaceChildren(h('slot', { name: 'fallback' }));
      this.hidden = false;
    } else {
      this.shadow?.replaceChildren();
      this.hidden = true;
    }
    const selector = this.attr('fallback');
    if (selector) {
      try {
        document.querySelector(selector)?.removeAttribute('hidden');
      } catch {
        // an invalid selector is the merchant's typo, not a reason to throw into the page
      }
    }
    if (report && this.client) {
      void this.client.event({ type: 'widget_error', code, message: `widget hidden: ${code}` });
    }
    this.dispatchEvent(new CustomEvent('sillage:hidden', { detail: { code }, bubbles: true, composed: true }));
  }

  private track(e: WidgetEvent) {
    this.client?.track(e);
  }

  private ensureShadow(): ShadowRoot {
    if (this.shadow) return this.shadow;
    const shadow = this.attachShadow({ mode: 'open' });
    this.shadow = shadow;
    this.dataset.mode = this.mode;
    if (
      'adoptedStyleSheets' in shadow &&
      typeof CSSStyleSheet === 'function' &&
      'replaceSync' in CSSStyleSheet.prototype
    ) {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        sheet.replaceSync(CSS);
      }
      shadow.adoptedStyleSheets = [sheet];
    } else {
      shadow.append(h('style', {}, CSS));
    }
    return shadow;
  }

  private keptStyles(): Node[] {
    return Array.from(this.shadow?.childNodes ?? []).filter((n) => n.nodeName === 'STYLE');
  }

  private setup() {
    const shadow = this.ensureShadow();
    const position = this.attr('position');
    if (position === 'start' || position === 'end') this.dataset.position = position;
    const accent = this.attr('accent');
    if (accent && /^#[0-9a-f]{3,8}$/i.test(accent)) {
      this.style.setProperty('--sillage-accent', accent);
      const text = contrastText(accent);
      if (text) this.style.setProperty('--sillage-accent-text', text);
    }
    shadow.addEventListener('keydown', (e) => this.onKey(e as KeyboardEvent));
    this.render();
  }

  private onKey(e: KeyboardEvent) {
    if (!this.open || !this.panel) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      this.close();
      return;
    }
    if (e.key !== 'Tab') return;
    // keep focus inside the open dialog
    const focusable = Array.from(
      this.panel.querySelectorAll<HTMLElement>('button:not([disabled]),a[href],input:not([disabled])'),
    ).filter((el) => el.offsetParent !== null || el.getClientRects().length > 0);
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = this.shadow?.activeElement;
    if (!first || !last) return;
    if (e.shiftKey && active === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && active === last) {
      e.preventDefault();
      first.focus();
    }
  }

  private close() {
    if (!this.open) return;
    this.open = false;
    this.track({ type: 'widget_closed', data: { step: this.step } });
    this.render();
    this.persist();
    this.launcherButton?.focus();
  }

  private render() {
    const shadow = this.shadow;
    if (!shadow) return;
    const t = this.t;
    const root = h('div', {
      class: `root mode-${this.mode}`,
      dir: this.locale === 'ar' ? 'rtl' : 'ltr',
      lang: this.locale,
    });
    if (this.mode === 'launcher') {
      // the room the launcher floats over, at the end of the page (styles.ts)
      this.dataset.docked = '';
      const launcher = h('button', { class: 'launcher', type: 'button', 'aria-haspopup': 'dialog' });
      launcher.append(icon(BOTTLE_PATH), t.launcher);
      launcher.addEventListener('click', () => this.openQuiz());
      this.launcherButton = launcher;
      root.append(launcher);
      if (this.open) {
        launcher.hidden = true;
        const modal = h('div', { class: 'modal' }, this.buildPanel());
        modal.addEventListener('click', (e) => {
          if (e.target === modal) this.close();
        });
        root.append(modal);
      }
    } else {
      root.append(this.buildPanel());
    }
    if (this.debug) root.prepend(this.debugPanel());
    shadow.replaceChildren(...this.keptStyles(), this.docked(root));
    if (this.open) this.focusStart();
  }

  /**
   * A launcher floats in the page's corner, in a dock of its own; the element itself stays at the
   * end of the page, as tall as the launcher and its margins (styles.ts), so the page's last
   * content can be scrolled clear of it. Inline, the quiz stands where the element is.
   */
  private docked(root: HTMLElement): HTMLElement {
    return this.mode === 'launcher' ? h('div', { class: 'dock' }, root) : root;
  }

  private focusStart() {
    const heading = this.body?.querySelector<HTMLElement>('h3, .lead');
    (heading ?? this.panel)?.focus({ preventScroll: true });
  }

  private buildPanel(): HTMLElement {
    // the step's timers (progress, countdown) and searches belong to the panel they update: a new panel starts its own
    this.clearTimers();
    this.suggester?.cancel();
    this.onSuggestions = null;
    const t = this.t;
    const titleId = 'sillage-title';
    const panel = h('div', {
      class: 'panel',
      role: this.mode === 'launcher' ? 'dialog' : 'region',
      'aria-modal': this.mode === 'launcher' ? 'true' : null,
      'aria-labelledby': titleId,
      tabindex: '-1',
    });
    // role none: the quiz's header and footer are not the page's banner and contentinfo landmarks
    const header = h(
      'header',
      { role: 'none' },
      h('h2', { id: titleId }, t.title),
      this.testMode && h('span', { class: 'badge' }, t.testMode),
    );
    if (this.mode === 'launcher') {
      const close = h('button', { class: 'icon', type: 'button', 'aria-label': t.close });
      close.append(icon(CLOSE_PATH));
      close.addEventListener('click', () => this.close());
      header.append(close);
    }
    this.live = h('div', { class: 'sr', role: 'status', 'aria-live': 'polite' });
    this.body = h('div', { class: 'body' });
    panel.append(header, this.body, this.live);
    this.panel = panel;
    this.fillBody();
    return panel;
  }

  private go(step: Step) {
    this.step = step;
    this.persist();
    const old = this.panel;
    if (!old) return;
    old.replaceWith(this.buildPanel());
    this.focusStart();
  }

  private fillBody() {
    const body = this.body;
    const panel = this.panel;
    if (!body || !panel) return;
    const t = this.t;
    const step = this.step;
    if (step === 'intro') {
      const start = h('button', { class: 'primary', type: 'button' }, t.start);
      start.addEventListener('click', () => {
        if (this.mode === 'inline') this.track({ type: 'widget_opened' });
        this.track({ type: 'quiz_started' });
        this.go(QUIZ_STEPS[0] as Step);
      });
      // the title is the dialog's own (its header): the intro says what the quiz does, and takes focus
      body.append(h('p', { class: 'lead', tabindex: '-1' }, t.intro), start);
      return;
    }
    if (step === 'loading') {
      const progress = h(
        'div',
        { class: 'wait', hidden: '' },
        h('div', { class: 'bar', role: 'progressbar', 'aria-label': t.loading }),
        h('p', { class: 'status' }, t.loading),
      );
      body.append(h('h3', { tabindex: '-1', class: 'sr' }, t.title), progress);
      this.later(() => {
        progress.hidden = false;
        if (this.live) this.live.textContent = t.loading;
      }, PROGRESS_AFTER_MS);
      return;
    }
    if (step === 'failed') {
      this.fillFailed(body, panel);
      return;
    }
    if (step === 'results') {
      this.fillResults(body);
      return;
    }
    const index = QUIZ_STEPS.indexOf(step);
    const options = quizOptions(this.locale);
    const a = this.answers;
    body.append(h('p', { class: 'progress' }, t.step(index + 1, QUIZ_STEPS.length)));
    let canGoOn = () => true;
    // on the gift path the questions speak of the one the gift is for
    const gift = giftFor(a.gender);
    const q = { ...t, ...(gift && t.gift[gift]) };
    if (step === 'gender') {
      const g = t.genders;
      const gifts = Object.entries(t.gifts).map(([slug, label]) => ({ slug, label }));
      body.append(
        this.single(
          t.genderQ,
          [
            { slug: '', label: t.anyGender },
            { slug: 'women', label: g.women },
            { slug: 'men', label: g.men },
            ...gifts,
          ],
          a.gender,
          (v) => {
            a.gender = v;
          },
        ),
      );
    } else if (step === 'perfumes') {
      body.append(this.perfumePicker(q.perfumesQ));
    } else if (step === 'families') {
      // a loved perfume is enough of a quiz: families are then optional
      const optional = a.perfumes.length > 0;
      body.append(
        this.choices(
          q.familiesQ,
          optional ? t.familiesOptional : t.familiesHint,
          options.families,
          a.families,
          MAX_FAMILIES,
        ),
      );
      canGoOn = () => a.families.length > 0 || a.perfumes.length > 0;
    } else if (step === 'love' || step === 'avoid') {
      const [mine, other] = step === 'love' ? [a.love, a.avoid] : [a.avoid, a.love];
      body.append(
        this.choices(
          q[`${step}Q`],
          t.optionalHint,
          options.accords.filter((o) => !other.includes(o.slug)),
          mine,
          MAX_ACCORDS,
        ),
      );
    } else if (step === 'season') {
      body.append(
        this.single(t.seasonQ, [{ slug: '', label: t.anySeason }, ...options.seasons], a.season, (v) => {
          a.season = v;
        }),
      );
    } else if (step === 'occasion') {
      // a gift: the region's occasions (Ramadan nights, the majlis, Eid…)
      const offered = gift
        ? GIFT_OCCASIONS.map((slug) => options.occasions.find((o) => o.slug === slug) as Option)
        : options.occasions;
      body.append(
        this.single(
          gift ? t.giftOccasionQ : t.occasionQ,
          [{ slug: '', label: t.anyOccasion }, ...offered],
          a.occasion,
          (v) => {
            a.occasion = v;
          },
        ),
      );
    } else if (step === 'kinds') {
      const fs = this.choices(t.kindsQ, t.optionalHint, options.kinds, a.kinds, 9);
      fs.append(this.chips([{ slug: 'alcohol', label: t.alcoholFreeOnly }], a.extras, 9));
      body.append(fs);
    } else if (step === 'budget') {
      const price = (n: string) => formatPrice(Number(n), this.currency, this.locale);
      const bands = budgetBands(this.currency).map((slug) => {
        const [lo = '', hi = ''] = slug.split('-');
        return { slug, label: !lo ? t.upTo(price(hi)) : !hi ? t.over(price(lo)) : `${price(lo)} – ${price(hi)}` };
      });
      body.append(
        this.single(t.budgetQ, [{ slug: '', label: t.anyBudget }, ...bands], a.budget, (v) => {
          a.budget = v;
        }),
      );
    } else {
      const extras = Object.entries(t.extras).map(([slug, label]) => ({ slug, label }));
      body.append(this.choices(t.extrasQ, t.optionalHint, extras, a.extras, 9));
    }
    const last = index === QUIZ_STEPS.length - 1;
    const next = h('button', { class: 'primary', type: 'button' }, last ? t.seeResults : t.next) as HTMLButtonElement;
    next.disabled = !canGoOn();
    // with a loved perfume the answers make a quiz already: every later step can be skipped
    const matches = h(
      'button',
      { class: 'secondary', type: 'button', hidden: a.perfumes.length === 0 && '' },
      t.seeMatches,
    );
    matches.addEventListener('click', () => void this.submit());
    body.addEventListener('change', () => {
      next.disabled = !canGoOn();
      matches.hidden = a.perfumes.length === 0;
      this.persist();
    });
    next.addEventListener('click', () => {
      if (!canGoOn()) return;
      if (last) void this.submit();
      else this.go(QUIZ_STEPS[index + 1] as Step);
    });
    const back = h('button', { class: 'secondary', type: 'button' }, t.back);
    back.addEventListener('click', () => this.go(index === 0 ? 'intro' : (QUIZ_STEPS[index - 1] as Step)));
    panel.insertBefore(h('div', { class: 'actions' }, back, !last && matches, next), this.live);
  }

  /** A perfume's name and house in the quiz's language (the catalog's Arabic ones when it has them), and its concentration. */
  private named(p: LovedPerfume): { name: string; house: string; concentration: string } {
    const ar = this.locale === 'ar';
    return {
      name: (ar && p.name_ar) || p.name,
      house: (ar && p.house_ar) || p.house,
      concentration: p.concentration ? termLabel('concentration', p.concentration, this.locale) : '',
    };
  }

  /** What a chip says: the name, and the concentration that tells Sauvage EDT from Sauvage EDP. */
  private chipLabel(p: LovedPerfume): string {
    const { name, concentration } = this.named(p);
    return concentration ? `${name} · ${concentration}` : name;
  }

  /** The name of a loved perfume a result refers to, in the quiz's language when the shopper's pick has it. */
  private lovedName(ref: { sillage_perfume_id: string; name: string }): string {
    const p = this.answers.perfumes.find((x) => x.sillage_perfume_id === ref.sillage_perfume_id);
    return p ? this.named(p).name : ref.name;
  }

  /**
   * The perfumes step: a type-ahead over lookup in the ARIA 1.2 combobox
   * pattern — focus stays in the field, the arrows move through the list
   * (aria-activedescendant), Enter picks, Escape closes the list, then clears
   * the field, and only then the dialog; the live region says how many were
   * found, or that none was — and the picks as buttons that remove them.
   */
  private perfumePicker(question: string): HTMLElement {
    const t = this.t;
    const picked = this.answers.perfumes;
    const listId = 'sillage-perfumes';
    const input = h('input', {
      type: 'text',
      role: 'combobox',
      'aria-autocomplete': 'list',
      'aria-expanded': 'false',
      'aria-controls': listId,
      autocomplete: 'off',
      spellcheck: 'false',
    }) as HTMLInputElement;
    const list = h('ul', { id: listId, role: 'listbox', class: 'options', 'aria-label': t.perfumeName, hidden: '' });
    const chips = h('ul', { class: 'chips', role: 'list', 'aria-label': t.lovedPerfumes });
    const note = h('p', { class: 'note' });
    const fs = h(
      'fieldset',
      {},
      h('legend', {}, h('h3', { tabindex: '-1' }, question)),
      h('p', { class: 'hint' }, t.perfumesHint),
      h('label', { class: 'field' }, t.perfumeName, input),
      list,
      chips,
      note,
    );
    let found: PerfumeResult[] = [];
    let active = -1;
    const say = (text: string) => {
      if (this.live) this.live.textContent = text;
    };
    const full = () => picked.length >= MAX_REFERENCE_PERFUMES;
    const setActive = (i: number) => {
      active = i;
      Array.from(list.children).forEach((li, j) => {
        li.setAttribute('aria-selected', String(j === i));
      });
      const li = list.children[i];
      if (li) {
        input.setAttribute('aria-activedescendant', li.id);
        li.scrollIntoView({ block: 'nearest' });
      } else input.removeAttribute('aria-activedescendant');
    };
    const expand = (open: boolean) => {
      list.hidden = !open;
      input.setAttribute('aria-expanded', String(open));
      if (!open) setActive(-1);
    };
    const forget = () => {
      found = [];
      list.replaceChildren();
      expand(false);
    };
    const sync = () => {
      chips.replaceChildren(
        ...picked.map((p, i) => {
          const label = this.chipLabel(p);
          const remove = h('button', { type: 'button', class: 'pick', 'aria-label': t.remove(label) }, label);
          remove.append(icon(CLOSE_PATH));
          remove.addEventListener('click', () => {
            picked.splice(i, 1);
            sync();
            input.focus();
          });
          return h('li', {}, remove);
        }),
      );
      chips.hidden = picked.length === 0;
      note.textContent = full() ? t.perfumesFull : '';
      // the step's buttons and the kept answers follow the picks
      fs.dispatchEvent(new Event('change', { bubbles: true }));
    };
    const pick = (r: PerfumeResult | undefined) => {
      const p = lovedOf(r);
      if (!p) return;
      picked.push(p);
      this.suggester?.cancel();
      input.value = '';
      forget();
      sync();
      say(t.added(this.chipLabel(p)));
      input.focus();
    };
    this.onSuggestions = (s) => {
      found = (s.results ?? []).filter((r) => !picked.some((p) => p.sillage_perfume_id === r.sillage_perfume_id));
      list.replaceChildren(
        ...found.map((r, i) => {
          const { name, house, concentration } = this.named(r);
          const li = h(
            'li',
            { id: `${listId}-${i}`, role: 'option', 'aria-selected': 'false' },
            h('span', { class: 'name' }, name),
            // a space between: the option's accessible name is its text
            ' ',
            h('span', { class: 'house' }, concentration ? `${house} · ${concentration}` : house),
          );
          // a click picks without taking focus from the field
          li.addEventListener('mousedown', (e) => e.preventDefault());
          li.addEventListener('click', () => pick(r));
          return li;
        }),
      );
      expand(found.length > 0);
      const none = s.results && found.length === 0 ? (s.failure ? t.searchFailed : t.noPerfume) : '';
      note.textContent = none;
      if (s.results) say(none || t.found(found.length));
    };
    if (this.client)
      this.suggester ??= createPerfumeSuggester(this.client, { onResults: (s) => this.onSuggestions?.(s) });
    input.addEventListener('input', () => {
      if (full()) {
        // a sixth is not searched for: the shopper is told why
        forget();
        note.textContent = t.perfumesFull;
        say(t.perfumesFull);
        return;
      }
      this.suggester?.input(input.value);
    });
    input.addEventListener('keydown', (e) => {
      const next = moveHighlight(e.key, active, found.length);
      if (next !== null) {
        e.preventDefault();
        expand(true);
        setActive(next);
      } else if (e.key === 'Enter' && active >= 0) {
        e.preventDefault();
        pick(found[active]);
      } else if (e.key === 'Escape' && (!list.hidden || input.value)) {
        // the list first, then the text; only an empty field lets Escape close the dialog
        e.preventDefault();
        e.stopPropagation();
        if (!list.hidden) expand(false);
        else {
          input.value = '';
          this.suggester?.input('');
        }
      }
    });
    input.addEventListener('blur', () => expand(false));
    sync();
    return fs;
  }

  /** A group of checkboxes styled as chips, in a fieldset with its question; at most `max` can be ticked. */
  private choices(question: string, hint: string, options: Option[], picked: string[], max: number): HTMLElement {
    return h(
      'fieldset',
      {},
      h('legend', {}, h('h3', { tabindex: '-1' }, question)),
      h('p', { class: 'hint' }, hint),
      this.chips(options, picked, max),
    );
  }

  /** Checkboxes styled as chips, ticked into `picked`; at most `max` of those offered can be ticked. */
  private chips(options: Option[], picked: string[], max: number): HTMLElement {
    const chips = h('div', { class: 'chips' });
    const inputs: HTMLInputElement[] = [];
    const sync = () => {
      for (const i of inputs) i.disabled = !i.checked && picked.length >= max;
    };
    for (const o of options) {
      const input = h('input', { type: 'checkbox', value: o.slug }) as HTMLInputElement;
      input.checked = picked.includes(o.slug);
      input.addEventListener('change', () => {
        const at = picked.indexOf(o.slug);
        if (input.checked && at < 0) picked.push(o.slug);
        if (!input.checked && at >= 0) picked.splice(at, 1);
        sync();
      });
      inputs.push(input);
      chips.append(h('label', { class: 'chip' }, input, h('span', {}, o.label)));
    }
    sync();
    return chips;
  }

  /** A radio group styled as chips; the first option ('') means "no preference". */
  private single(
    question: string,
    options: Option[],
    value: string | null,
    set: (v: string | null) => void,
  ): HTMLElement {
    const fs = h('fieldset', {});
    fs.append(h('legend', {}, h('h3', { tabindex: '-1' }, question)));
    const chips = h('div', { class: 'chips', role: 'radiogroup' });
    const name = `sillage-${question.length}-${options.length}`;
    for (const o of options) {
      const input = h('input', { type: 'radio', name, value: o.slug }) as HTMLInputElement;
      input.checked = (value ?? '') === o.slug;
      input.addEventListener('change', () => {
        if (input.checked) set(o.slug || null);
      });
      chips.append(h('label', { class: 'chip' }, input, h('span', {}, o.label)));
    }
    fs.append(chips);
    return fs;
  }

  /** Sends the answers; `again` is a retry of the same submission (by the shopper or after a Retry-After). */
  private async submit(again = false) {
    const client = this.client;
    if (!client) return;
    const a = this.answers;
    const accord_ratings: Record<string, string> = {};
    for (const s of a.love) accord_ratings[s] = 'love';
    for (const s of a.avoid) accord_ratings[s] = 'avoid';
    const gift = giftFor(a.gender);
    const gender = gift ? { him: 'men', her: 'women' }[gift] : a.gender;
    const [min, max] = (a.budget ?? '').split('-').map((n) => (n ? Number(n) : undefined));
    const has = (x: string) => a.extras.includes(x);
    if (!again) {
      this.autoRetries = 0;
      this.track({
        type: 'quiz_completed',
        data: {
          perfumes: a.perfumes.length,
          families: a.families.length,
          loved: a.love.length,
          avoided: a.avoid.length,
          // the console counts the gift quizzes
          ...(gift ? { gift: true } : {}),
        },
      });
    }
    this.go('loading');
    const attempt = ++this.attempt;
    const limit = Number(this.attr('limit'));
    const timeout = Number(this.attr('timeout'));
    const res = await client.score(
      {
        locale: this.locale,
        quiz: {
          families: a.families,
          accord_ratings,
          ...(a.season ? { season: a.season } : {}),
          ...(a.occasion ? { occasion: a.occasion } : {}),
          ...(gender ? { gender } : {}),
          ...(a.perfumes.length ? { loved_perfumes: a.perfumes.map((p) => p.sillage_perfume_id) } : {}),
          // only what the shopper said: a gift, kinds, alcohol-free, a budget, heat, layering
          ...(gift ? { gift: true } : {}),
          ...(a.kinds.length ? { kinds: a.kinds } : {}),
          ...(has('alcohol') ? { alcohol_free: true } : {}),
          ...(a.budget ? { budget: { min, max } } : {}),
          ...(has('heat') ? { lasts_in_heat: true } : {}),
          ...(has('layer') ? { layering: true } : {}),
        },
        ...(Number.isInteger(limit) && limit > 0 ? { limit } : {}),
      },
      { timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : SCORE_TIMEOUT_MS },
    );
    // the shopper went back meanwhile, or a newer submission is under way
    if (attempt !== this.attempt || this.step !== 'loading') return;
    if (!res.ok) {
      this.scoreFailed(res);
      return;
    }
    this.result = res.data;
    this.asked = Number.isInteger(limit) && limit > 0 ? limit : 6;
    this.leadState = 'idle';
    const key = this.attr('key');
    if (key) clearQuiz(key);
    this.go('results');
    if (this.live) this.live.textContent = this.t.resultsCount(res.data.recommendations.length);
    this.track({ type: 'results_viewed', data: { count: res.data.recommendations.length } });
  }

  private fillResults(body: HTMLElement) {
    const r = this.result;
    if (!r) return;
    // a gift: the results speak of the one it is for
    const gift = r.taste_summary.gift?.recipient;
    const t = { ...this.t, ...(gift && this.t.gift[gift]) };
    body.append(h('h3', { tabindex: '-1' }, t.resultsTitle));
    // only products that fit are recommended: say why the list is short, or empty
    const explore = (reason: string) => r.also_explore.filter((p) => p.reason === reason);
    const closest = explore('closest');
    // nothing at all to show: say how to widen the answers, and offer no lead about picks there are not
    const nothing = r.recommendations.length === 0 && r.also_explore.length === 0;
    if (nothing) {
      const edit = h('button', { class: 'secondary', type: 'button' }, t.edit);
      edit.addEventListener('click', () => this.go(QUIZ_STEPS[0] as Step));
      body.append(h('p', { class: 'status' }, t.noResults), h('p', { class: 'hint' }, t.relaxHint), edit);
    } else if (r.recommendations.length === 0)
      body.append(h('p', { class: 'status' }, closest.length ? t.noneFit : t.noResults));
    else {
      if (r.recommendations.length < this.asked)
        body.append(h('p', { class: 'status' }, t.fewFit(r.recommendations.length)));
      body.append(this.cards(r.recommendations, 'recommendation_clicked'));
    }

    // pairs to wear together: the base (an oil on the skin, bakhoor's smoke on clothes), then the spray over it
    if (r.layering?.length)
      body.append(
        h(
          'section',
          { class: 'layering' },
          h('h3', {}, t.layeringTitle),
          h(
            'ul',
            { role: 'list' },
            ...r.layering.map((pair, i) =>
              h(
                'li',
                {},
                h(
                  'ol',
                  {},
                  ...[pair.base, pair.top].map((p) =>
                    h(
                      'li',
                      {},
                      `${t.how[pair.steps.find((x) => x.merchant_product_id === p.merchant_product_id)?.how ?? ''] ?? ''} `,
                      this.productLink(p, 'also_explore_clicked', i + 1, p.name) ?? p.name,
                    ),
                  ),
                ),
              ),
            ),
          ),
        ),
      );

    const s = r.taste_summary;
    const dl = h('dl', {});
    const row = (label: string, kind: 'accord' | 'family', slugs: string[]) => {
      if (slugs.length > 0)
        dl.append(h('dt', {}, label), h('dd', {}, slugs.map((x) => termLabel(kind, x, this.locale)).join(t.comma)));
    };
    const loved = s.loved_perfumes ?? [];
    if (loved.length > 0)
      dl.append(h('dt', {}, t.lovedPerfumes), h('dd', {}, loved.map((p) => this.lovedName(p)).join(t.comma)));
    row(t.families, 'family', s.dominant_families);
    row(t.loves, 'accord', s.top_accords);
    row(t.avoids, 'accord', s.avoid_accords);
    // what the answers only imply, marked as such
    row(t.suggested, 'accord', s.inferred?.accords ?? []);
    if (dl.childElementCount > 0)
      body.append(h('section', { 'aria-label': t.tasteTitle }, h('h3', {}, t.tasteTitle), dl));

    // close alternatives priced under a loved perfume: a group for each loved perfume they are like
    // (a product the alternatives already show is shown there only)
    const cheaper = new Map<string, { name: string; items: Recommendation[] }>();
    const asAlternative = new Set((r.alternatives ?? []).flatMap((a) => a.products.map((p) => p.merchant_product_id)));
    for (const p of explore('for_less')) {
      const like = p.similar_to;
      if (!like || asAlternative.has(p.merchant_product_id)) continue;
      const group = cheaper.get(like.sillage_perfume_id) ?? { name: this.lovedName(like), items: [] };
      group.items.push(p);
      cheaper.set(like.sillage_perfume_id, group);
    }
    // the shop's bottles instead of a loved perfume: those sold as inspired by it first, with the price difference
    for (const alt of r.alternatives ?? [])
      if (alt.products.length)
        body.append(
          h(
            'section',
            {},
            h('h3', {}, t.alternativesTitle(this.lovedName(alt.to))),
            this.cards(alt.products, 'also_explore_clicked', alt.to),
          ),
        );
    for (const { name, items } of cheaper.values())
      body.append(h('section', {}, h('h3', {}, t.forLess(name)), this.cards(items, 'also_explore_clicked')));
    for (const [reason, title] of [
      ['closest', t.closestTitle],
      ['weaker_fit', t.weakerTitle],
      ['other_family', t.exploreTitle],
    ] as const) {
      const items = explore(reason);
      if (items.length > 0)
        body.append(h('section', {}, h('h3', {}, title), this.cards(items, 'also_explore_clicked')));
    }
    if (!nothing) body.append(this.leadForm());

    const retake = h('button', { class: 'secondary', type: 'button' }, t.retake);
    retake.addEventListener('click', () => {
      const key = this.attr('key');
      if (key) clearQuiz(key);
      this.answers = noAnswers();
      this.track({ type: 'quiz_started' });
      this.go(QUIZ_STEPS[0] as Step);
    });
    body.append(h('section', {}, retake));

    const pb = r.powered_by;
    const href = safeUrl(pb.url);
    const link = h('a', { class: 'powered', href, target: '_blank', rel: 'noopener' });
    const logo = parseLogo(pb.logo_svg);
    if (logo) link.append(logo);
    link.append(pb.label);
    link.addEventListener('click', () => {
      this.track({ type: 'powered_by_clicked' });
      void this.client?.flush({ beacon: true });
    });
    this.panel?.insertBefore(h('footer', { role: 'none' }, link), this.live);
  }

  /**
   * A score that did not answer. A refused key hides the widget (the answers
   * stay kept); anything else keeps the shopper here with the answers: a
   * Retry-After is waited out (by itself AUTO_RETRIES times when short), a
   * timeout or failure offers a retry at once.
   */
  private scoreFailed(res: Failure) {
    if (res.status === 401 || res.status === 403) {
      this.diagnose(res.code, 'score');
      this.fail(res.code, true);
      return;
    }
    if (res.status === 429 || res.code === 'network' || res.code === 'timeout' || res.status >= 500)
      this.diagnose(res.status === 429 ? 'rate_limited' : res.code, 'score', { retryAfter: res.retryAfter });
    const wait = res.retryAfter;
    if (wait !== undefined) {
      const auto = wait <= AUTO_RETRY_MAX_WAIT_S && this.autoRetries < AUTO_RETRIES;
      if (auto) this.autoRetries++;
      this.failure = { kind: 'busy', until: Date.now() + wait * 1000, auto };
    } else {
      this.failure = { kind: res.code === 'timeout' ? 'slow' : 'failed', until: 0, auto: false };
    }
    this.client?.track({ type: 'widget_error', code: res.code, message: `score failed: ${res.code}; answers kept` });
    this.go('failed');
  }

  private fillFailed(body: HTMLElement, panel: HTMLElement) {
    const t = this.t;
    const f = this.failure ?? { kind: 'failed', until: 0, auto: false };
    const retry = h('button', { class: 'primary', type: 'button' }, t.retry) as HTMLButtonElement;
    retry.addEventListener('click', () => void this.submit(true));
    const edit = h('button', { class: 'secondary', type: 'button' }, t.edit);
    edit.addEventListener('click', () => this.go(QUIZ_STEPS.at(-1) as Step));
    const wait = h('p', { class: 'status' });
    body.append(
      h('h3', { tabindex: '-1' }, f.kind === 'slow' ? t.slow : t.failed),
      wait,
      h('p', { class: 'hint' }, t.kept),
    );
    const tick = () => {
      const left = Math.ceil((f.until - Date.now()) / 1000);
      if (left <= 0) {
        wait.textContent = '';
        retry.disabled = false;
        if (f.auto) void this.submit(true);
        return;
      }
      retry.disabled = true;
      wait.textContent = (f.auto ? t.busy : t.busyManual)(formatSeconds(left, this.locale));
      // at the next whole second, so the count and the retry keep to the Retry-After
      this.later(tick, (f.until - Date.now()) % 1000 || 1000);
    };
    if (f.kind === 'busy') tick();
    if (this.live) this.live.textContent = `${f.kind === 'slow' ? t.slow : t.failed} ${t.kept}`;
    panel.insertBefore(h('div', { class: 'actions' }, edit, retry), this.live);
  }

  private later(fn: () => void, ms: number) {
    this.timers.push(setTimeout(fn, ms));
  }
  private clearTimers() {
    for (const id of this.timers) clearTimeout(id);
    this.timers = [];
  }

  /**
   * The install panel, shown only with the `debug` attribute: the key's mode,
   * this page's origin, the catalog's readiness and counts from verify, and
   * the last problem with its fix. For the merchant's developer, in English.
   */
  private debugPanel(): HTMLElement {
    const v = this.verified;
    const key = this.attr('key') ?? '';
    const dl = h('dl', {});
    const row = (k: string, value: string) => dl.append(h('dt', {}, k), h('dd', {}, value));
    row('Key', key ? `${maskKey(key)}${v ? ` (${v.mode})` : ''}` : '(none)');
    row('Origin', location.origin);
    if (v) {
      row('Merchant', v.merchant);
      row('Allowed origins', v.origins.join(', ') || '(any)');
      const c = v.counts;
      row(
        'Catalog',
        `${v.ready ? 'ready' : 'not ready'}: ${c.total} products, ${c.matched} matched, ${c.partial} partial, ${c.unmatched} unmatched`,
      );
    }
    const p = lastProblem();
    row('Last error', p ? p.cause : 'none');
    if (p) row('Fix', p.fix);
    const box = h(
      'section',
      { class: 'debug', dir: 'ltr', lang: 'en', 'aria-label': 'Sillage install check' },
      h('p', {}, h('strong', {}, 'Sillage install check')),
      dl,
    );
    if (!this.debugBox) onProblem(() => this.debugBox?.replaceWith(this.debugPanel()));
    this.debugBox = box;
    return box;
  }

  /** A link to the product page that reports its click (by beacon: the page is about to change); null without a safe URL. */
  private productLink(p: Recommendation, click: Click, position: number, ...content: Child[]): HTMLElement | null {
    const href = safeUrl(p.product_url);
    if (!href) return null;
    const a = h('a', { class: 'link', href }, ...content);
    a.addEventListener('click', () => {
      this.track({ type: click, merchant_product_id: p.merchant_product_id, position });
      void this.client?.flush({ beacon: true });
    });
    return a;
  }

  /** The cards of products; `to`: they are the shop's alternatives to this loved perfume. */
  private cards(items: Recommendation[], click: Click, to?: Alternatives[number]['to']): HTMLElement {
    const t = this.t;
    const list = h('ul', { class: 'cards', role: 'list' });
    items.forEach((p, i) => {
      const position = i + 1;
      const src = safeUrl(p.image_url);
      let thumb: HTMLElement;
      const tile = () =>
        // the house's first word, whole: a single letter of Arabic would show isolated (the service's picture comes first)
        h('div', { class: 'thumb tile', 'aria-hidden': 'true' }, (p.house || p.name).trim().split(/\s+/)[0] ?? '');
      if (src) {
        thumb = h('img', { class: 'thumb', src, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' });
        thumb.addEventListener('error', () => thumb.replaceWith(tile()), { once: true });
      } else {
        thumb = tile();
      }
      const alt = p as Partial<Alternatives[number]['products'][number]>;
      const diff = alt.price_difference;
      const price = [
        formatPrice(p.price, p.currency, this.locale),
        diff && (diff < 0 ? t.cheaper : t.dearer)(formatPrice(Math.abs(diff), p.currency, this.locale)),
      ]
        .filter(Boolean)
        .join(' · ');
      const like = p.similar_to;
      // like a loved perfume: the accords they share say why, in place of those matched to the answers
      const [label, accords] =
        like?.relation === 'similar' && like.shared_accords.length > 0
          ? [t.inCommon, like.shared_accords]
          : [t.matched, p.match_accords];
      // a profile taken from the perfume it is inspired by: its notes are the original's, never said to be its own
      const inspired = p.quality === 'inspired';
      const accordsLabel = inspired ? t.inOriginal : label;
      // what the profile rests on, unless it is the perfume's own reviewed one
      const basis =
        inspired && p.inspired_by ? t.inspiredBy(p.inspired_by.name) : p.quality === 'full' ? null : t.basis[p.quality];
      // the card's parts are the rows of a grid the cards of one row share (CSS subgrid): a part one
      // card lacks leaves its row empty, so names, badges and prices line up across the row
      const parts: Child[] = [
        h('h4', {}, p.name),
        h('p', { class: 'house' }, p.house),
        to && alt.declared_inspired_by && !p.inspired_by
          ? h('p', { class: 'like' }, t.inspiredBy(this.lovedName(to)))
          : like &&
            h(
              'p',
              { class: 'like' },
              like.relation === 'same'
                ? t.lovedSame
                : (like.relation === 'version' ? t.lovedVersion : t.because)(this.lovedName(like)),
            ),
        basis && h('p', { class: 'basis', 'data-quality': p.quality }, basis),
        // badges of one kind: the one a product may lack (for whom) comes last, so it moves no other
        h(
          'p',
          { class: 'tags' },
          h('span', { class: `tag fit ${p.fit}` }, t.fit[p.fit]),
          h('span', { class: 'tag score' }, `${formatPercent(p.match_score, this.locale)} ${t.match}`),
          p.gender && h('span', { class: 'tag wearer' }, t.wearer[p.gender]),
          // what it is, when not a spray (an oil, bakhoor…), and alcohol-free when it is
          t.kind[p.product_kind] && h('span', { class: 'tag kind' }, t.kind[p.product_kind]),
          p.alcohol_free && h('span', { class: 'tag kind' }, t.alcoholFree),
        ),
        price && h('p', { class: 'price' }, price),
        accords.length > 0 &&
          h(
            'p',
            { class: 'accords' },
            `${accordsLabel} ${accords.map((x) => termLabel('accord', x, this.locale)).join(t.comma)}`,
          ),
        // an estimate, said as one
        p.heat &&
          h(
            'p',
            { class: 'heat' },
            `${t.heat[p.heat.lasting]}: ${p.heat.reasons.map((r) => t.heatWhy[r] ?? r).join(t.comma)}`,
          ),
        this.productLink(p, click, position, t.view, h('span', { class: 'sr' }, `: ${p.name}`)),
      ];
      list.append(h('li', { class: 'card' }, thumb, ...parts));
    });
    return list;
  }

  private leadForm(): HTMLElement {
    const t = this.t;
    const section = h('section', {}, h('h3', {}, this.emailPicks ? t.leadTitle : t.leadTitleContact));
    if (this.leadState === 'sent') {
      const thanks = this.emailPicks && this.leadByEmail ? t.leadThanksEmail : t.leadThanksContact;
      section.append(h('p', { class: 'note', role: 'status' }, thanks));
      return section;
    }
    section.append(h('p', { class: 'note' }, this.emailPicks ? t.leadNoteEmail : t.leadNoteContact));
    const email = h('input', {
      type: 'email',
      autocomplete: 'email',
      inputmode: 'email',
      name: 'email',
    }) as HTMLInputElement;
    const phone = h('input', { type: 'tel', autocomplete: 'tel', inputmode: 'tel', name: 'phone' }) as HTMLInputElement;
    const consent = h('input', { type: 'checkbox', name: 'consent' }) as HTMLInputElement;
    const send = h('button', { class: 'primary', type: 'submit' }, t.leadSend) as HTMLButtonElement;
    const note = h('p', { class: 'note', role: 'status' }, this.leadState === 'failed' ? t.leadFailed : '');
    const form = h(
      'form',
      { novalidate: '' },
      h('label', { class: 'field' }, t.leadEmail, email),
      h('label', { class: 'field' }, t.leadPhone, phone),
      h('label', { class: 'consent' }, consent, h('span', {}, t.leadConsent)),
      send,
      note,
    );
    const sync = () => {
      send.disabled = !consent.checked || this.leadState === 'sending';
    };
    sync();
    form.addEventListener('change', sync);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const mail = email.value.trim();
      const tel = foldPhone(phone.value);
      if (!consent.checked || !this.client) return;
      if (!mail && !tel) {
        note.textContent = t.leadNeedContact;
        return;
      }
      if (mail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(mail)) {
        note.textContent = t.leadBadEmail;
        return;
      }
      if (tel && !phoneShapeOk(tel)) {
        note.textContent = t.leadBadPhone;
        return;
      }
      this.leadByEmail = !!mail;
      this.leadState = 'sending';
      sync();
      void this.client
        .event({
          type: 'lead_submitted',
          ...(mail ? { email: mail } : {}),
          ...(tel ? { phone: tel } : {}),
          consent: true,
          consent_version: CONSENT_VERSION,
        })
        .then((res) => {
          this.leadState = res.ok ? 'sent' : 'failed';
          if (res.ok) section.replaceWith(this.leadForm());
          else {
            // the form's own words, never the server's sentence: its code says which
            note.textContent =
              res.code === 'invalid_phone' ? t.leadBadPhone : res.status === 400 ? t.leadCheck : t.leadFailed;
            this.leadState = 'idle';
            sync();
          }
        });
    });
    section.append(form);
    return section;
  }
}
