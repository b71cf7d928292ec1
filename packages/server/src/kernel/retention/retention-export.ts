import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, open, readdir, readFile, stat, truncate, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { syncDirectory } from '../../store/directory-sync.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../store/private-dir.js';
import type { CommittedExports } from '../../store/retention-exports.js';

/** What a pruned batch is written as: audit records, event views, runs with their rows, conversations. */
export type ExportKind = 'audit' | 'events' | 'runs' | 'conversations';

/** The lines one pruning step writes, by kind. */
export type ExportLines = Partial<Record<ExportKind, readonly unknown[]>>;

const FILE_NAME = /^(audit|events|runs|conversations)-(\d{4}-\d{2}-\d{2})\.jsonl$/;

/** The UTC day of a time, as export file names carry it. */
export function exportDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/**
 * An export file that could not be written whole and flushed (a full disk,
 * a file-size limit, an I/O error); `code` is stable. The step that wrote
 * it deletes nothing, so no row goes that was not exported.
 */
export class RetentionExportError extends Error {
  readonly code = 'retention_export_failed';

  constructor(
    readonly file: string,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`retention_export_failed: ${file}: ${detail}; nothing was pruned`, options);
    this.name = 'RetentionExportError';
  }
}

/** The file in an export directory that names it (see {@link exportLocation}). */
export const EXPORT_LOCATION_FILE = '.airlock-location';

/**
 * The id of an export directory, kept in a file of its own (written on first
 * use), so the store's record of its files follows the directory itself: a
 * kernel restarted under another host name, or several kernels sharing one
 * directory, find the same record.
 * @throws RetentionExportError when the file is empty (it names no directory:
 *   read as '', every directory with an empty file would share one record).
 * @throws Error when the directory cannot be created or the file written.
 */
export async function exportLocation(directory: string): Promise<string> {
  const file = join(directory, EXPORT_LOCATION_FILE);
  const read = async () => {
    const id = (await readFile(file, 'utf8')).trim();
    if (id !== '') return id;
    // Left as it is: removed by someone who knows, not by a pass that may read another
    // kernel's file between its creation and its first write.
    throw new RetentionExportError(
      file,
      'it is empty, so it names no export directory; remove it for the next pass to write a new one',
    );
  };
  try {
    return await read();
  } catch (error) {
    if (error instanceof RetentionExportError) throw error;
    makePrivateDir(directory);
    await writeLocation(file);
    return read();
  }
}

/**
 * Writes a new location file, its bytes and its name synced: a file a power cut
 * emptied or lost would give the directory another id, whose record is not found.
 * Nothing when another kernel sharing the directory wrote it first.
 */
async function writeLocation(file: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'wx');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') return;
    throw error;
  }
  try {
    await handle.writeFile(`exports_${randomUUID()}\n`);
    await handle.sync();
  } catch (error) {
    await handle.close();
    // An empty or torn file would name the directory for good: the next pass writes it again.
    await unlink(file).catch(() => {});
    throw error;
  }
  await handle.close();
  syncDirectory(dirname(file));
}

/**
 * One workspace's export folder (`<directory>/<workspace>/<kind>-<UTC
 * date>.jsonl`; audit lines are exactly those of `airlock audit export`).
 * Each pruning step appends its lines and flushes them to disk before its
 * delete commits, and the delete's unit of work records the files' lengths
 * (see {@link CommittedExports}); `repair` cuts every file back to those
 * lengths, so what a step wrote without its delete committing (a kill, a
 * failed transaction, a torn last line) is written again once, by the step
 * that deletes it. Only the pass holding the pruning lock writes here.
 */
export class ExportFolder {
  private readonly folder: string;

  constructor(directory: string, workspaceId: string) {
    this.folder = join(directory, workspaceId);
  }

  /**
   * Cuts the folder's files back to the record: a file of a later day than
   * the record's goes, one of its day is cut to its recorded length (or goes
   * when it has none). What is cut is never lost: it is kept beside the file
   * as `<file>.cut-<time>` (which no later repair reads), since a store
   * restored from an older backup has a record older than lines whose
   * delete did commit, and those rows are in no store any more (`keepCut`
   * false: a pass cutting back the lines of its own failed step, which it
   * writes again). Answers how many bytes were cut and where they were
   * kept. Without a record it
   * changes nothing and answers the files of `today` as they are, for the
   * caller to record first.
   */
  async repair(
    record: CommittedExports | undefined,
    today: string,
    options: { now: number; keepCut: boolean } = { now: Date.now(), keepCut: true },
  ): Promise<{ cutBytes: number; keptIn: string[]; record: CommittedExports }> {
    const files = await this.files();
    if (!record) {
      const sizes: Record<string, number> = {};
      for (const file of files) if (file.day === today) sizes[file.name] = file.size;
      return { cutBytes: 0, keptIn: [], record: { day: today, sizes } };
    }
    let cutBytes = 0;
    const keptIn: string[] = [];
    for (const file of files) {
      if (file.day < record.day) continue;
      const keep = file.day === record.day ? (record.sizes[file.name] ?? 0) : 0;
      if (file.size <= keep) continue;
      cutBytes += file.size - keep;
      const path = join(this.folder, file.name);
      if (options.keepCut) {
        const aside = `${path}.cut-${new Date(options.now).toISOString().replace(/[:.]/g, '-')}`;
        await keepTail(path, keep, aside);
        keptIn.push(aside);
      }
      if (keep === 0) await unlink(path);
      else await truncate(path, keep);
    }
    return { cutBytes, keptIn, record };
  }

