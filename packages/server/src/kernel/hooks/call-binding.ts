import { canonicalJson } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import { listRunEventData } from '../../store/events.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { HookedCall } from './agent-calls.js';
import { wasEdited } from './hooked-verdicts.js';

/**
 * The inputs a call asked about again may present for its row, each as
 * canonical JSON: the row's own, and for a call a person approved with
 * changes also the input the model composed (the first edit's
 * `previous_input`), since the agent's hook asks again with what its model
 * composed and runs the edit the allow hands back (`updated_input`).
 */
async function inputsOfRow(tx: Tx, run: RunTable, row: TaskTable): Promise<string[]> {
  const inputs = [canonicalJson(JSON.parse(row.tool_input) as unknown)];
  if (!wasEdited(row)) return inputs;
  const [firstEdit] = await listRunEventData(tx, {
    workspaceId: run.workspace_id,
    runId: run.id,
    type: 'task.edited',
    taskKey: row.key,
  });
  if (firstEdit !== undefined) {
    const composed = (JSON.parse(firstEdit) as { previous_input?: unknown }).previous_input;
    inputs.push(canonicalJson(composed ?? null));
  }
  return inputs;
}

/**
 * Refuses a call presented under a row's call id or key that is not the
 * row's call (another tool, another input): the grant and the report of a
 * row belong to the call a person or a rule decided, never to whatever the
 * agent sends under its id. Inputs compare as canonical JSON (key order
 * does not count).
 * @throws AirlockError call_mismatch, with nothing changed.
 */
export async function checkPresentedCall(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  call: HookedCall,
): Promise<void> {
  const presented = canonicalJson(call.toolInput ?? null);
  if (row.tool_name === call.toolName && (await inputsOfRow(tx, run, row)).includes(presented)) {
    return;
  }
  throw new AirlockError(
    'call_mismatch',
    `the ${call.toolName} call presented for task ${row.key} is not the ${row.tool_name} call it holds (another tool or another input): ask about the call as it was decided, or make a new call`,
  );
}

/**
 * Refuses a check of a call already granted (its row claimed for the agent)
 * or already run: a call is granted once, to the first check after its
 * decision, so two racing resumes never both run it.
 * @throws AirlockError not_claimable, with nothing changed.
 */
export function checkNotGranted(row: TaskTable): void {
  if (row.kind !== 'tool' || (row.state !== 'claimed' && row.state !== 'succeeded')) return;
  const why =
    row.state === 'claimed'
      ? 'was already granted to an earlier check of this call'
      : 'already ran';
  throw new AirlockError('not_claimable', `task ${row.key} ${why}: a call is granted once`);
}
