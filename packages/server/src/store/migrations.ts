import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { Migrator, sql } from 'kysely';
import { approvalPoliciesMigration } from './approval-policies-migration.js';
import { assistantTextMigration } from './assistant-text-migration.js';
import { credentialsByWorkspaceMigration } from './credentials-by-workspace-migration.js';
import type { Dialect } from './dialect.js';
import {
  contextTokenLimit,
  initial,
  policyLayers,
  questionsAndHooks,
  sweepIndexes,
} from './early-migrations.js';
import { hookSessionsMigration } from './hook-sessions-migration.js';
import { hookedLookupsMigration } from './hooked-lookups-migration.js';
import { memberRolesMigration } from './member-roles-migration.js';
import { notificationsMigration } from './notifications-migration.js';
import { permissionsMigration } from './permissions-migration.js';
import { retentionExportsMigration } from './retention-exports-migration.js';
import { retentionMigration } from './retention-migration.js';
import { retentionOrphansMigration } from './retention-orphans-migration.js';
import { retentionSweepsMigration } from './retention-sweeps-migration.js';
import { runLoopsMigration } from './run-loops-migration.js';
import { storeIdentityClusterMigration } from './store-identity-cluster-migration.js';
import { storeIdentityMigration } from './store-identity-migration.js';
import { StoreNewerSchemaError } from './store-newer-schema.js';
import { readStoreSchema, storeSchemaName } from './store-schema.js';
import { taskAppendersMigration } from './task-appenders-migration.js';
import { waitingPageMigration } from './waiting-page-migration.js';
import { workingDirectoryMigration } from './working-directory-migration.js';

/** Every migration this build knows, by name; the names sort in the order they apply. */
export class StaticMigrations implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001_initial': initial(this.dialect),
      '0002_questions_and_hooks': questionsAndHooks(this.dialect),
      '0003_context_token_limit': contextTokenLimit(this.dialect),
      '0004_sweep_indexes': sweepIndexes(),
      '0004b_policy_layers': policyLayers(),
      '0008_permissions': permissionsMigration(this.dialect),
      '0009_hook_sessions': hookSessionsMigration(this.dialect),
      '0010_retention': retentionMigration(this.dialect),
      '0011_notifications': notificationsMigration(this.dialect),
      '0012_approval_policies': approvalPoliciesMigration(this.dialect),
      '0013_retention_orphans': retentionOrphansMigration(),
      '0014_retention_exports': retentionExportsMigration(this.dialect),
      '0015_hooked_lookups': hookedLookupsMigration(),
      '0016_waiting_page': waitingPageMigration(),
      '0017_member_roles': memberRolesMigration(),
      '0018_run_loops': runLoopsMigration(this.dialect),
      '0019_store_identity': storeIdentityMigration(this.dialect),
      '0020_task_appenders': taskAppendersMigration(),
      '0021_credentials_by_workspace': credentialsByWorkspaceMigration(),
      '0022_retention_sweeps': retentionSweepsMigration(this.dialect),
      '0023_store_identity_cluster': storeIdentityClusterMigration(this.dialect),
      '0024_assistant_text': assistantTextMigration(),
      '0025_working_directory': workingDirectoryMigration(),
    };
  }
}

/**
 * The migrator of the one set of migrations, on a dialect, keeping its
 * history in the store's schema (PostgreSQL's current schema): Kysely would
 * otherwise take a history table in any schema of the database for this
 * store's.
 */
async function migratorOf(db: Kysely<unknown>, dialect: Dialect): Promise<Migrator> {
  // Only the schema's name: the migrator reads its own tables (on SQLite, no statement at all).
  const schema = await storeSchemaName(db, dialect);
  return new Migrator({
    db,
    provider: new StaticMigrations(dialect),
    migrationTableName: 'airlock_migrations',
    migrationLockTableName: 'airlock_migrations_lock',
    ...(schema === undefined ? {} : { migrationTableSchema: schema }),
  });
}

/**
 * The names of the migrations this kernel knows that the database has not
 * applied (empty when it is up to date); reads only, creates nothing.
 * @throws Error when the database cannot be read.
 */
export async function pendingMigrations(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  const migrations = await (await migratorOf(db, dialect)).getMigrations();
  return migrations.filter((migration) => migration.executedAt === undefined).map((m) => m.name);
}

/** Whether a database's tables are an Airlock store's: its migration history and its workspaces. */
export function areAirlockTables(names: ReadonlySet<string>): boolean {
  return names.has('airlock_migrations') && names.has('workspaces');
}

/**
 * Whether a database already holds an Airlock store in the store's schema,
 * read from the catalog without changing anything.
 */
export async function holdsAirlockStore(db: Kysely<unknown>, dialect: Dialect): Promise<boolean> {
  return areAirlockTables((await readStoreSchema(db, dialect)).tables);
}

/**
 * Applies every pending migration (one set for both engines) in one
 * transaction, so an upgrade cut short (a full disk, a killed process)
 * leaves the store as it was and the next start applies it whole.
 * @throws StoreNewerSchemaError when a newer Airlock migrated the store (nothing applied).
 * @throws Error when a migration fails; the store is left as it was.
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  try {
    await migrateInOneTransaction(db, dialect);
  } catch (error) {
    // Kysely calls a history with names it does not know "corrupted": a newer Airlock wrote them.
    const unknown = await migrationsUnknownHere(db, dialect).catch(() => []);
    if (unknown.length > 0) throw new StoreNewerSchemaError(unknown);
    throw error;
  }
}

/** The migrations a database has applied that this build does not know (read after a failure). */
async function migrationsUnknownHere(db: Kysely<unknown>, dialect: Dialect): Promise<string[]> {
  const known = await new StaticMigrations(dialect).getMigrations();
  const { rows } = await sql<{ name: string }>`select name from airlock_migrations`.execute(db);
  return rows.map((row) => row.name).filter((name) => !Object.hasOwn(known, name));
}

async function migrateInOneTransaction(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Kysely wraps the migrations in a transaction only where it counts DDL as transactional
  // (PostgreSQL); on SQLite it ran them statement by statement, and a migration cut short
  // kept its first statements, which then failed every later start (duplicate column).
  if (db.getExecutor().adapter.supportsTransactionalDdl) return applyPending(db, dialect);
  await db.connection().execute(async (connection) => {
    await sql`begin`.execute(connection);
    try {
      await applyPending(connection, dialect);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => {});
      throw error;
    }
    await sql`commit`.execute(connection);
  });
}

async function applyPending(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const { error } = await (await migratorOf(db, dialect)).migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
}
