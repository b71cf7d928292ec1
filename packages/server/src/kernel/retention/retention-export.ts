import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** What a pruned batch is written as: audit records, event views, or runs with their tasks. */
export type ExportKind = 'audit' | 'events' | 'runs';

/**
 * Appends what the pruner is about to delete to JSON-lines files under the
 * export directory (`<workspace>/<kind>-<UTC date>.jsonl`; audit lines are
 * exactly those of `airlock audit export`), and flushes them to disk before
 * it returns, so nothing is deleted that was not kept first.
 * @throws Error when the file cannot be written (the batch is then not deleted).
 */
export function appendExport(options: {
  directory: string;
  workspaceId: string;
  kind: ExportKind;
  lines: readonly unknown[];
  now: number;
}): void {
  if (options.lines.length === 0) return;
  const folder = join(options.directory, options.workspaceId);
  mkdirSync(folder, { recursive: true });
  const day = new Date(options.now).toISOString().slice(0, 10);
  const file = join(folder, `${options.kind}-${day}.jsonl`);
  const text = `${options.lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
  const descriptor = openSync(file, 'a');
  try {
    writeSync(descriptor, text);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
