import { createHash, randomBytes } from 'node:crypto';

/** A fresh random public id such as `run_3kTq9...` (96 bits, URL-safe). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

/** A fresh bearer token for a credential kind: `alk_<kind>_` and 256 random bits. */
export function newToken(kind: string): string {
  return `alk_${kind}_${randomBytes(32).toString('base64url')}`;
}

/** The stored form of a bearer token: its SHA-256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
