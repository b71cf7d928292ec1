import { AirlockError } from '../errors.js';
import { lockedForUpdate } from './dialect.js';
import { SQL } from './sql-handle.js';
import type { Store, Tx } from './store.js';

/** A stored profile configuration version. */
export interface StoredProfileConfiguration {
  agent_application_id: string;
  version: number;
  configuration: Record<string, unknown>;
  created_at: number;
}

/**
 * Stores a new configuration version and makes it current; returns its
 * version and the time it was stored at (what a later read shows).
 * Concurrent declarations get distinct versions (the application row is the
 * counter); with `expectedVersion`, only while the current version is that
 * one (0: none declared yet), read with the application row locked.
 * @throws AirlockError stale_digest (409) when the current version is another.
 */
export async function putProfileConfiguration(
  tx: Tx,
  options: {
    agentApplicationId: string;
    configuration: unknown;
    createdBy: string;
    expectedVersion?: number | undefined;
  },
): Promise<{ version: number; created_at: number }> {
  const { db, dialect } = tx[SQL];
  if (options.expectedVersion !== undefined) {
    // Compared here, not in SQL: any whole number may be asked for, past what the column holds.
    const current = await lockedForUpdate(
      dialect,
      db
        .selectFrom('agent_applications')
        .select('config_version')
        .where('id', '=', options.agentApplicationId),
    ).executeTakeFirstOrThrow();
    if (current.config_version !== options.expectedVersion) {
      throw new AirlockError(
        'stale_digest',
        `the profile configuration is at version ${current.config_version}, not ${options.expectedVersion}; read it again`,
      );
    }
  }
  const bumped = await db
    .updateTable('agent_applications')
    .set((eb) => ({ config_version: eb('config_version', '+', 1) }))
    .where('id', '=', options.agentApplicationId)
    .returning('config_version')
    .executeTakeFirstOrThrow();
  await tx[SQL].db
    .insertInto('profile_configurations')
    .values({
      agent_application_id: options.agentApplicationId,
      version: bumped.config_version,
      configuration: JSON.stringify(options.configuration),
      created_by: options.createdBy,
      created_at: tx.now,
    })
    .execute();
  return { version: bumped.config_version, created_at: tx.now };
}

/** The current configuration of an agent application, or null when none was declared. */
export async function currentProfileConfiguration(
  store: Store | Tx,
  agentApplicationId: string,
): Promise<StoredProfileConfiguration | null> {
  const row = await store[SQL].db
    .selectFrom('profile_configurations')
    .innerJoin(
      'agent_applications',
      'agent_applications.id',
      'profile_configurations.agent_application_id',
    )
    .selectAll('profile_configurations')
    .where('profile_configurations.agent_application_id', '=', agentApplicationId)
    .whereRef('profile_configurations.version', '=', 'agent_applications.config_version')
    .executeTakeFirst();
  if (!row) return null;
  return {
    agent_application_id: row.agent_application_id,
    version: row.version,
    configuration: JSON.parse(row.configuration) as Record<string, unknown>,
    created_at: row.created_at,
  };
}

/**
 * The stored texts of an agent application's configuration versions up to
 * and including `version`, newest first.
 */
export async function profileConfigurationsThrough(
  reader: Store | Tx,
  agentApplicationId: string,
  version: number,
): Promise<string[]> {
  const rows = await reader[SQL].db
    .selectFrom('profile_configurations')
    .select('configuration')
    .where('agent_application_id', '=', agentApplicationId)
    .where('version', '<=', version)
    .orderBy('version', 'desc')
    .execute();
  return rows.map((row) => row.configuration);
}

/** The stored text of one configuration version of an agent application; undefined when absent. */
export async function profileConfigurationText(
  reader: Store | Tx,
  agentApplicationId: string,
  version: number,
): Promise<string | undefined> {
  const row = await reader[SQL].db
    .selectFrom('profile_configurations')
    .select('configuration')
    .where('agent_application_id', '=', agentApplicationId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row?.configuration;
}
