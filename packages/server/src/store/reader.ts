import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * What a repository's read runs on: a unit of work (`Tx`), or the store
 * itself for a read outside one. Both carry the query layer; only store/
 * reaches into it.
 */
export interface Reader {
  readonly db: Kysely<Database>;
}
