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
const VERIFY_TTL_MS = 10 * 60 * 1000;

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
}

/** A successful verify is remembered for this tab for 10 minutes; failures are not. */
export async function verifyKey(client: SillageClient, apiKey: string): Promise<VerifiedKey | { error: string }> {
  const ss = storage('sessionStorage');
  const name = `sillage:verify:${apiKey.slice(0, 16)}`;
  const saved = read<VerifiedKey & { at: number }>(ss, name);
  if (saved && Date.now() - saved.at < VERIFY_TTL_MS) {
    return { ready: saved.ready, testMode: saved.testMode, emailPicks: saved.emailPicks === true };
  }
  const res = await client.verify();
  if (!res.ok) return { error: res.code };
  const out = {
    ready: res.data.catalog.ready,
    testMode: res.data.test_mode,
    emailPicks: res.data.leads?.email_picks === true,
  };
  write(ss, name, { ...out, at: Date.now() });
  return out;
}
