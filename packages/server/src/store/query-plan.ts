import { CompiledQuery, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import { DIALECT_TRAITS } from './dialect.js';
import { isParamMark } from './prepared.js';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';

/** Tells of each query a reader builds, as its tree. */
class BuiltQueries implements KyselyPlugin {
  onBuilt: (node: RootOperationNode) => void = () => {};
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    this.onBuilt(args.node);
    return args.node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}

/**
 * For tests of the store's repositories (it lives here, beside the query
 * layer's key it needs): a reader over a store that remembers the statements
 * a repository sends through it, and the engine's own query plan of each.
 * On SQLite a plan is the `detail` lines of `explain query plan`; on
 * PostgreSQL the lines of `explain`, planned with sequential scans priced
 * out (a test's few rows would otherwise make a scan the cheaper plan, and a
 * scan is still chosen where no index serves). Lines are joined by newlines.
 */
export function planningReader(store: Reader): { reader: Reader; plans(): Promise<string[]> } {
  const handle = store[SQL];
  const built = new BuiltQueries();
  const withPlugin = handle.db.withPlugin(built);
  // A prepared statement (`runPrepared`) is built once and then sent compiled through
  // `executeQuery`, which no plugin sees: those are kept here, in the same order.
  const sent: { node?: RootOperationNode; compiled?: CompiledQuery }[] = [];
  built.onBuilt = (node) => sent.push({ node });
  const db = new Proxy(withPlugin, {
    get(target, property, receiver) {
      if (property === 'executeQuery') {
        return (query: CompiledQuery) => {
          sent.push({ compiled: query });
          return target.executeQuery(query);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function'
        ? (value as (...args: unknown[]) => unknown).bind(target)
        : value;
    },
  });
  return {
    reader: { [SQL]: { ...handle, db } },
    /** The plans of the statements sent since the last call, in the order they were sent. */
    async plans() {
      const plans: string[] = [];
      for (const { node, compiled: given } of sent.splice(0)) {
        const compiled = given ?? handle.db.getExecutor().compileQuery(node!, { queryId: 'plan' });
        // A prepared statement's template is built once with placeholders, then sent as values.
        if (compiled.parameters.some(isParamMark)) continue;
        plans.push(await planOf(handle.db, handle.dialect, compiled));
      }
      return plans;
    },
  };
}

async function planOf(
  db: Reader[typeof SQL]['db'],
  dialect: Reader[typeof SQL]['dialect'],
  compiled: CompiledQuery,
): Promise<string> {
  const { explain, lineColumn, scanSetting } = DIALECT_TRAITS[dialect].queryPlan;
  // One connection: a setting holds for the session that plans.
  return db.connection().execute(async (connection) => {
    if (scanSetting !== null) await sql`set ${sql.raw(scanSetting)} = off`.execute(connection);
    try {
      const plan = await connection.executeQuery<Record<string, string>>(
        CompiledQuery.raw(`${explain} ${compiled.sql}`, [...compiled.parameters]),
      );
      return plan.rows.map((row) => row[lineColumn]).join('\n');
    } finally {
      if (scanSetting !== null) await sql`reset ${sql.raw(scanSetting)}`.execute(connection);
    }
  });
}
