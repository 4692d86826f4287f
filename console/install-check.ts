import { type Lang, t } from './i18n.ts';

/** What the install check knows of a merchant. */
export interface InstallFacts {
  keys: { prefix: string; mode: 'test' | 'live'; revoked: boolean }[];
  sightings: { prefix: string; origin: string; outcome: string; lastSeenAt: Date }[];
  /** when the merchant's newest event arrived, or null */
  lastEventAt: Date | null;
  /** products, those not recognised, and those recognised without a scent profile (never recommended) */
  products: { total: number; unmatched: number; withoutProfile?: number };
  /** the platform store the merchant installed the app from, when it did */
  platform?: { name: string; status: string; setupError: string | null } | null;
  now: Date;
}

const DAY_MS = 86_400_000;

/**
 * What is wrong with a merchant's installation, most blocking first, in words a merchant acts on:
 * no live key, no products, no request seen, requests refused (origin, revoked key), no events
 * lately, much of the shelf unknown, or known without its notes. Empty when all is well.
 */
export function installProblems(lang: Lang, f: InstallFacts): string[] {
  const out: string[] = [];
  const p = f.platform;
  if (p?.status === 'installed' && p.setupError)
    out.push(t(lang, 'platformSetupFailed', { p: p.name, e: p.setupError }));
  if (!f.keys.some((k) => k.mode === 'live' && !k.revoked)) out.push(t(lang, 'noLiveKey'));
  if (f.products.total === 0) out.push(t(lang, 'noProducts'));
  const recent = f.sightings.filter((s) => f.now.getTime() - s.lastSeenAt.getTime() < 7 * DAY_MS);
  if (f.sightings.length === 0) {
    out.push(p?.status === 'installed' ? t(lang, 'notSeenPlatform', { p: p.name }) : t(lang, 'notSeen'));
  }
  const refused = new Set(recent.filter((s) => s.outcome === 'origin_not_allowed').map((s) => s.origin || '—'));
  for (const o of [...refused].slice(0, 5)) out.push(t(lang, 'refusedOrigin', { o }));
  const revoked = new Set(recent.filter((s) => s.outcome === 'revoked_api_key').map((s) => s.prefix));
  for (const k of [...revoked].slice(0, 5)) out.push(t(lang, 'revokedUsed', { k: `${k}…` }));
  if (f.sightings.length > 0 && (!f.lastEventAt || f.now.getTime() - f.lastEventAt.getTime() > DAY_MS)) {
    out.push(t(lang, 'noEvents'));
  }
  // a quarter or more of the shelf unknown (an empty shelf is said above)
  if (f.products.unmatched > 0 && f.products.unmatched * 4 >= f.products.total) {
    out.push(t(lang, 'unmatchedShare', { n: f.products.unmatched, m: f.products.total }));
  }
  // a quarter or more known to us without their notes: never recommended until a description gives them
  const withoutProfile = f.products.withoutProfile ?? 0;
  if (withoutProfile > 0 && withoutProfile * 4 >= f.products.total) {
    out.push(t(lang, 'noProfileShare', { n: withoutProfile, m: f.products.total }));
  }
  return out;
}

/** A widget version as the install page writes it: "v1" whether the request said "v1" or nothing (kept as "1"). */
export const widgetVersionLabel = (version: string) => `v${version.replace(/^v/i, '')}`;

interface Sighting {
  keyId: string;
  origin: string;
  widgetVersion: string;
  outcome: string;
  requests: number;
  lastSeenAt: Date;
}

/**
 * Where the keys were seen, one row per key, origin, widget version and outcome, the version written
 * one way: rows that differ only by how the version was named are one, their requests added and
 * the later time kept. In the order given (newest first).
 */
export function sightingsByVersion<S extends Sighting>(rows: readonly S[]): S[] {
  const out = new Map<string, S>();
  for (const r of rows) {
    const widgetVersion = widgetVersionLabel(r.widgetVersion);
    const id = `${r.keyId}\n${r.origin}\n${widgetVersion}\n${r.outcome}`;
    const seen = out.get(id);
    if (!seen) out.set(id, { ...r, widgetVersion });
    else {
      seen.requests += r.requests;
      if (r.lastSeenAt > seen.lastSeenAt) seen.lastSeenAt = r.lastSeenAt;
    }
  }
  return [...out.values()];
}
