import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../config.ts';
import { dataFile } from '../db/data-files.ts';

/**
 * The key for shoppers' contact details: LEAD_ENCRYPTION_KEY; on the embedded
 * database without it, a local key kept in the data folder (mode 600, db/data-files.ts) so a
 * restart can still read what was stored — created when `create` is set; in
 * memory, a key for this run. (PostgreSQL without LEAD_ENCRYPTION_KEY does
 * not start: config.ts.) Null when there is none and none may be created.
 */
export function resolveLeadKey(config: Pick<Config, 'leadEncryptionKey' | 'database'>, create: boolean): Buffer | null {
  if (config.leadEncryptionKey) return config.leadEncryptionKey;
  if (config.database.kind !== 'pglite') return null;
  if (!config.database.dataDir) return create ? randomBytes(32) : null;
  const file = dataFile(config.database.dataDir, 'lead-key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  if (!create) return null;
  const key = randomBytes(32);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return key;
}
