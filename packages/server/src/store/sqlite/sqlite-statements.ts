import type SqliteDatabase from 'better-sqlite3';
import type { QueryResult } from 'kysely';
import { LARGE_VALUE_CHARACTERS, nextTurn } from '../../event-loop-turn.js';
import type { StatementChannel } from '../prepared.js';

/** A statement prepared on one connection; a reader returns arrays, made rows by `row`. */
interface OwnStatement {
  statement: SqliteDatabase.Statement;
  row: ((values: unknown[]) => unknown) | null;
}

/** Most statements one connection keeps prepared before it starts again. */
const STATEMENT_LIMIT = 500;

/**
 * Prepares a statement of its own. Readers run in raw mode (one array per
 * row) and a function made for their columns builds each row as an object
 * literal: for a row of 30 columns that is about a third of the time
 * better-sqlite3 takes to set each property by name. The connection's own
 * `prepare` is bypassed: the store caches statements there for Kysely, which
 * expects objects (see `cacheStatements` in sqlite-backend.ts).
 */
function prepareOwn(database: SqliteDatabase.Database, sql: string): OwnStatement {
  const prepare = (Object.getPrototypeOf(database) as SqliteDatabase.Database).prepare;
  const statement = prepare.call(database, sql);
  if (!statement.reader) return { statement, row: null };
  const names = statement.columns().map((column) => column.name);
  // An object literal would give `__proto__` another meaning: such a query keeps object rows.
  if (names.includes('__proto__')) return { statement, row: null };
  statement.raw(true);
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  // Built from the statement's column names only (never from values): a row is an object literal.
  const row = new Function('values', `return {${fields.join(', ')}};`) as OwnStatement['row'];
  return { statement, row };
}

function boundCharacters(parameters: readonly unknown[]): number {
  let total = 0;
  for (const value of parameters) if (typeof value === 'string') total += value.length;
  return total;
}

/**
 * The prepared statements of one better-sqlite3 connection, run directly
 * while a group-commit batch holds it: no Kysely connection plumbing, and a
 * result at once rather than a promise (the statement has run by then). The
 * SQL text keys the statements: a template keeps its one string, so a
 * lookup hashes it once.
 */
export class SqliteStatements implements StatementChannel {
  private readonly statements = new Map<string, OwnStatement>();
  private wroteLarge = false;

  constructor(private readonly database: SqliteDatabase.Database) {}

  run(sql: string, parameters: unknown[]): QueryResult<unknown> | Promise<QueryResult<unknown>> {
    let own = this.statements.get(sql);
    if (!own) {
      if (this.statements.size >= STATEMENT_LIMIT) this.statements.clear();
      own = prepareOwn(this.database, sql);
      this.statements.set(sql, own);
    }
    const { statement, row } = own;
    if (row) return { rows: (statement.all(parameters) as unknown[][]).map(row) };
    if (statement.reader) return { rows: statement.all(parameters) };
    statement.run(parameters);
    // A write of a large value (an 800 KB pasted script) is followed by a turn of the event loop,
    // so that one unit's big writes never hold it in one piece. The unit's transaction stays
    // open meanwhile: other work that needs the connection waits for its commit, as it would.
    if (boundCharacters(parameters) > LARGE_VALUE_CHARACTERS) {
      this.wroteLarge = true;
      return nextTurn({ rows: [] });
    }
    return { rows: [] };
  }

  /** Whether a value past {@link LARGE_VALUE_CHARACTERS} was written since the last call. */
  takeLargeWrite(): boolean {
    const wrote = this.wroteLarge;
    this.wroteLarge = false;
    return wrote;
  }
}
