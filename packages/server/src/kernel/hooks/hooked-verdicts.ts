import type { HookedAnswer, JsonValue } from '@airlock/core';
import type { TaskTable } from '../../store/schema.js';

/** Fills an answer's optional parts. */
export function hookAnswer(
  answer: Pick<HookedAnswer, 'verdict' | 'run_id' | 'conversation_id'> & Partial<HookedAnswer>,
): HookedAnswer {
  return {
    reason: null,
    task_key: null,
    task_state: null,
    requires_user: false,
    reminders: [],
    ...answer,
  };
}

interface StoredDecision {
  reminders?: string[];
  /** Set when a person approved the call with changes (kernel/verbs/approvals.ts). */
  edited_by?: string;
  layers?: { layer: string; verdict: string; rule?: { list?: string } | null }[];
}

function decisionOf(row: TaskTable): StoredDecision {
  return row.decision ? (JSON.parse(row.decision) as StoredDecision) : {};
}

/** True when a person approved the row's call with changes (its input is the person's edit). */
export function wasEdited(row: TaskTable): boolean {
  return decisionOf(row).edited_by !== undefined;
}

/** Why a call a person approved only with changes was not run as composed, and what to make instead. */
function editToMake(row: TaskTable): string {
  return `a person approved this call only with changes, so it was not run as composed. Make the call again with this input: ${row.tool_input}`;
}

/**
 * True when a parked row waits only because an action contract's
 * requires_user rule matched: every layer that asks is that rule. A row
 * another layer also asks about (an admin's guardrail, a trusted overlay,
 * Baseline, the profile's own mode or rules) waits for members: the agent
 * writes its own action contract, so a requires_user rule of its own must
 * not hand a guardrail's park to whoever sits at the agent.
 */
export function requiresUser(row: TaskTable): boolean {
  const asking = (decisionOf(row).layers ?? []).filter((layer) => layer.verdict === 'ask');
  return (
    asking.length > 0 &&
    asking.every(
      (layer) => layer.layer === 'action_contract' && layer.rule?.list === 'requires_user',
    )
  );
}

/**
 * The verdict on a call's row: taken for the agent (claimed) or already
 * run: allow; waiting for a person: wait; refused, expired or canceled:
 * deny with the reason the model reads; approved with changes and left for
 * the call made again with them (`running`: its run still runs): deny
 * naming the edit. `requires_user` is set only for a
 * park the agent's own user may answer (`inAgentPrompt`, see
 * agent-prompt.ts); any other park waits for members.
 */
export function answerOf(
  base: Pick<HookedAnswer, 'run_id' | 'conversation_id'>,
  row: TaskTable,
  options: { inAgentPrompt: boolean; running?: boolean } = { inAgentPrompt: false },
): HookedAnswer {
  const about = {
    ...base,
    task_key: row.key,
    task_state: row.state,
    reminders: decisionOf(row).reminders ?? [],
  };
  switch (row.state) {
    case 'claimed':
    case 'succeeded':
      return hookAnswer({
        ...about,
        verdict: 'allow',
        // The agent runs what the person approved, not what its model composed.
        ...(!wasEdited(row) ? {} : { updated_input: JSON.parse(row.tool_input) as JsonValue }),
      });
    case 'ready':
    case 'needs_approval':
    case 'awaiting_input':
      return hookAnswer({
        ...about,
        verdict: 'wait',
        reason:
          row.state === 'awaiting_input'
            ? 'the call waits for an answer from a person'
            : "the call waits for a person's approval",
        // Set only for a needs_approval row (answerableInAgentPrompt).
        requires_user: options.inAgentPrompt,
      });
    case 'timed_out':
      return hookAnswer({
        ...about,
        verdict: 'deny',
        reason: row.error_detail ?? 'nobody approved the call in time',
      });
    case 'canceled':
      return hookAnswer({ ...about, verdict: 'deny', reason: 'the call was canceled' });
    case 'runnable':
      // Left for the call made again with a person's edit (see refusedAsComposed).
      if (options.running && wasEdited(row)) {
        return hookAnswer({ ...about, verdict: 'deny', reason: editToMake(row) });
      }
      return hookAnswer({ ...about, verdict: 'deny', reason: 'the run of this call has ended' });
    default:
      return hookAnswer({
        ...about,
        verdict: 'deny',
        reason: row.error_detail ?? `the call ${row.state}`,
      });
  }
}
