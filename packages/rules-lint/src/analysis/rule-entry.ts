import {
  type ApprovalRule,
  type Origin,
  parsePath,
  pointerFrom,
  pointerTokens,
  type Verdict,
  validateRuleList,
} from '@airlock/core';

/** One rule of the list that validates on its own, unpacked for analysis. */
export interface RuleEntry {
  /** 0-based index in the rule list (the kernel's rule number). */
  readonly index: number;
  /** JSON pointer to the rule object in the file. */
  readonly pointer: string;
  readonly rule: ApprovalRule;
  readonly tool: string;
  /** The `|`-separated alternatives of `tool`. */
  readonly alternatives: readonly string[];
  readonly verdict: Verdict;
  readonly origin: Origin;
  /** Path segments, or null for a rule without path (it matches the tool as a whole). */
  readonly path: readonly string[] | null;
  readonly match: string | undefined;
  readonly reason: string | undefined;
}

/**
 * Unpacks every element of a rule list that the kernel's validator accepts
 * on its own, so lint rules still run while one rule of the list is broken.
 */
export function ruleEntries(list: unknown, listPointer: string): RuleEntry[] {
  if (!Array.isArray(list)) return [];
  const entries: RuleEntry[] = [];
  const base = pointerTokens(listPointer);
  list.forEach((candidate, index) => {
    if (!validateRuleList([candidate]).ok) return;
    const rule = candidate as ApprovalRule;
    entries.push({
      index,
      pointer: pointerFrom([...base, index]),
      rule,
      tool: rule.tool,
      alternatives: rule.tool.split('|'),
      verdict: rule.verdict,
      origin: rule.origin ?? 'model',
      path: rule.path === undefined ? null : parsePath(rule.path),
      match: rule.match,
      reason: rule.reason,
    });
  });
  return entries;
}

/** True when both rules read the same path (segment by segment). */
export function samePath(a: RuleEntry, b: RuleEntry): boolean {
  if (a.path === null || b.path === null) return a.path === b.path;
  return (
    a.path.length === b.path.length && a.path.every((segment, index) => segment === b.path![index])
  );
}

/**
 * True when `cover` reads the text `subject` reads, or no text at all: a
 * rule without path matches every input of its tools; a rule with a path
 * can only cover a rule with the same path, since for any other path there
 * is an input with text at the subject's path and none at the cover's.
 */
export function readsCompatibleText(subject: RuleEntry, cover: RuleEntry): boolean {
  if (cover.path === null) return true;
  return subject.path !== null && samePath(subject, cover);
}

/** Short human name of a rule for messages: `rule 3 ({"tool":"bash","verdict":"deny"})`. */
export function describeRule(entry: RuleEntry): string {
  const text = JSON.stringify(entry.rule);
  return `rule ${entry.index} (${text.length > 80 ? `${text.slice(0, 77)}...` : text})`;
}
