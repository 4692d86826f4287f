import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseKey } from '../auth/keys.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { createKey, findKeyByHash } from './keys.ts';
import { createMerchant, findMerchant } from './merchants.ts';

export const DEMO_SLUG = 'demo';
export const DEMO_NAME = 'Sillage Demo Store';

export interface DemoInfo {
  merchant: { id: string; slug: string; name: string };
  key: string;
  /** true when the key was created by this start */
  created: boolean;
}

/** Origins the demo key accepts: the service's own pages (the demo storefront). */
export function demoOrigins(config: Pick<Config, 'publicBaseUrl' | 'port'>): string[] {
  return [...new Set([config.publicBaseUrl, `http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`])];
}

/**
 * Makes sure the demo merchant and a working test key exist. The key's
 * plaintext is kept in a local file (mode 600) beside the embedded database so
 * the next start can print it again; a missing or revoked key is replaced.
 */
export async function ensureDemo(db: Db, config: Config, keyFile: string | null): Promise<DemoInfo> {
  const merchant =
    (await findMerchant(db, DEMO_SLUG)) ?? (await createMerchant(db, { name: DEMO_NAME, slug: DEMO_SLUG }));

  if (keyFile) {
    try {
      const saved = readFileSync(keyFile, 'utf8').trim();
      const parsed = parseKey(saved);
      const existing = parsed.ok ? await findKeyByHash(db, parsed.hash) : null;
      if (existing && !existing.revoked && existing.merchant.id === merchant.id) {
        return { merchant: pick(merchant), key: saved, created: false };
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  const created = await createKey(db, merchant.id, { mode: 'test', allowedOrigins: demoOrigins(config) });
  if (keyFile) {
    mkdirSync(dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, `${created.key}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
  }
  return { merchant: pick(merchant), key: created.key, created: true };
}

const pick = (m: { id: string; slug: string; name: string }) => ({ id: m.id, slug: m.slug, name: m.name });
