import { hash, randomBytes, randomFillSync } from 'node:crypto';

/** A fresh random public id such as `run_3kTq9...` (96 bits, URL-safe). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

/**
 * A fresh public id that sorts by creation time, such as `run_mk3x9q0b2<16 random>`:
 * the creation millisecond in base 36 (9 characters), then 96 random bits.
 * Rows keyed by it are appended at the end of their indexes, so rows created
 * together share index pages instead of touching one random page each.
 */
export function newSortableId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, '0')}${pooledRandom(12).toString('base64url')}`;
}

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** Random bytes from a pool refilled by the CSPRNG 4 KiB at a time (one call per ~340 ids). */
function pooledRandom(size: number): Buffer {
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return bytes;
}

/** A fresh bearer token for a credential kind: `alk_<kind>_` and 256 random bits. */
export function newToken(kind: string): string {
  return `alk_${kind}_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a bearer token: its SHA-256, hex. */
export function hashToken(token: string): string {
  // The one-shot hash: a third of the time of a Hash object for a short text.
  return hash('sha256', token, 'hex');
}
