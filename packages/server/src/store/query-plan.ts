import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';

/** Keeps the queries a reader built, as their trees. */
class BuiltQueries implements KyselyPlugin {
  nodes: RootOperationNode[] = [];
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    this.nodes.push(args.node);
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
  return {
    reader: { [SQL]: { ...handle, db: handle.db.withPlugin(built) } },
    /** The plans of the statements sent since the last call, in the order they were built. */
    async plans() {
      const nodes = built.nodes.splice(0);
      const plans: string[] = [];
      for (const node of nodes) {
        const compiled = handle.db.getExecutor().compileQuery(node, { queryId: 'plan' });
        const plan = await handle.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
        );
        plans.push(plan.rows.map((row) => row.detail).join('\n'));
      }
      return plans;
    },
  };
}
