import { createHash, randomBytes } from 'node:crypto';
import { Cache } from '../lib/cache.ts';

/**
 * Widget keys: `pk_<mode>_<22 random base62><6 checksum base62>`.
 * 22 base62 characters carry 130 random bits; the checksum lets a typo or a
 * made-up string be refused without a database lookup. Only the SHA-256 of
 * the whole key is stored.
 */
export type KeyMode = 'test' | 'live';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 22;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^pk_(test|live)_([0-9A-Za-z]{22})([0-9A-Za-z]{6})$/;
/** characters of the key kept for display: `pk_test_` plus 4 */
const DISPLAY_PREFIX_LENGTH = 12;

function toBase62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

function checksum(body: string): string {
  return toBase62(createHash('sha256').update(body).digest().subarray(0, 5), CHECKSUM_LENGTH);
}

export interface GeneratedKey {
  key: string;
  hash: string;
  prefix: string;
  mode: KeyMode;
}

export function generateKey(mode: KeyMode): GeneratedKey {
  // 17 bytes (136 bits) reduced to 22 base62 digits keeps ≥130 bits of entropy
  const random = toBase62(randomBytes(17), RANDOM_LENGTH);
  const body = `pk_${mode}_${random}`;
  const key = body + checksum(body);
  return { key, hash: hashKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), mode };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export type ParsedKey = { ok: true; mode: KeyMode; hash: string } | { ok: false };

/**
 * A busy storefront sends one key thousands of times a minute: its parse is
 * remembered, and a stream of made-up keys does not push it out.
 */
const parsed = new Cache<string, ParsedKey>({
  name: 'widget-key-parse',
  max: 10_000,
  invalidatedBy: 'never: a pure function of the key',
});

/** Checks the shape and checksum only; whether the key exists is the store's question. */
export function parseKey(key: string): ParsedKey {
  const hit = parsed.get(key);
  if (hit) return hit;
  const result = parseUncached(key);
  parsed.set(key, result);
  return result;
}

function parseUncached(key: string): ParsedKey {
  const m = KEY_PATTERN.exec(key);
  if (!m) return { ok: false };
  const [, mode, random, sum] = m;
  if (checksum(`pk_${mode}_${random}`) !== sum) return { ok: false };
  return { ok: true, mode: mode as KeyMode, hash: hashKey(key) };
}
