/** Why a backup or a restore was refused; `code` is stable, `message` says what to do. */
export class BackupError extends Error {
  constructor(
    readonly code:
      | 'store_not_found'
      | 'backup_target_exists'
      | 'backup_not_found'
      | 'not_an_airlock_store'
      | 'backup_newer_schema'
      | 'backup_corrupt'
      | 'backup_changed'
      | 'kernel_running'
      | 'restoring_dir_in_use'
      | 'postgres_use_pg_dump',
    message: string,
    /** For `backup_corrupt` found by SQLite's check: the first problem it names. */
    readonly damage?: string,
  ) {
    super(message);
    this.name = 'BackupError';
  }
}
