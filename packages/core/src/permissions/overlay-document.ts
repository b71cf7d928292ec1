import type { OverlayDocument, PermissionRule, RememberRule } from '../schemas/permissions.js';

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/**
 * The canonical JSON text of a document (object keys sorted, no spaces): the
 * text a digest is taken of, so two equal documents always share a digest.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value));
}

/**
 * The rule that remembers exactly one call: its tool by exact name (never a
 * glob, so a tool named `b*` does not grant `bash`), its whole input by exact
 * value, and the directory it was made in when the agent said one (its
 * relative paths name other files from another directory).
 */
export function exactCallRule(
  toolName: string,
  input: unknown,
  workingDirectory?: string | null,
): RememberRule {
  return {
    tool_names: [toolName],
    arguments: { '': input ?? null },
    ...(workingDirectory ? { working_directory: workingDirectory } : {}),
  };
}

/**
 * A copy of an overlay document with an allow rule appended for one rule set:
 * into the first group bound to that set, or a new group at the end.
 */
export function withRememberedRule(
  document: OverlayDocument,
  ruleSetId: string,
  rule: RememberRule,
): OverlayDocument {
  const allow: PermissionRule = { verdict: 'allow', ...rule };
  const index = document.findIndex((group) => group.ruleSetId === ruleSetId);
  if (index < 0) return [...document, { ruleSetId, rules: [allow] }];
  return document.map((group, at) =>
    at === index ? { ruleSetId, rules: [...group.rules, allow] } : group,
  );
}
