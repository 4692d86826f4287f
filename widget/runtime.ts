/**
 * What the widget keeps per page: one client per key and service, and the
 * shopper's session id, kept in localStorage for the attribution window so a
 * purchase on the thank-you page days later joins the session that clicked.
 * Storage can be unavailable (private modes, sandboxed frames): then the
 * session lives as long as the page.
 */
import { createSillageClient, randomId, type SillageClient } from './client.ts';

/** The service attributes purchases to clicks within 30 days (ATTRIBUTION_WINDOW_DAYS). */
const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
/**
 * How long this tab trusts a verify answer: a ready catalog for 10 minutes (so
 * browsing a store does not spend its verify limit, 60 a minute), a catalog
 * not ready for 10 seconds only — a merchant who has just synced sees the
 * widget on the next reload. The verify answer itself is `no-store`.
 */
export const VERIFY_READY_TTL_MS = 10 * 60 * 1000;
export const VERIFY_NOT_READY_TTL_MS = 10 * 1000;

function storage(kind: 'localStorage' | 'sessionStorage'): Storage | null {
  try {
    const s = window[kind];
    const probe = '__sillage__';
    s.setItem(probe, '1');
    s.removeItem(probe);
    return s;
  } catch {
    return null;
  }
}

function read<T>(s: Storage | null, key: string): T | null {
  try {
    const raw = s?.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}
function write(s: Storage | null, key: string, value: unknown) {
  try {
    s?.setItem(key, JSON.stringify(value));
  } catch {
    // full or forbidden: the value lives only in memory
  }
}

const memorySessions = new Map<string, string>();

/** The shopper's session for this key: kept, and renewed on use, for 30 days. */
export function sessionFor(apiKey: string): string {
  const name = `sillage:session:${apiKey.slice(0, 16)}`;
  const ls = storage('localStorage');
  const saved = read<{ id: string; at: number }>(ls, name);
  const now = Date.now();
  const id =
    saved && typeof saved.id === 'string' && now - saved.at < SESSION_TTL_MS
      ? saved.id
      : (memorySessions.get(name) ?? randomId());
  memorySessions.set(name, id);
  write(ls, name, { id, at: now });
  return id;
}

const clients = new Map<string, SillageClient>();

export function clientFor(baseUrl: string, apiKey: string, timeoutMs?: number): SillageClient {
  const id = `${baseUrl}\u0000${apiKey}`;
  let client = clients.get(id);
  if (!client) {
    const nav = typeof navigator !== 'undefined' ? navigator : undefined;
    client = createSillageClient({
      baseUrl,
      apiKey,
      timeoutMs,
      sessionId: sessionFor(apiKey),
      sendBeacon: nav?.sendBeacon ? nav.sendBeacon.bind(nav) : null,
    });
    clients.set(id, client);
    const c = client;
    // a page being left still sends what is queued
    addEventListener('pagehide', () => void c.flush({ beacon: true }));
    addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') void c.flush({ beacon: true });
    });
  }
  return client;
}

export interface VerifiedKey {
  ready: boolean;
  testMode: boolean;
  /** the service emails a lead its picks (SMTP configured); else the shop contacts the shopper */
  emailPicks: boolean;
  /** what the debug panel shows */
  mode: string;
  merchant: string;
  origins: string[];
  counts: { total: number; matched: number; partial: number; unmatched: number };
}

export interface VerifyRefusal {
  error: string;
  status: number;
  retryAfter?: number;
}

/** A verify answer is remembered for this tab: a ready one for 10 minutes, one not ready for 10 s; failures are not. */
export async function verifyKey(client: SillageClient, apiKey: string): Promise<VerifiedKey | VerifyRefusal> {
  const ss = storage('sessionStorage');
  const name = `sillage:verify:${apiKey.slice(0, 16)}`;
  const saved = read<VerifiedKey & { at: number }>(ss, name);
  if (saved && typeof saved.at === 'number' && saved.counts) {
    const age = Date.now() - saved.at;
    if (age >= 0 && age < (saved.ready ? VERIFY_READY_TTL_MS : VERIFY_NOT_READY_TTL_MS)) {
      const { at: _, ...kept } = saved;
      return { ...kept, emailPicks: kept.emailPicks === true };
    }
  }
  const res = await client.verify();
  if (!res.ok) return { error: res.code, status: res.status, retryAfter: res.retryAfter };
  const c = res.data.catalog;
  const out: VerifiedKey = {
    ready: c.ready,
    testMode: res.data.test_mode,
    mode: res.data.key.mode,
    merchant: res.data.merchant.name,
    origins: res.data.key.allowed_origins,
    counts: { total: c.total, matched: c.matched, partial: c.partial, unmatched: c.unmatched },
    emailPicks: res.data.leads?.email_picks === true,
  };
  write(ss, name, { ...out, at: Date.now() });
  return out;
}

/**
 * The shopper's answers, kept in sessionStorage per key while the quiz is
 * under way — across a slow or failed score and a reload — and cleared when
 * results are shown or the shopper starts again.
 */
export interface SavedQuiz {
  answers: Record<string, unknown>;
  step: string;
  open: boolean;
}
const quizName = (apiKey: string) => `sillage:quiz:${apiKey.slice(0, 16)}`;
export function saveQuiz(apiKey: string, quiz: SavedQuiz): void {
  write(storage('sessionStorage'), quizName(apiKey), quiz);
}
export function loadQuiz(apiKey: string): SavedQuiz | null {
  const q = read<SavedQuiz>(storage('sessionStorage'), quizName(apiKey));
  return q && typeof q === 'object' && q.answers && typeof q.answers === 'object' && typeof q.step === 'string'
    ? q
    : null;
}
export function clearQuiz(apiKey: string): void {
  try {
    storage('sessionStorage')?.removeItem(quizName(apiKey));
  } catch {
    // forbidden: nothing was kept
  }
}
