import type { Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/**
 * The key under which the store and each unit of work (`Tx`) carry their
 * query layer. Only files of `store/` import it (a guard test in
 * `scripts/house/` fails otherwise), so SQL is written in the store's
 * repositories and nowhere else.
 */
export const SQL: unique symbol = Symbol('airlock.sql');

/** A query layer and the backend it speaks. */
export interface SqlHandle<Q extends Kysely<Database> = Kysely<Database>> {
  readonly db: Q;
  readonly dialect: Dialect;
}
