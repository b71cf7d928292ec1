import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** Stands for a named parameter while a prepared query is built; its value is given per call. */
// biome-ignore lint/suspicious/noExplicitAny: a placeholder is accepted wherever a value is.
export type Param = (name: string) => any;

const MARK = '\u0000airlock-param:';

/** Whether a compiled parameter is a prepared query's placeholder (its template), not a value. */
export function isParamMark(value: unknown): boolean {
  return typeof value === 'string' && value.startsWith(MARK);
}

interface Template {
  compiled: CompiledQuery;
  /** Per SQL parameter: the name of a named parameter, or a constant (`{ value }`). */
  slots: (string | { value: unknown })[];
  /** A list of names checked to be exactly the slots, in order (see {@link ValuesInOrder}). */
  order: readonly string[] | null;
}

/** One SQL statement with its parameters, as a PostgreSQL unit of work sends it. */
export interface Statement {
  sql: string;
  parameters: readonly unknown[];
}

/**
 * A backend's own way to run the prepared statements of one of its
 * transactions, faster than Kysely's per-query path. SQLite runs them on the
 * connection its batch holds (`run`); PostgreSQL puts several in one write on
 * the wire (`sendLater`, `readAhead`), and still runs them in order. A
 * backend gives the members it has.
 */
export interface StatementChannel {
  /**
   * Runs a statement at once on the transaction's connection: its rows, or
   * a promise of them when the backend lets a turn of the event loop pass.
   */
  run?(sql: string, parameters: unknown[]): QueryResult<unknown> | Promise<QueryResult<unknown>>;
  /**
   * Holds back a write whose answer nobody reads until the next statement,
   * and sends it first; its error, if any, is thrown by that next statement
   * (or the COMMIT), and fails the unit of work.
   */
  sendLater?(statement: Statement): void;
  /** Sends a read right after the next statement; resolves to its rows (see `readAhead`). */
  readAhead?(statement: Statement): Promise<unknown[]>;
}

/** Each transaction's statement channel, by its Kysely handle. */
const channels = new WeakMap<object, StatementChannel>();

/**
 * Runs a Kysely transaction's prepared statements through `channel` until
 * the returned function is called (same SQL, same connection, same transaction).
 */
export function useChannel(trx: object, channel: StatementChannel): () => void {
  channels.set(trx, channel);
  return () => channels.delete(trx);
}

/**
 * On a backend that pipelines (PostgreSQL), sends a read in the same write
 * as the unit's next statement, right after it, so it sees that statement's
 * effect without a network round trip of its own; resolves to its rows.
 * Elsewhere (SQLite, where a statement costs no round trip) returns
 * undefined and the caller reads when it needs to. The caller must know
 * which statement goes out next and that nothing it does before it uses the
 * rows writes what they read.
 */
export function readAhead<R>(
  db: object,
  dialect: Dialect,
  query: PreparedQuery,
): Promise<R[]> | undefined {
  const channel = channels.get(db);
  return channel?.readAhead
    ? (channel.readAhead(compilePrepared(dialect, query)) as Promise<R[]>)
    : undefined;
}

/** Templates per dialect, by query key (a key reused as the same string is hashed once). */
const templates = new Map<Dialect, Map<string, Template>>();
const TEMPLATE_LIMIT = 500;

function compileTemplate(compilable: Compilable): Template {
  const compiled = compilable.compile();
  const slots = compiled.parameters.map((value) =>
    isParamMark(value) ? (value as string).slice(MARK.length) : { value },
  );
  return { compiled, slots, order: null };
}

/**
 * The values of a query's parameters as one array, in the order its SQL
 * uses them (`order` names them, and is checked once per shape against the
 * compiled SQL, so every parameter must be a named one): for a query of many
 * parameters, such as a multi-row INSERT, this saves building and reading an
 * object keyed by name.
 */
