import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
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
 * layer's key it needs): a reader over a SQLite store that remembers the statements a repository
 * sends through it, and SQLite's own query plan of each (the `detail` lines
 * of `explain query plan`, joined by newlines).
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
        const plan = await handle.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        plans.push(plan.rows.map((row) => row.detail).join('\n'));
      }
      return plans;
    },
  };
}
