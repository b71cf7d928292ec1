import { textAtPath } from '../path/tool-input-path.js';
import { type Policy, VERDICT_ASK, VERDICT_DENY } from '../rules/policy.js';
import { resolveToolName } from '../rules/tool-pattern.js';
import type { ApprovalMode, Decision, Origin, Verdict } from '../schemas/approval.js';
import { matchedRuleIndices } from './called-name.js';

export { REASON_MAX_BYTES } from '../rules/compiled-rule.js';

/** One tool call at the approval stage. */
export interface ToolCall {
  readonly mode: ApprovalMode;
  readonly origin: Origin;
  /** The wire tool name; runner qualification and aliases are resolved here. */
  readonly toolName: string;
  readonly toolInput: unknown;
}

/** Why one rule matched a call: its verdict and the text it read (null for a tool-only rule). */
export interface RuleMatch {
  readonly index: number;
  readonly verdict: Verdict;
  readonly text: string | null;
}

/**
 * Every rule that addresses the call's origin and matches it (for an aliased
 * call, also each deny or ask rule naming the name it was called by), with
 * the text each one read. Use it to show a person why a decision came out as it did.
 */
export function explainMatches(policy: Policy, call: ToolCall): RuleMatch[] {
  const indices = matchedRuleIndices(policy, policy.route(call.origin, call.toolName), call);
  const rules = policy.compiledRules;
  return indices.map((index) => {
    const rule = rules[index]!;
    const text = rule.path === null ? null : (textAtPath(call.toolInput, rule.path) ?? null);
    return { index, verdict: rule.verdict, text };
  });
}

/**
 * The approval stage for one call. Collects every rule of the call's origin
 * that matches (for a call an alias renamed, a deny or ask rule naming the
 * name it was called by binds too, since an executor serves that name; an
 * allow grants by the resolved name alone); deny wins over ask, ask over
 * allow; a model call to a tool outside the declared tool_names is refused
 * next; unmatched model calls
 * take the mode's word; author and kernel rows are granted by their origin
 * unless a rule naming that origin says otherwise. Never throws.
 */
export function decide(policy: Policy, call: ToolCall): Decision {
  const route = policy.route(call.origin, call.toolName);
  const toolName = route.toolName;
  // The hot path: a call made by its resolved name (no alias, no runner qualification).
  const matched =
    toolName === call.toolName
      ? route.index.matchIndices(call.toolInput)
      : matchedRuleIndices(policy, route, call);
  const verdicts = policy.verdictCodes;
  let firstDeny = -1;
  let anyAsk = false;
  let anyAllow = false;
  for (let m = 0; m < matched.length; m++) {
    const verdict = verdicts[matched[m]!]!;
    if (verdict === VERDICT_DENY) {
      if (firstDeny < 0) firstDeny = matched[m]!;
    } else if (verdict === VERDICT_ASK) anyAsk = true;
    else anyAllow = true;
  }
  if (firstDeny >= 0)
    return denied(toolName, matched, policy.compiledRules[firstDeny]!.denialDetail);
  const declared = policy.toolNames;
  if (
    call.origin === 'model' &&
    declared &&
    !declared.has(toolName) &&
    !declared.has(call.toolName) &&
    // The name the model called, runner qualification stripped (before the alias), counts too.
    !declared.has(resolveToolName(call.toolName))
  ) {
    return denied(toolName, matched, route.undeclaredDetail);
  }
  if (call.origin !== 'model') {
    return anyAsk ? parked(toolName, matched) : granted(toolName, matched, 'origin');
  }
  switch (call.mode) {
    case 'bypass':
      return granted(toolName, matched, 'mode');
    case 'ask':
      if (anyAsk || !anyAllow) return parked(toolName, matched);
      return granted(toolName, matched, 'rule');
    default:
      // 'rules', and the strictest reading for a mode that is not one of the three.
      if (anyAsk) return parked(toolName, matched);
      if (anyAllow) return granted(toolName, matched, 'rule');
      return denied(toolName, matched, route.noRuleDetail);
  }
}

function granted(tool_name: string, matched: number[], by: 'mode' | 'rule' | 'origin'): Decision {
  return { outcome: 'granted', granted_by: by, error: null, matched, tool_name };
}

function parked(tool_name: string, matched: number[]): Decision {
  return { outcome: 'parked', granted_by: null, error: null, matched, tool_name };
}

function denied(tool_name: string, matched: number[], detail: string): Decision {
  return {
    outcome: 'denied',
    granted_by: null,
    error: { code: 'approval_denied', detail },
    matched,
    tool_name,
  };
}