export class ValuesInOrder {
  constructor(
    readonly order: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/** A prepared query to run later: its cache key, its builder and its values (see {@link runPrepared}). */
export interface PreparedQuery {
  key: string;
  build: (param: Param) => Compilable;
  values: Record<string, unknown> | ValuesInOrder;
}

/**
 * The parameters of a template given values in order.
 * @throws Error when `order` is not the template's parameters, in order.
 */
function inOrder(template: Template, key: string, given: ValuesInOrder): unknown[] {
  if (template.order !== given.order) {
    const { slots } = template;
    const same =
      slots.length === given.order.length && slots.every((slot, i) => slot === given.order[i]);
    if (!same) throw new Error(`prepared query ${key}: the values are not in the SQL's order`);
    template.order = given.order;
  }
  if (given.values.length !== template.slots.length) {
    throw new Error(
      `prepared query ${key}: ${given.values.length} values for ${template.slots.length}`,
    );
  }
  return given.values as unknown[];
}

/** The template of a prepared query's shape, built on first use, and its parameters bound. */
function bind(
  dialect: Dialect,
  query: PreparedQuery,
): { template: Template; parameters: unknown[] } {
  let byKey = templates.get(dialect);
  if (!byKey) {
    byKey = new Map();
    templates.set(dialect, byKey);
  }
  let template = byKey.get(query.key);
  if (!template) {
    template = compileTemplate(query.build((name) => `${MARK}${name}`));
    if (byKey.size >= TEMPLATE_LIMIT) byKey.clear();
    byKey.set(query.key, template);
  }
  const { values } = query;
  if (values instanceof ValuesInOrder)
    return { template, parameters: inOrder(template, query.key, values) };
  const parameters = template.slots.map((slot) => {
    if (typeof slot !== 'string') return slot.value;
    const value = values[slot];
    if (value === undefined) throw new Error(`prepared query ${query.key}: no value for ${slot}`);
    return value;
  });
  return { template, parameters };
}

/**
 * The SQL and parameters of a prepared query, for a caller that sends it
 * itself (PostgreSQL sends a transaction's last writes with its COMMIT).
 * @throws Error when a named parameter has no value.
 */
export function compilePrepared(
  dialect: Dialect,
  query: PreparedQuery,
): { sql: string; parameters: unknown[] } {
  const { template, parameters } = bind(dialect, query);
  return { sql: template.compiled.sql, parameters };
}

/**
 * Runs a query through Kysely's builder only the first time per dialect and
 * shape: the compiled SQL is kept under `key` with its parameters named, and
 * later calls only bind `values`. The same query layer and SQL on both stores;
 * what is saved is building and compiling the query tree on every call.
 * `key` must name everything the shape depends on (e.g. the set of columns).
 * On a held SQLite connection the result comes back at once, not as a
 * promise (callers `await` either): the statement has run by then, and a
 * promise per statement would only cost allocations and microtask turns.
 * @throws Error when a named parameter has no value, or the statement fails.
 */
export function runPrepared<R>(
  db: Kysely<Database>,
  dialect: Dialect,
  key: string,
  build: (param: Param) => Compilable<R>,
  values: Record<string, unknown> | ValuesInOrder,
): QueryResult<R> | Promise<QueryResult<R>> {
  const { template, parameters } = bind(dialect, { key, build, values });
  const channel = channels.get(db);
  if (channel?.run) {
    return channel.run(template.compiled.sql, parameters) as
      | QueryResult<R>
      | Promise<QueryResult<R>>;
  }
  return db.executeQuery<R>({ ...template.compiled, parameters });
}

/** Per table, the column list of the last insert and its cache key (most inserts repeat it). */
const lastInsert = new Map<string, { columns: string[]; key: string }>();

/** The cache key of an insert of these columns, without building it again for a repeat. */
function insertKey(table: string, columns: string[]): string {
  const last = lastInsert.get(table);
  if (
    last &&
    last.columns.length === columns.length &&
    last.columns.every((column, i) => column === columns[i])
  ) {
    return last.key;
  }
  const key = `${table}.insert:${columns.join(',')}`;
  lastInsert.set(table, { columns, key });
  return key;
}

/**
 * Inserts one whole row with a prepared INSERT (columns whose value is
 * undefined are left out, as Kysely's own `values` does). Nothing is read
 * back, so on PostgreSQL the INSERT goes out with the unit's next statement
 * instead of taking a network round trip of its own (see `Pipelining`).
 */
export async function insertRow(
  db: Kysely<Database>,
  dialect: Dialect,
  table: 'runs' | 'tasks',
  row: object,
): Promise<void> {
  const values = row as Record<string, unknown>;
  const columns = Object.keys(values).filter((column) => values[column] !== undefined);
  const query: PreparedQuery = {
    key: insertKey(table, columns),
    build: (param) =>
      db
        .insertInto(table)
        // biome-ignore lint/suspicious/noExplicitAny: every column is bound to a named parameter.
        .values(Object.fromEntries(columns.map((column) => [column, param(column)])) as any),
    values,
  };
  const channel = channels.get(db);
  if (channel?.sendLater) {
    channel.sendLater(compilePrepared(dialect, query));
    return;
  }
  await runPrepared(db, dialect, query.key, query.build, values);
}
