/** An approval policy rule a revocation left fewer live approvers than it requires. */
export interface UnreachableRuleLine {
  rule_index: number;
  required: number;
  approvers_left: number;
}

/**
 * The stderr warnings of a revocation that left approval policy rules unmeetable, one line
 * each ("warning: approval rule 0 needs 2 approvals; 1 approver left (…)"); none when `rules`
 * is empty or missing (a kernel older than the field answers without it).
 */
export function unreachableRuleWarnings(
  rules: readonly UnreachableRuleLine[] | undefined,
): string[] {
  return (rules ?? []).map(
    (rule) =>
      `warning: approval rule ${rule.rule_index} needs ${rule.required} approval${rule.required === 1 ? '' : 's'}; ` +
      `${rule.approvers_left} approver${rule.approvers_left === 1 ? '' : 's'} left ` +
      '(calls it covers wait until their deadline unless the approval policy changes)',
  );
}

/** Writes {@link unreachableRuleWarnings} to stderr, each on its own line. */
export function warnUnreachableRules(rules: readonly UnreachableRuleLine[] | undefined): void {
  for (const line of unreachableRuleWarnings(rules)) process.stderr.write(`${line}\n`);
}
