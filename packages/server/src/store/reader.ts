import { SQL, type SqlHandle } from './sql-handle.js';

/**
 * What a repository's read runs on: a unit of work (`Tx`), or the store
 * itself for a read outside one. Both carry the query layer under a key only
 * store/ code imports, so a caller can hand either to a repository but never
 * write SQL itself.
 */
export interface Reader {
  readonly [SQL]: SqlHandle;
}
