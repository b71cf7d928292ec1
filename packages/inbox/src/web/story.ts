/**
 * A run's story in words: which events are decisions, who or what made each
 * (a person, a rule of a policy layer, a clock, a hook, the kernel), and what
 * a row's state means to a person. Pure: no DOM, so it is unit-tested in Node.
 */
import { changeWords, inputChanges } from './input-changes.js';

/** The parts of a lifecycle event the story reads. */
export interface StoryEvent {
  seq: number;
  type: string;
  task_key: string | null;
  principal: string | null;
  /** The principal's name, where the kernel resolved one (`runs.events`). */
  principal_name?: string | null | undefined;
  created_at: number;
  data: unknown;
}

/** Who or what made a decision. */
export type DeciderKind = 'person' | 'rule' | 'mode' | 'origin' | 'clock' | 'hook' | 'kernel';

/** One decision on a row, as a person reads it. */
export interface StoryDecision {
  seq: number;
  taskKey: string;
  at: number;
  /**
   * granted, parked, approved, approval_added (one approval of several
   * needed), edited, denied, answered, declined, expired, canceled, retried.
   */
  outcome: string;
  decider: DeciderKind;
  /** The principal, rule or clock in words, e.g. `member:cred_x` or `rule #2 (approval rules)`. */
  by: string;
  detail: string | null;
  /**
   * The people the detail goes on to name, in order: drawn after it in parentheses, each
   * apart, so right-to-left names cannot trade places ("2 of 2 approvals (Ana Lima, Bo Chen)").
   */
  names?: readonly string[] | undefined;
}

type Data = Record<string, unknown>;

function dataOf(event: StoryEvent): Data {
  return event.data !== null && typeof event.data === 'object' ? (event.data as Data) : {};
}

function errorDetail(data: Data): string | null {
  const error = data.error as { detail?: unknown } | undefined;
  return typeof error?.detail === 'string' ? error.detail : null;
}

const LAYER_WORDS: Record<string, string> = {
  approval_rules: 'approval rules',
  rule_set: 'permission rule set',
  action_contract: 'action contract',
};

function layerWords(layer: unknown): string {
  return typeof layer === 'string' ? (LAYER_WORDS[layer] ?? layer) : 'approval rules';
}

/** `rule #1, #3 (approval rules)` from an event's matched rule indices and layer. */
function rulesWords(data: Data): string {
  const matched = Array.isArray(data.matched) ? (data.matched as number[]) : [];
  const which = matched.length ? `rule ${matched.map((index) => `#${index}`).join(', ')}` : 'rule';
  return `${which} (${layerWords(data.layer)})`;
}

/** Who decided, and where when it was outside the API: "alice via Slack, alice.s". */
function throughChannel(by: string, data: Data): string {
  return typeof data.via === 'string' && data.via !== '' ? `${by} via ${data.via}` : by;
}

function personOr(principal: string | null, fallback: DeciderKind): [DeciderKind, string] {
  if (principal === null || principal === 'kernel') return [fallback, fallback];
  return ['person', principal];
}

/** The name of a principal (`member:cred_x` -> `Ana Lima`), or null when it has none. */
export type NameOf = (principal: string) => string | null;

/** `2 of 2 approvals` and who gave them when several approvals made a quorum, else no detail. */
function quorumWords(
  approvedBy: unknown,
  named: (principal: string) => string,
): { detail: string | null; names?: string[] } {
  if (!Array.isArray(approvedBy) || approvedBy.length < 2) return { detail: null };
  const who = approvedBy.filter((entry): entry is string => typeof entry === 'string').map(named);
  return { detail: `${who.length} of ${who.length} approvals`, names: who };
}

/**
 * The decision an event records, or null for events that decide nothing
 * (a row created, claimed, a round started). A person is shown by name:
 * the event's own `principal_name`, else `nameOf`, else the principal.
 */
