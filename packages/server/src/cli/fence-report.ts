import { type FencedRow, fenceByHand } from '../kernel/verbs/restore-fence.js';
import type { ContinuedLog } from '../store/restored-log.js';
import type { Store } from '../store/store.js';
import { terminalLine } from './terminal-lines.js';

/** What a fence did: the rows it moved. */
export type FenceOutcome = readonly FencedRow[];

/** Fences an open store (see kernel/verbs/restore-fence.ts). */
export function fenceStore(store: Store): Promise<FenceOutcome> {
  return fenceByHand(store);
}

/** One fenced call as a line of tab-separated fields, each escaped (a tool name's tab too). */
export function fencedLine(row: FencedRow): string {
  return terminalLine([row.workspace_id, row.run_id, row.key, row.kind, row.tool_name, row.was]);
}

/**
 * What an operator reads after a fence: how many calls, what to do with them,
 * and (unless `listed` elsewhere) one line per call.
 */
export function fenceReport(fenced: FenceOutcome, options: { listed?: boolean } = {}): string {
  if (fenced.length === 0) {
    return 'fenced nothing: no call was granted or claimed when the backup was taken\n';
  }
  const runs = new Set(fenced.map((row) => row.run_id)).size;
  return (
    `fenced ${fenced.length} call(s) in ${runs} run(s) that were granted or claimed when the backup was taken ` +
    '(they may have run since): each failed with outcome_unknown and holds its run; ' +
    'retry one to send it through approval again, or abandon or stop its run (docs/backup-restore.md, "Fencing")\n' +
    (options.listed ? '' : fenced.map((row) => `  ${fencedLine(row)}\n`).join(''))
  );
}

/**
 * What a restore did to the event log's numbering: per workspace whose
 * replaced log went past the backup, where new events start and who is told
 * to resynchronise; or that the replaced store could not be read for it.
 */
export function continuedReport(
  continued: readonly ContinuedLog[],
  replacedLog: 'read' | 'none' | 'unreadable',
): string {
  if (replacedLog === 'unreadable') {
    return (
      'the store that was there could not be read for its event numbers: new events are numbered ' +
      "after the backup's, and feed clients that read past the backup are not told to resynchronise; " +
      'restart them (docs/backup-restore.md)\n'
    );
  }
  return continued
    .map(
      (log) =>
        `workspace ${log.workspaceId}: the replaced store's events ${log.after + 1} to ${log.through} are undone; ` +
        `new events are numbered from ${log.through + 2}, and feed clients that had read past ${log.after} ` +
        'are told to resynchronise\n',
    )
    .join('');
}