  /**
   * Appends a step's lines to the files of its day and flushes each to disk;
   * answers the record of the files once the step's delete commits
   * (`committed` carried over when it is of the same day). A clock that
   * reads a day before the record's (another kernel a little behind across
   * midnight, a clock set back) writes to the record's day: the record never
   * goes back a day, since a repair cuts every file of a later day than it.
   * @throws RetentionExportError when a file cannot be written whole and
   *   flushed (the step then deletes nothing).
   */
  async append(
    lines: ExportLines,
    options: { now: number; committed: CommittedExports },
  ): Promise<CommittedExports> {
    const day = laterDay(exportDay(options.now), options.committed.day);
    const sizes = day === options.committed.day ? { ...options.committed.sizes } : {};
    makePrivateDir(this.folder);
    let made = false;
    for (const [kind, rows] of Object.entries(lines) as [ExportKind, readonly unknown[]][]) {
      if (rows.length === 0) continue;
      const name = `${kind}-${day}.jsonl`;
      const bytes = Buffer.from(`${rows.map((row) => JSON.stringify(row)).join('\n')}\n`);
      const appended = await appendWhole(join(this.folder, name), bytes);
      sizes[name] = appended.size;
      made ||= appended.fromEmpty;
    }
    // A file's sync keeps its bytes, not its name: a new day's file (and its workspace folder)
    // must be found after a power cut, once the step's delete has committed.
    if (made) syncFolders([this.folder, dirname(this.folder)]);
    return { day, sizes };
  }

  private async files(): Promise<{ name: string; day: string; size: number }[]> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return [];
    }
    const found: { name: string; day: string; size: number }[] = [];
    for (const name of names) {
      const match = FILE_NAME.exec(name);
      if (!match) continue;
      found.push({ name, day: match[2]!, size: (await stat(join(this.folder, name))).size });
    }
    return found;
  }
}

/** The later of two UTC days (`YYYY-MM-DD` text sorts as the days do). */
function laterDay(one: string, other: string): string {
  if (one < other) return other;
  return one;
}

/**
 * Copies a file's bytes from `from` on into a new file (flushed), before they are cut off: only
 * that tail is read, streamed, however long the day's file has grown.
 */
async function keepTail(path: string, from: number, aside: string): Promise<void> {
  // `flush` syncs the copy to disk before the stream closes: it outlives the cut that follows.
  await pipeline(
    createReadStream(path, { start: from }),
    createWriteStream(aside, { flags: 'wx', mode: PRIVATE_FILE_MODE, flush: true }),
  );
}

/**
 * Syncs the entries of these folders, an export file having been made in the first.
 * @throws RetentionExportError when one cannot be synced (the step then deletes nothing).
 */
function syncFolders(folders: readonly string[]): void {
  for (const folder of folders) {
    try {
      syncDirectory(folder);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new RetentionExportError(folder, `could not sync the folder (${reason})`, {
        cause: error,
      });
    }
  }
}

/**
 * Appends every byte to a file and flushes it to disk; answers the file's
 * length then, and whether it was empty before (made by this append). A write may take only part of the bytes (a nearly full disk):
 * the rest is written again until all are, or a write fails.
 * @throws RetentionExportError when the file cannot be opened, written whole or flushed.
 */
async function appendWhole(
  path: string,
  bytes: Buffer,
): Promise<{ size: number; fromEmpty: boolean }> {
  let written = 0;
  try {
    // What is pruned holds calls' inputs and results: its owner's alone, whatever the folder's mode.
    const handle = await open(path, 'a', PRIVATE_FILE_MODE);
    try {
      const fromEmpty = (await handle.stat()).size === 0;
      while (written < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, written, bytes.length - written);
        if (bytesWritten <= 0) throw new Error('the write took no bytes');
        written += bytesWritten;
      }
      await handle.sync();
      return { size: (await handle.stat()).size, fromEmpty };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RetentionExportError(path, `wrote ${written} of ${bytes.length} bytes (${reason})`, {
      cause: error,
    });
  }
}
