/**
 * A store a newer Airlock migrated: it has applied migrations this build does
 * not know, so this build cannot read it safely (nor an older kernel join
 * newer ones on one PostgreSQL database). Nothing was changed.
 */
export class StoreNewerSchemaError extends Error {
  readonly code = 'store_newer_schema';
  constructor(readonly unknownMigrations: readonly string[]) {
    super(
      `store_newer_schema: the store was migrated by a newer Airlock (migrations ${unknownMigrations.join(', ')} ` +
        'are unknown to this build); run that version or later, and nothing was changed',
    );
    this.name = 'StoreNewerSchemaError';
  }
}
