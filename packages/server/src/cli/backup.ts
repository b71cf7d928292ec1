import { BACKUP_HELP, type BackupArgs, RESTORE_HELP, readBackupArgs } from './backup-args.js';

/**
 * Reads the command line, printing the help when that is what it asks for.
 * @returns what to do, or the exit code when the help was printed.
 */
function read(argv: string[], command: 'airlock backup' | 'airlock restore'): BackupArgs | number {
  const asked = readBackupArgs(argv, command);
  if (!('help' in asked)) return asked;
  process.stdout.write(command === 'airlock backup' ? BACKUP_HELP : RESTORE_HELP);
  return asked.help === 'asked' ? 0 : 2;
}

/**
 * Runs `airlock backup <file>`; returns the exit code. The store and SQLite
 * load only once the command line reads right (see backup-run.ts).
 */
export async function backup(argv: string[]): Promise<number> {
  const asked = read(argv, 'airlock backup');
  if (typeof asked === 'number') return asked;
  const { runBackup } = await import('./backup-run.js');
  return runBackup(asked);
}

/**
 * Runs `airlock restore <file>`; returns the exit code. The store and SQLite
 * load only once the command line reads right (see restore-run.ts).
 */
export async function restore(argv: string[]): Promise<number> {
  const asked = read(argv, 'airlock restore');
  if (typeof asked === 'number') return asked;
  const { runRestore } = await import('./restore-run.js');
  return runRestore(asked);
}
