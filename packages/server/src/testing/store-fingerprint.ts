import { sql } from 'kysely';
import type { Store } from '../store/store.js';

/** What a store holds, in figures: equal fingerprints mean no row was added, removed or moved. */
export type StoreFingerprint = Record<string, string>;

/** Columns whose figure changes when a row of their table is updated. */
const MOVING_COLUMNS: Readonly<Record<string, 'max' | 'count'>> = {
  updated_at: 'max',
  event_seq: 'max',
  revoked_at: 'count',
  removed_at: 'count',
};

const statements = new WeakMap<Store, ReturnType<typeof sql<Record<string, unknown>>>>();

async function statementOf(store: Store) {
  const known = statements.get(store);
  if (known) return known;
  const tables = (await store.db.introspection.getTables()).filter(
    (table) => !table.name.startsWith('airlock_migrations'),
  );
  // One scan per table: its row count, and the figures of its moving columns beside it.
  const figures = tables.map((table) => {
    const moving = table.columns
      .filter((column) => column.name in MOVING_COLUMNS)
      .map((column) =>
        MOVING_COLUMNS[column.name] === 'max'
          ? sql`coalesce(max(${sql.ref(column.name)}), 0)`
          : sql`count(${sql.ref(column.name)})`,
      );
    const parts = sql.join([sql`count(*)`, ...moving], sql` || '/' || `);
    return sql`(select ${parts} from ${sql.table(table.name)}) as ${sql.id(table.name)}`;
  });
  const statement = sql<Record<string, unknown>>`select ${sql.join(figures)}`;
  statements.set(store, statement);
  return statement;
}

/**
 * The row count of every table of the store, and for tables whose rows move
 * (an `updated_at`, a sequence, a revocation), the figure that moves with
 * them, read in one statement.
 */
export async function storeFingerprint(store: Store): Promise<StoreFingerprint> {
  const { rows } = await (await statementOf(store)).execute(store.db);
  const fingerprint: StoreFingerprint = {};
  for (const [key, value] of Object.entries(rows[0] ?? {})) fingerprint[key] = String(value);
  return fingerprint;
}
