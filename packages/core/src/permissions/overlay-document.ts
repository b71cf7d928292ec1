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
 * glob, so a tool named `b*` does not grant `bash`) and its whole input by
 * exact value.
 */
export function exactCallRule(toolName: string, input: unknown): RememberRule {
  return { tool_names: [toolName], arguments: { '': input ?? null } };
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
