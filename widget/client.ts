/**
 * The headless Sillage client: the four widget operations for browsers and
 * for Node 20 server code, and a type-ahead over lookup for the perfumes a
 * shopper loves (the widget's own). No runtime dependencies; types come from the
 * server's own TypeBox contracts (type-only imports, erased at build).
 *
 * It never throws into the host page: every call resolves to a result that is
 * either `{ ok: true, data }` or `{ ok: false, error, … }`. It never retries in
 * a loop: after a 429 the operation stays closed for Retry-After seconds (60
 * when absent), and queued events wait for the next flush.
 */

import type {
  EventAck,
  LookupRequest,
  LookupResponse,
  PerfumeResult,
  PurchaseInput,
  ScoreRequest,
  ScoreResponse,
  ServerErrorCode,
  VerifyResponse,
  WidgetEvent,
} from './client-contracts.ts';

export type {
  AlsoExplore,
  CatalogReadiness,
  EventAck,
  EventOf,
  EventType,
  LookupRequest,
  LookupResponse,
  MerchantProductInput,
  PerfumeResult,
  PurchaseInput,
  Quality,
  Quiz,
  Recommendation,
  ScoreRequest,
  ScoreResponse,
  ServerErrorCode,
  VerifyResponse,
  WidgetEvent,
  WidgetKey,
} from './client-contracts.ts';

export const WIDGET_VERSION = 'v1';
export const DEFAULT_TIMEOUT_MS = 4000;
export const DEFAULT_RETRY_AFTER_S = 60;
/** The server takes up to 50 events a request; smaller batches stay far below its 64 KB body limit. */
export const MAX_BATCH = 20;
/** Events kept while the service is unreachable; the oldest are dropped beyond this. */
export const MAX_QUEUE = 100;
export const UNAVAILABLE = 'The recommendation service is unavailable right now.';

export type Operation = 'score' | 'event' | 'verify' | 'lookup';
/** Codes the client itself answers with when no usable answer came (`aborted`: the caller's signal). */
export type ClientErrorCode = 'timeout' | 'network' | 'rate_limited' | 'unavailable' | 'aborted';

export interface Failure {
  ok: false;
  /** HTTP status; 0 when no answer came (network error, timeout, blocked by a 429 earlier) */
  status: number;
  /** the server's `error` sentence, or a generic unavailability message */
  error: string;
  /** the server's `code`, or `timeout` / `network` / `rate_limited` / `unavailable` / `aborted` (a newer server may add codes) */
  code: ServerErrorCode | ClientErrorCode | (string & {});
  /** seconds until the operation may be called again: after a 429, and after a 503 that says */
  retryAfter?: number;
}
export interface Success<T> {
  ok: true;
  status: number;
  data: T;
}
export type Result<T> = Success<T> | Failure;

