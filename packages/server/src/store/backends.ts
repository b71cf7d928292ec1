import type { StoreBackend, StoreLocation } from './backend.js';
import { postgresBackend } from './postgres/postgres-backend.js';
import { sqliteBackend } from './sqlite/sqlite-backend.js';

/**
 * The backends the store can open, in the order they are asked whether they
 * serve a location. A new backend is a folder beside `sqlite/` and
 * `postgres/` with a {@link StoreBackend}, named here and given its traits
 * in `dialect.ts`.
 */
export const STORE_BACKENDS: readonly StoreBackend[] = [postgresBackend, sqliteBackend];

/**
 * The backend that serves a location.
 * @throws Error when none does.
 */
export function backendFor(location: StoreLocation): StoreBackend {
  const backend = STORE_BACKENDS.find((candidate) => candidate.serves(location));
  if (!backend) throw new Error('no store backend serves this location');
  return backend;
}
