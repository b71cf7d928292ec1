import { protocolOf } from '@airlock/hooks';
import type { Reader } from '../../store/reader.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { moveTask } from '../machines/move-task.js';
import { policyOfWorkspace, requirementOf } from '../verbs/approval-quorum.js';
import { hookedPrincipal } from './agent-calls.js';
import { requiresUser } from './hooked-verdicts.js';

/**
 * Whether the agent's own user may answer a parked row in the agent's prompt
 * (spec 004's `requires_user`): an action contract's `requires_user` rule
 * parked it, and the workspace's approval policy asks one approval of any
 * member for it. A quorum or named approvers are for members to give, never
 * for whoever sits at the agent, so such a row waits for them in Airlock.
 */
export async function answerableInAgentPrompt(
  reader: Reader,
  run: Pick<RunTable, 'workspace_id' | 'agent_application_id' | 'created_by' | 'policy_layers'>,
  row: TaskTable,
): Promise<boolean> {
  if (row.state !== 'needs_approval' || !requiresUser(row)) return false;
  const policy = await policyOfWorkspace(reader, run.workspace_id);
  const requirement = requirementOf(policy, run, row);
  return requirement.required === 1 && requirement.approvers === null;
}

/**
 * Approves a parked row the agent reports its user answered in its own
 * prompt, as that user (`hooks:AGENT:user`), when the agent has a prompt of
 * its own and the row may be answered there; otherwise the row is left as
 * it is. The report alone proves nothing: the agent's credential is not a
 * member's, so only a row the kernel itself handed over is approved this way.
 */
export async function approveInAgentPrompt(
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  agent: string,
): Promise<TaskTable> {
  if (run.state !== 'running' || protocolOf(agent)?.nativeAsk !== true) return row;
  if (!(await answerableInAgentPrompt(tx, run, row))) return row;
  const who = `${hookedPrincipal(agent)}:user`;
  return moveTask(tx, {
    verb: 'approve',
    run,
    key: row.key,
    to: 'runnable',
    set: { deadline_at: null, decided_by: who },
    event: { type: 'task.approved', data: { decided_by: who, in_agent_prompt: true } },
    principal: who,
  });
}