export interface ClientOptions {
  /** the service's base URL, e.g. https://reco.example.com */
  baseUrl: string;
  apiKey: string;
  /** per request; default 4 s */
  timeoutMs?: number;
  /** the session the events and scores belong to; one is made when omitted */
  sessionId?: string;
  fetch?: typeof fetch;
  /** navigator.sendBeacon where there is one; used to flush on page hide */
  sendBeacon?: ((url: string, body: Blob | string) => boolean) | null;
  /** how long queued events wait before they are sent; default 2 s */
  flushDelayMs?: number;
  now?: () => number;
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix time in milliseconds, then
 * random bits. Session and event ids are keys of the service's logs; ids that
 * grow with time are appended at the end of their indexes instead of landing
 * anywhere in them.
 */
export function randomId(now: number = Date.now()): string {
  const c = (globalThis as { crypto?: { getRandomValues?: (b: Uint8Array) => unknown } }).crypto;
  const b = new Uint8Array(16);
  if (c?.getRandomValues) c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  for (let i = 5, t = now; i >= 0; i--, t = Math.floor(t / 256)) b[i] = t % 256;
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Retry-After in whole seconds (delta form or an HTTP date); 60 when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number {
  if (value) {
    const s = value.trim();
    if (/^\d+$/.test(s)) return Math.max(1, Number(s));
    const at = Date.parse(s);
    if (!Number.isNaN(at)) return Math.max(1, Math.ceil((at - now) / 1000));
  }
  return DEFAULT_RETRY_AFTER_S;
}

/** What `createSillageClient` returns. No method throws or rejects: each resolves to a `Result`. */
export interface SillageClient {
  /** the session the calls and events belong to */
  sessionId: string;
  /** Checks the key and the merchant's catalog readiness. */
  verify(): Promise<Result<VerifyResponse>>;
  /** Searches the service's perfume catalog; a `signal` abandons the call (it resolves `aborted`). */
  lookup(req: Omit<LookupRequest, 'api_key'>, opts?: { signal?: AbortSignal }): Promise<Result<LookupResponse>>;
  /** Scores quiz answers; `session_id` defaults to the client's; `timeoutMs` overrides the client's for this call. */
  score(req: Omit<ScoreRequest, 'api_key'>, opts?: { timeoutMs?: number }): Promise<Result<ScoreResponse>>;
  /** Sends events now and resolves with the service's acknowledgement. */
  event(events: WidgetEvent | WidgetEvent[]): Promise<Result<EventAck>>;
  /** Queues an event; queued events are sent together shortly after, or on flush. */
  track(event: WidgetEvent): void;
  /** Sends the queued events; with `beacon`, by `sendBeacon` (the page is going away). */
  flush(opts?: { beacon?: boolean }): Promise<void>;
  /** events waiting to be sent */
  readonly pending: number;
  /** Reports an order (on the merchant's thank-you page) for the client's session. */
  trackPurchase(order: PurchaseInput): Promise<Result<EventAck>>;
}

const aborted = (): Failure => ({ ok: false, status: 0, code: 'aborted', error: UNAVAILABLE });

export function createSillageClient(options: ClientOptions): SillageClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const flushDelayMs = options.flushDelayMs ?? 2000;
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? (globalThis.fetch ? globalThis.fetch.bind(globalThis) : undefined);
  const beacon = options.sendBeacon ?? null;
  let sessionId = options.sessionId ?? randomId();

  /** operation → time (ms) before which it is not called again, after a 429 */
  const closedUntil: Partial<Record<Operation, number>> = {};
  const queue: WidgetEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;
  let flushing: Promise<unknown> | null = null;

  function blocked(op: Operation): Failure | null {
    const until = closedUntil[op];
    if (until === undefined) return null;
    const left = until - now();
    if (left <= 0) {
      delete closedUntil[op];
      return null;
    }
    return {
      ok: false,
      status: 429,
      code: 'rate_limited',
      error: 'Too many requests; try again later.',
      retryAfter: Math.ceil(left / 1000),
    };
  }

  async function call<T>(
    op: Operation,
    body: Record<string, unknown>,
    keepalive = false,
    waitMs = timeoutMs,
    signal?: AbortSignal,
  ): Promise<Result<T>> {
    if (signal?.aborted) return aborted();
    const closed = blocked(op);
    if (closed) return closed;
    if (!doFetch) return { ok: false, status: 0, code: 'unavailable', error: UNAVAILABLE };
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    let timedOut = false;
    const timeout = setTimeout(() => {
      timedOut = true;
      controller?.abort();
    }, waitMs);
    const abort = () => controller?.abort();
    signal?.addEventListener('abort', abort);
    try {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'x-widget-version': WIDGET_VERSION,
      };
      // an inline catalog is a large body: with the key in a header as well, the service knows the
      // key before reading it, and reads it on the budget of known keys rather than strangers'
      if (body.catalog_mode === 'inline') headers.authorization = `Bearer ${options.apiKey}`;
      const res = await doFetch(`${base}/api/widget/${op}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...body, api_key: options.apiKey }),
        signal: controller?.signal,
        keepalive,
        credentials: 'omit',
      } as RequestInit);
      let payload: unknown = null;
      try {
        payload = await res.json();
      } catch {
        payload = null; // not JSON: the generic message below
      }
      if (res.ok) return { ok: true, status: res.status, data: payload as T };
      const p = (payload && typeof payload === 'object' ? payload : {}) as { error?: unknown; code?: unknown };
      const failure: Failure = {
        ok: false,
        status: res.status,
        error: typeof p.error === 'string' && p.error ? p.error : UNAVAILABLE,
        code: typeof p.code === 'string' ? p.code : 'unavailable',
      };
      if (res.status === 429) {
        failure.retryAfter = parseRetryAfter(res.headers.get('retry-after'), now());
        failure.code = typeof p.code === 'string' ? p.code : 'rate_limited';
        closedUntil[op] = now() + failure.retryAfter * 1000;
      } else if (res.status === 503 && res.headers.get('retry-after')) {
        // unavailable for now: when to try again, without closing the operation
        failure.retryAfter = parseRetryAfter(res.headers.get('retry-after'), now());
      }
      return failure;
    } catch {
      if (signal?.aborted) return aborted();
      return timedOut
        ? { ok: false, status: 0, code: 'timeout', error: UNAVAILABLE }
        : { ok: false, status: 0, code: 'network', error: UNAVAILABLE };
    } finally {
      clearTimeout(timeout);
      signal?.removeEventListener('abort', abort);
    }
  }

  function stamp(e: WidgetEvent): WidgetEvent {
    return {
      ...e,
      event_id: e.event_id ?? randomId(),
      occurred_at: e.occurred_at ?? new Date(now()).toISOString(),
      session_id: e.session_id ?? sessionId,
    };
  }

  function schedule() {
    if (timer !== null || queue.length === 0) return;
    timer = setTimeout(() => {
      timer = null;
      void flush();
    }, flushDelayMs);
  }

  /**
   * Sends queued events. With `beacon` (page hide) they go by sendBeacon as
   * text/plain JSON — what a page being unloaded can still send, without a
   * preflight — and fall back to fetch keepalive. A batch the service could
   * not take for a passing reason (network, 5xx, 429) goes back to the queue;
   * event ids make a resend harmless.
   */
  async function flush(opts: { beacon?: boolean } = {}): Promise<void> {
    if (timer !== null) {
      clearTimeout(timer);
      timer = null;
    }
    if (flushing && !opts.beacon) await flushing;
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      if (opts.beacon && beacon && !blocked('event')) {
        const body = JSON.stringify({ api_key: options.apiKey, events: batch });
        let sent = false;
        try {
          sent = beacon(`${base}/api/widget/event`, body);
        } catch {
          sent = false;
        }
        if (sent) continue;
      }
      const run = call<EventAck>('event', { events: batch }, true);
      flushing = run;
      const result = await run;
      flushing = null;
      if (!result.ok && (result.status === 0 || result.status === 429 || result.status >= 500)) {
        queue.unshift(...batch);
        queue.splice(MAX_QUEUE);
        if (!opts.beacon) {
          // next try after Retry-After or the usual delay; never at once
          const wait = result.retryAfter ? result.retryAfter * 1000 : flushDelayMs * 5;
          timer = setTimeout(() => {
            timer = null;
            void flush();
          }, wait);
        }
        return;
      }
    }
  }

  return {
    get sessionId() {
      return sessionId;
    },
    set sessionId(id: string) {
      sessionId = id;
    },
    /** Checks the key and the merchant's catalog readiness. */
    verify: () => call<VerifyResponse>('verify', {}),
    /** Searches our perfume catalog; a `signal` abandons the call. */
    lookup: (req: Omit<LookupRequest, 'api_key'>, opts: { signal?: AbortSignal } = {}) =>
      call<LookupResponse>('lookup', req, false, timeoutMs, opts.signal),
    /** Scores quiz answers; the session defaults to the client's; `timeoutMs` overrides the client's for this call. */
    score: (req: Omit<ScoreRequest, 'api_key'>, opts: { timeoutMs?: number } = {}) =>
      call<ScoreResponse>('score', { session_id: sessionId, ...req }, false, opts.timeoutMs ?? timeoutMs),
    /** Sends events now and resolves with the service's acknowledgement. */
    event: (events: WidgetEvent | WidgetEvent[]) =>
      call<EventAck>('event', { events: (Array.isArray(events) ? events : [events]).map(stamp) }, true),
    /** Queues an event; queued events are sent together shortly after, or on flush. */
    track(event: WidgetEvent) {
      queue.push(stamp(event));
      if (queue.length > MAX_QUEUE) queue.splice(0, queue.length - MAX_QUEUE);
      if (queue.length >= MAX_BATCH) void flush();
      else schedule();
    },
    flush,
    /** events waiting to be sent */
    get pending() {
      return queue.length;
    },
    /** Reports an order (on the merchant's thank-you page) for the client's session. */
    trackPurchase: (order: PurchaseInput) =>
      call<EventAck>(
        'event',
        { events: [stamp({ type: 'purchase_completed', ...order, event_id: `purchase:${order.order_id}` })] },
        true,
      ),
  };
}

/** The type-ahead's defaults: what the widget uses, and what a storefront gets unless it says otherwise. */
export const SUGGEST_MIN_CHARS = 2;
export const SUGGEST_DEBOUNCE_MS = 250;
export const SUGGEST_LIMIT = 8;
export const SUGGEST_CACHE_SIZE = 50;

/** One answer of a suggester: always for the latest text it was given. */
export interface Suggestions {
  /** the text as it was given to `input` */
  query: string;
  /** the perfumes found, best first; null when the text is shorter than `minChars` (nothing was asked); empty when none was found or the search failed */
  results: PerfumeResult[] | null;
  /** why nothing was found, when the search could not be made (e.g. `rate_limited`, `network`) */
  failure?: Failure;
}

export interface SuggesterOptions {
  /** receives the answer to the latest text only: an answer to text typed before it is never given */
  onResults: (answer: Suggestions) => void;
  /** characters (leading and trailing spaces aside) before a search is made; default 2 */
  minChars?: number;
  /** how long typing must pause before a search is made; default 250 ms */
  debounceMs?: number;
  /** perfumes asked for per search; default 8 */
  limit?: number;
  /** answers kept in memory, by text; the least recently used go first; default 50 */
  cacheSize?: number;
}

/** A type-ahead over lookup, for a "perfumes you love" field. */
export interface PerfumeSuggester {
  /** The field's text, on every keystroke: answered at once when short or known, else after the pause. */
  input(text: string): void;
  /** Drops the search waiting or under way (the field was cleared, or is going away). */
  cancel(): void;
}

/**
 * The suggestion highlighted after an arrow key, as the ARIA combobox pattern
 * moves it: down from the last comes back to the first, up from the first (or
 * from none) goes to the last. Null for any other key, or with no suggestions.
 */
export function moveHighlight(key: string, active: number, count: number): number | null {
  if (count === 0 || (key !== 'ArrowDown' && key !== 'ArrowUp')) return null;
  return key === 'ArrowDown' ? (active + 1) % count : active > 0 ? active - 1 : count - 1;
}

/**
 * Suggests perfumes of the catalog as the shopper types: nothing below
 * `minChars`, one search after typing pauses (`debounceMs`), answers kept by
 * text (`cacheSize`) so going back over the same letters asks nothing, and
 * only the latest text's answer delivered — the search it replaces is
 * aborted, and an answer that still arrives is dropped. With the lookup limit
 * at 300 a minute per key and shopper, a pause of 250 ms keeps even a fast
 * typist far below it; after a 429 the client answers `rate_limited` itself
 * until the Retry-After has passed.
 */
export function createPerfumeSuggester(
  client: Pick<SillageClient, 'lookup'>,
  options: SuggesterOptions,
): PerfumeSuggester {
  const minChars = options.minChars ?? SUGGEST_MIN_CHARS;
  const debounceMs = options.debounceMs ?? SUGGEST_DEBOUNCE_MS;
  const limit = options.limit ?? SUGGEST_LIMIT;
  const cacheSize = options.cacheSize ?? SUGGEST_CACHE_SIZE;
  const cache = new Map<string, PerfumeResult[]>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: AbortController | null = null;
  /** bumped by every text and cancel: an answer for an older one is not delivered */
  let latest = 0;

  function cancel() {
    latest++;
    if (timer !== null) clearTimeout(timer);
    timer = null;
    running?.abort();
    running = null;
  }

  async function search(query: string, key: string, mine: number) {
    timer = null;
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    running = controller;
    const res = await client.lookup({ query: key, limit }, { signal: controller?.signal });
    if (mine !== latest) return;
    running = null;
    if (!res.ok) {
      options.onResults({ query, results: [], failure: res });
      return;
    }
    cache.set(key, res.data.results);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    options.onResults({ query, results: res.data.results });
  }

  return {
    input(text: string) {
      cancel();
      // one entry for "Khamrah", " khamrah" and "KHAMRAH"
      const key = text.trim().replace(/\s+/g, ' ').toLowerCase();
      if (key.length < minChars) {
        options.onResults({ query: text, results: null });
        return;
      }
      const known = cache.get(key);
      if (known) {
        // used again: the last to go
        cache.delete(key);
        cache.set(key, known);
        options.onResults({ query: text, results: known });
        return;
      }
      const mine = latest;
      timer = setTimeout(() => void search(text, key, mine), debounceMs);
    },
    cancel,
  };
}
