import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (s: string): boolean => UUID_RE.test(s);

/** random bytes for 256 ids, drawn at once: each draw from the system's generator is a system call */
const pool = Buffer.alloc(16 * 256);
let next = pool.length;
function pooledRandom(): Uint8Array {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  next += 16;
  return pool.subarray(next - 16, next);
}

/**
 * A new UUID version 7 (RFC 9562): its first 48 bits are the time in
 * milliseconds, the rest random. Ids that grow with time are appended at the
 * end of an index instead of landing anywhere in it (docs/decisions.md).
 * Random bits come from a pool refilled 256 ids at a time, as Node's own
 * randomUUID does (the uuid package draws from the generator for every id).
 */
export function timeOrderedId(): string {
  return v7({ random: pooledRandom() });
}
