import { canonicalJson, truncateUtf8 } from '@airlock/core';
import { AirlockError, CallAlreadyRanError } from '../../errors.js';
import { listRunEventData } from '../../store/events.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { HookedCall } from './agent-calls.js';
import { wasEdited } from './hooked-verdicts.js';
import { ranOutput } from './ran-result.js';
import { directoryNamed, madeInRowDirectory } from './working-directory.js';

/** The hook event that presents a call again: asking to run it, or reporting what ran. */
export type PresentedAt = 'pre_tool' | 'post_tool';

/**
 * The inputs a call presented again may carry for its row, each as
 * canonical JSON: the row's own, and on `pre_tool` of a call a person
 * approved with changes also the input the model composed (the first edit's
 * `previous_input`), since the agent's hook asks again with what its model
 * composed and runs the edit the allow hands back (`updated_input`). A
 * report (`post_tool`) must carry the input that ran, so only the row's own
 * fits: a report that the composed input ran says the edit was not run.
 */
async function inputsOfRow(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  at: PresentedAt,
): Promise<string[]> {
  const inputs = [canonicalJson(JSON.parse(row.tool_input) as unknown)];
  if (at !== 'pre_tool' || !wasEdited(row)) return inputs;
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

/** The most of a presented call's input a mismatch's detail names (the detail is cut to 256 bytes). */
const MISMATCH_INPUT_MAX_BYTES = 160;

/**
 * What is wrong with a call presented under a row's call id or key, as the
 * detail of a `call_mismatch`, naming the call presented; null when it is
 * the row's call (same tool, an input it may carry: see {@link inputsOfRow}).
 * Inputs compare as canonical JSON (key order does not count).
 */
export async function presentedMismatch(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  options: { call: HookedCall; at: PresentedAt },
): Promise<string | null> {
  const { call, at } = options;
  const presented = canonicalJson(call.toolInput ?? null);
  if (
    row.tool_name === call.toolName &&
    (await inputsOfRow(tx, run, row, at)).includes(presented)
  ) {
    return null;
  }
  const input = truncateUtf8(presented, MISMATCH_INPUT_MAX_BYTES);
  const verb = at === 'pre_tool' ? 'asked to run' : 'reported running';
  return truncateUtf8(
    `the agent ${verb} ${call.toolName} ${input} under task ${row.key}, which holds another ${row.tool_name} call`,
    256,
  );
}

/**
 * Refuses a call presented under a row's call id or key that is not the
 * row's call (another tool, another input, or made from another working
 * directory than the row's): the grant of a row belongs to the call a
 * person or a rule decided, never to whatever the agent sends under its id.
 * A resumed session (`claude -p --resume`) elsewhere, or after a `cd`, asks
 * again under the same id, and its `cat key` names another file.
 * @throws AirlockError call_mismatch, with nothing changed.
 */
export async function checkPresentedCall(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  call: HookedCall,
): Promise<void> {
  const mismatch =
    (await presentedMismatch(tx, run, row, { call, at: 'pre_tool' })) ??
    directoryMismatch(row, call);
  if (mismatch === null) return;
  throw new AirlockError(
    'call_mismatch',
    `${mismatch}: ask about the call as it was decided, or make a new call`,
  );
}

/** The detail of a call presented from another working directory than its row's; null when the same. */
function directoryMismatch(row: TaskTable, call: HookedCall): string | null {
  if (madeInRowDirectory(row, call)) return null;
  return truncateUtf8(
    `the agent asked to run ${truncateUtf8(call.toolName, 40)} from ${directoryNamed(call.workingDirectory)} under task ${row.key}, which holds the call made from ${directoryNamed(row.working_directory)}`,
    200,
  );
}

/**
 * Refuses a check of a call already granted (its row claimed for the agent)
 * or already run: a call is granted once, to the first check after its
 * decision, so two racing resumes never both run it. A call that ran is
 * refused with what it returned (`ran`), for a framework that runs the same
 * call again to hand the model instead.
 * @throws AirlockError not_claimable (CallAlreadyRanError once it ran), with nothing changed.
 */
export function checkNotGranted(row: TaskTable): void {
  if (row.kind !== 'tool') return;
  if (row.state === 'claimed') {
    throw new AirlockError(
      'not_claimable',
      `task ${row.key} was already granted to an earlier check of this call: a call is granted once`,
    );
  }
  if (row.state === 'succeeded') {
    throw new CallAlreadyRanError(`task ${row.key} already ran: a call is granted once`, {
      output: ranOutput(row.result),
    });
  }
}
