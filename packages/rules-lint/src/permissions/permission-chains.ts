import {
  matchGlob,
  type PermissionCallFacts,
  type PermissionRule,
  PermissionRuleSchema,
  permissionRuleMatches,
  placedDirectory,
  pointerFrom,
  pointerTokens,
} from '@airlock/core';
import {
  CHAINS,
  CHAINS_ADVICE,
  chainedText,
  grantsEveryLine,
  SHELL_FIELD,
} from '../analysis/shell-chains.js';
import { globShape } from '../glob/glob-shape.js';

/** The id these findings share with the approval rules' lint rule, so one setting governs both. */
export const PERMISSION_CHAINS_CODE = 'allow-grants-chains';

/** One ordered list of permission rules, where the first matching rule decides. */
export interface PermissionRuleList {
  /** JSON pointer to the list (`/rules`, `/0/rules`, `/custom_rule_sets/2/rules`). */
  readonly pointer: string;
  readonly rules: readonly unknown[];
  /** Rules that bind over this list whatever its order (a user document's guardrails). */
  readonly binding?: readonly unknown[];
  /**
   * The lists a call reads in order as one, first matching rule deciding: an overlay's groups
   * for one rule set share it (the set's id); absent, the list stands alone.
   */
  readonly sequence?: string;
}

/** A permission rule's allow that grants a second command on a shell line. */
export interface PermissionChainReport {
  readonly pointer: string;
  readonly message: string;
}

function parsedRule(value: unknown): PermissionRule | null {
  const parsed = PermissionRuleSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** An input with `text` at `pointer` (a digit token makes an array), or undefined for the whole input. */
function inputWith(pointer: string, text: string): unknown {
  const tokens = pointerTokens(pointer);
  let input: unknown = text;
  for (const token of [...tokens].reverse()) {
    if (/^(0|[1-9][0-9]*)$/.test(token)) {
      const list: unknown[] = Array.from({ length: Number(token) }, () => '');
      list.push(input);
      input = list;
    } else input = { [token]: input };
  }
  return input;
}

/**
 * A call the rule selects by its tools: a tool name it names, and a manifest
 * entry with its first group and risk, so rules that select the same way
 * select it too. Null when no name can be made (an empty glob list).
 */
function sampleCall(rule: PermissionRule, input: unknown): PermissionCallFacts | null {
  const name = rule.tool_names?.[0] ?? globShape(rule.tools?.[0] ?? 'bash').samples[0];
  if (name === undefined) return null;
  const entry =
    rule.groups || rule.risks
      ? {
          name,
          ...(rule.groups ? { group: rule.groups[0] } : {}),
          risk_traits: rule.risks ? [rule.risks[0]] : [],
        }
      : undefined;
  return {
    toolName: name,
    entry: entry as PermissionCallFacts['entry'],
    input,
    targets: [],
    // Made where the rule holds, so a rule held to a directory selects its own sample.
    ...(rule.working_directory === undefined
      ? {}
      : { directory: placedDirectory(rule.working_directory) }),
  };
}

/**
 * The allows of ordered permission rule lists whose `argument_patterns` on a
 * shell command line also grant a second command after the granted one: for
 * each way of chaining, the line the pattern matches with a second command
 * at its last `*` is decided by the first rule that matches it, unless a
 * binding deny or ask catches it. Rules with target or URL patterns are left
 * out (their call needs targets a sample line does not have).
 */
export function permissionChainReports(
  lists: readonly PermissionRuleList[],
): PermissionChainReport[] {
  const reports: PermissionChainReport[] = [];
  for (const list of lists) {
    const rules = list.rules.map(parsedRule);
    const binding = (list.binding ?? [])
      .map(parsedRule)
      .filter((rule): rule is PermissionRule => rule !== null && rule.verdict !== 'allow');
    rules.forEach((allow, index) => {
      if (allow === null || allow.verdict !== 'allow') return;
      if (allow.targets !== undefined || allow.urls !== undefined) return;
      for (const [pointer, pattern] of Object.entries(allow.argument_patterns ?? {})) {
        const field = pointerTokens(pointer).at(-1);
        if (field === undefined || !SHELL_FIELD.test(field) || grantsEveryLine(pattern)) continue;
        const granted = CHAINS.flatMap((chain) => {
          const text = chainedText(pattern, chain.after);
          if (text === null || !matchGlob(pattern, text)) return [];
          const call = sampleCall(allow, inputWith(pointer, text));
          if (call === null) return [];
          const first = rules.find((rule) => rule !== null && permissionRuleMatches(rule, call));
          if (first?.verdict !== 'allow') return [];
          if (binding.some((rule) => permissionRuleMatches(rule, call))) return [];
          return [{ ...chain, text }];
        });
        const shown = granted[0];
        if (shown === undefined) continue;
        reports.push({
          pointer: `${list.pointer}/${index}${pointerFrom(['argument_patterns', pointer])}`,
          message: `rule ${index} allows ${JSON.stringify(shown.text)}: a pattern reads the whole command line, and no earlier deny or ask rule catches a second command after ${granted.map((chain) => chain.by).join(', ')}. ${CHAINS_ADVICE}`,
        });
      }
    });
  }
  return reports;
}
