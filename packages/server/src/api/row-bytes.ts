import type { TaskTable } from '../store/schema.js';

/**
 * About how many bytes of stored call text one page of rows holds at most (decisions.list,
 * tasks.list): a view carries a call's input twice (`tool_input` and its `effect_profile`), so
 * fifty parked calls of a megabyte each made a page of over a hundred. A page always holds one row.
 */
export const ROW_PAGE_BYTES = 8 * 1024 * 1024;

/**
 * About how many bytes a row's view carries: its input twice (`tool_input`, and the effect
 * profile built from it when none was stored), the stored profile, the result and the texts.
 */
export function taskRowBytes(row: TaskTable): number {
  return (
    2 * row.tool_input.length +
    (row.effect_profile?.length ?? 0) +
    (row.result?.length ?? 0) +
    (row.decision?.length ?? 0) +
    (row.error_detail?.length ?? 0) +
    (row.prompt?.length ?? 0) +
    (row.options?.length ?? 0)
  );
}