export function decisionOf(event: StoryEvent, nameOf: NameOf = () => null): StoryDecision | null {
  if (event.task_key === null) return null;
  const data = dataOf(event);
  const base = { seq: event.seq, taskKey: event.task_key, at: event.created_at };
  const named = (principal: string) =>
    (principal === event.principal ? event.principal_name : null) ?? nameOf(principal) ?? principal;
  const principal =
    (typeof data.decided_by === 'string' ? data.decided_by : null) ?? event.principal;
  const decided = principal === null ? null : named(principal);
  switch (event.type) {
    case 'task.granted': {
      const by = data.granted_by;
      if (by === 'rule')
        return { ...base, outcome: 'granted', decider: 'rule', by: rulesWords(data), detail: null };
      if (by === 'origin')
        return { ...base, outcome: 'granted', decider: 'origin', by: 'its origin', detail: null };
      return { ...base, outcome: 'granted', decider: 'mode', by: 'the mode', detail: null };
    }
    case 'task.parked': {
      const profile = (data.effect_profile ?? {}) as Data;
      const rules = Array.isArray(profile.matched_rules) ? (profile.matched_rules as Data[]) : [];
      const asks = rules
        .filter((rule) => rule.verdict === 'ask')
        .map((rule) => rule.index as number);
      const layer = profile.decided_by_layer;
      // The quorum the approval policy asked when it parked, when it asks several.
      const required = typeof data.approvals_required === 'number' ? data.approvals_required : 1;
      const needs = required > 1 ? `it needs ${required} approvals` : null;
      // Its park said the live members could not give them (an approver revoked earlier).
      const stuck =
        data.approvals_reachable === false
          ? 'too few members could approve it when it parked'
          : null;
      const parked = {
        ...base,
        outcome: 'parked',
        detail: needs && stuck ? `${needs}; ${stuck}` : (needs ?? stuck),
      };
      if (layer !== undefined && layer !== 'approval_rules') {
        return { ...parked, decider: 'rule', by: `the ${layerWords(layer)}` };
      }
      return asks.length
        ? { ...parked, decider: 'rule', by: rulesWords({ matched: asks }) }
        : { ...parked, decider: 'mode', by: `mode ${String(profile.mode ?? '?')}` };
    }
    case 'task.approved': {
      const [decider, by] = personOr(decided, 'kernel');
      return {
        ...base,
        outcome: 'approved',
        decider,
        by: throughChannel(by, data),
        ...quorumWords(data.approved_by, named),
      };
    }
    case 'task.approval_added': {
      const [decider, by] = personOr(decided, 'kernel');
      const count = `${String(data.received ?? '?')} of ${String(data.required ?? '?')} approvals`;
      // A revoke can leave too few members to complete the quorum: no more are coming.
      const detail =
        data.reachable === false
          ? `${count}, but too few members can approve it to complete it`
          : `${count}; it waits for more`;
      return { ...base, outcome: 'approval_added', decider, by: throughChannel(by, data), detail };
    }
    case 'task.edited': {
      const [decider, by] = personOr(decided, 'kernel');
      const changed = changeWords(inputChanges(data.previous_input, data.tool_input));
      // A parked edit needs its approvals as any call would (the editor's own is one of them).
      const after = data.outcome === 'granted' ? '; the approval stage grants the edited call' : '';
      return { ...base, outcome: 'edited', decider, by, detail: `${changed}${after}` };
    }
    case 'task.denied': {
      if (typeof data.decided_by === 'string') {
        return {
          ...base,
          outcome: 'denied',
          decider: 'person',
          by: throughChannel(named(data.decided_by), data),
          detail: errorDetail(data),
        };
      }
      return {
        ...base,
        outcome: 'denied',
        decider: 'rule',
        by: rulesWords(data),
        detail: errorDetail(data),
      };
    }
    case 'task.resolved': {
      const [decider, by] = personOr(decided, 'kernel');
      const outcome = data.outcome === 'failed' ? 'declined' : 'answered';
      return { ...base, outcome, decider, by, detail: null };
    }
    case 'task.expired': {
      const code = (data.error as { code?: string } | undefined)?.code ?? '';
      const decider: DeciderKind = code.startsWith('hook') ? 'hook' : 'clock';
      return {
        ...base,
        outcome: 'expired',
        decider,
        by: decider === 'hook' ? 'the hook clock' : 'the park clock',
        detail: errorDetail(data),
      };
    }
    case 'task.canceled': {
      const [decider, by] = personOr(event.principal && named(event.principal), 'kernel');
      return { ...base, outcome: 'canceled', decider, by, detail: errorDetail(data) };
    }
    case 'task.retried': {
      const [decider, by] = personOr(decided, 'kernel');
      return { ...base, outcome: 'retried', decider, by, detail: null };
    }
    default:
      return null;
  }
}

/** A row state in a person's words. */
export function stateWords(state: string): string {
  const words: Record<string, string> = {
    ready: 'at the approval stage',
    needs_approval: 'waiting for approval',
    awaiting_input: 'waiting for an answer',
    runnable: 'granted, waiting for an executor',
    claimed: 'running',
    succeeded: 'succeeded',
    failed: 'failed',
    timed_out: 'timed out',
    canceled: 'canceled',
  };
  return words[state] ?? state;
}

/** What the model read after a row ended: its result text or its error, cut for display. */
export function modelReadText(
  task: { result?: unknown; error?: unknown },
  max = 400,
): string | null {
  const error = task.error as { code?: string; detail?: string } | null;
  let text: string | null = null;
  if (error && typeof error === 'object') text = `${error.code ?? 'error'}: ${error.detail ?? ''}`;
  else if (task.result !== null && task.result !== undefined) {
    const result = task.result as { content?: unknown } | string;
    if (typeof result === 'string') text = result;
    else text = typeof result.content === 'string' ? result.content : JSON.stringify(result);
  }
  if (text === null) return null;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
