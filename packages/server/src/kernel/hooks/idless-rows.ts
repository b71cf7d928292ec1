import { canonicalJson, type HookedRanCall } from '@airlock/core';
import type { ModelCall } from '../../store/hooked-rows.js';

/*
 * Gemini CLI's hooks carry no call id: a turn's calls in its transcript are
 * matched to the turn's rows by tool and input instead, in the order they
 * were made.
 */

/**
 * The rows of calls whose agent gave no call id, each taken by the first
 * transcript call of the same tool and input (by tool alone when the
 * transcript sent no input): what is left over ran unseen.
 */
export class IdlessRows {
  private readonly rows: { key: string; tool: string; input: string | null }[];

  constructor(calls: readonly ModelCall[]) {
    this.rows = calls
      .filter((call) => call.tool_call_id === null)
      .map((call) => ({
        key: call.key,
        tool: call.tool_name,
        input: canonicalOf(call.tool_input),
      }));
  }

  /** Takes the row of this call, if one is left: its key; null when none matches. */
  take(call: HookedRanCall): string | null {
    const input = call.tool_input === undefined ? null : canonicalJson(call.tool_input);
    const at = this.rows.findIndex(
      (row) => row.tool === call.tool_name && (input === null || row.input === input),
    );
    const [taken] = at < 0 ? [] : this.rows.splice(at, 1);
    return taken?.key ?? null;
  }
}

/** A row's stored input as canonical JSON (keys sorted), null when it does not parse. */
export function canonicalOf(json: string): string | null {
  try {
    return canonicalJson(JSON.parse(json));
  } catch {
    return null;
  }
}

/**
 * The transcript's call of each row that has no call id, by the row's key:
 * each call the transcript shows, in order, takes the first such row left
 * of the same tool and input. A call whose id a row has is that row's, not
 * an id-less one's.
 */
export function idlessRowCalls(
  staged: readonly ModelCall[],
  ranCalls: readonly HookedRanCall[],
): Map<string, HookedRanCall> {
  const ids = new Set(
    staged.flatMap((call) => (call.tool_call_id === null ? [] : [call.tool_call_id])),
  );
  const rows = new IdlessRows(staged);
  const byRow = new Map<string, HookedRanCall>();
  for (const call of ranCalls) {
    if (ids.has(call.tool_use_id)) continue;
    const key = rows.take(call);
    if (key !== null) byRow.set(key, call);
  }
  return byRow;
}
