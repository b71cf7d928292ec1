import type { z } from 'zod';
import { compileGlob } from '../glob/byte-glob.js';
import {
  invalid,
  type Problem,
  type ProblemCode,
  ProblemList,
  pointerFrom,
  pointerTo,
  type Validated,
  valid,
} from '../issues/problem.js';
import { checkToolNameText } from '../rules/tool-name-text.js';
import {
  type CustomRuleSet,
  CustomRuleSetSchema,
  type OverlayDocument,
  OverlayDocumentSchema,
  type OverlayScope,
  PermissionConfigurationShape,
  type PermissionRule,
  type ToolManifest,
  ToolManifestSchema,
} from '../schemas/permissions.js';
import { isBuiltInRuleSetId } from './built-in-rule-sets.js';
import { rootedPatternProblem } from './rooted-pattern.js';

function zodProblems(error: z.ZodError, base: string, code: ProblemCode): Problem[] {
  return error.issues.map((issue) => ({
    code,
    pointer: `${base}${pointerFrom(issue.path.map((token) => (typeof token === 'symbol' ? String(token) : token)))}`,
    message: issue.message,
  }));
}

const POINTER = /^(\/[^/]*)*$/;

/** The problems of one rule that its schema cannot see: pattern syntax, pointers, guardrails. */
function ruleProblems(
  rule: PermissionRule,
  pointer: string,
  options: { guardrailsAllowed: boolean },
): Problem[] {
  const problems: Problem[] = [];
  const add = (at: string, message: string) =>
    problems.push({ code: 'permission_rule_invalid', pointer: at, message });
  rule.targets?.forEach((source, index) => {
    const problem = rootedPatternProblem(source);
    if (problem) add(pointerTo(pointerTo(pointer, 'targets'), index), problem);
  });
  for (const [field, list] of [
    ['tools', rule.tools],
    ['urls', rule.urls],
  ] as const) {
    list?.forEach((source, index) => {
      if (!compileGlob(source).ok) {
        add(pointerTo(pointerTo(pointer, field), index), `"${source}" does not compile as a glob`);
      }
    });
  }
  for (const field of ['arguments', 'argument_patterns'] as const) {
    for (const [key, value] of Object.entries(rule[field] ?? {})) {
      const at = pointerTo(pointerTo(pointer, field), key);
      if (!POINTER.test(key)) add(at, `"${key}" is not a JSON pointer (write "/field" or "")`);
      if (field === 'argument_patterns' && !compileGlob(value as string).ok) {
        add(at, `"${value as string}" does not compile as a glob`);
      }
    }
  }
  if (rule.guardrail && !options.guardrailsAllowed) {
    add(pointerTo(pointer, 'guardrail'), 'only user overlays hold guardrails');
  }
  if (rule.guardrail && rule.verdict === 'allow') {
    add(pointerTo(pointer, 'verdict'), 'a guardrail restricts: give it ask or deny');
  }
  return problems;
}

/**
 * Validates an overlay document of a scope: its shape, then each rule's
 * patterns and pointers; guardrails are allowed in user documents only.
 * Reports every problem with a JSON pointer; never throws.
 */
export function validateOverlayDocument(
  input: unknown,
  scope: OverlayScope,
): Validated<OverlayDocument> {
  const parsed = OverlayDocumentSchema.safeParse(input);
  if (!parsed.success) return invalid(zodProblems(parsed.error, '', 'overlay_document_invalid'));
  const problems = parsed.data.flatMap((group, groupIndex) =>
    group.rules.flatMap((rule, ruleIndex) =>
      ruleProblems(rule, pointerFrom([groupIndex, 'rules', ruleIndex]), {
        guardrailsAllowed: scope === 'user',
      }),
    ),
  );
  return problems.length > 0 ? invalid(problems) : valid(parsed.data);
}

/**
 * Validates one custom rule set (shape, patterns, pointers; no guardrails).
 * Reports every problem under `base`; never throws.
 */
export function validateCustomRuleSet(input: unknown, base = ''): Validated<CustomRuleSet> {
  const parsed = CustomRuleSetSchema.safeParse(input);
  if (!parsed.success) return invalid(zodProblems(parsed.error, base, 'rule_set_invalid'));
  const problems = parsed.data.rules.flatMap((rule, index) =>
    ruleProblems(rule, `${base}${pointerFrom(['rules', index])}`, { guardrailsAllowed: false }),
  );
  return problems.length > 0 ? invalid(problems) : valid(parsed.data);
}

/** Validates a tool manifest; every problem is reported under `base`. */
export function validateToolManifest(input: unknown, base = ''): Validated<ToolManifest> {
  const parsed = ToolManifestSchema.safeParse(input);
  if (!parsed.success) return invalid(zodProblems(parsed.error, base, 'tool_manifest_invalid'));
  const problems = new ProblemList();
  parsed.data.forEach((entry, index) => {
    checkToolNameText(entry.name, `${base}${pointerFrom([index, 'name'])}`, problems);
  });
  return problems.empty ? valid(parsed.data) : invalid(problems.items);
}

/**
 * A custom set may not take a built-in set's id (the built-in would silently
 * win) nor an id another custom set already took (only the first would count).
 */
function customRuleSetIdProblems(sets: readonly unknown[]): Problem[] {
  const problems: Problem[] = [];
  const first = new Map<string, number>();
  sets.forEach((set, index) => {
    const id = (set as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    const pointer = `/custom_rule_sets/${index}/id`;
    if (isBuiltInRuleSetId(id)) {
      problems.push({
        code: 'rule_set_invalid',
        pointer,
        message: `"${id}" is a built-in rule set's id; give the custom set another id`,
      });
      return;
    }
    const earlier = first.get(id);
    if (earlier !== undefined) {
      problems.push({
        code: 'rule_set_invalid',
        pointer,
        message: `"${id}" is already the id of /custom_rule_sets/${earlier}; ids must be unique`,
      });
      return;
    }
    first.set(id, index);
  });
  return problems;
}

/**
 * The problems of a configuration's permission keys (`tool_manifest`,
 * `permission_rule_set`, `custom_rule_sets`, `project_root`). Custom sets are
 * checked for their id only: a malformed set is reported when selected, by
 * falling back to Baseline, as spec 003 says.
 */
export function permissionConfigurationProblems(fields: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  if (fields.tool_manifest !== undefined) {
    const manifest = validateToolManifest(fields.tool_manifest, '/tool_manifest');
    if (!manifest.ok) problems.push(...manifest.problems);
  }
  const selection = PermissionConfigurationShape.permission_rule_set.safeParse(
    fields.permission_rule_set,
  );
  if (!selection.success) {
    problems.push(...zodProblems(selection.error, '/permission_rule_set', 'rule_set_invalid'));
  }
  const custom = PermissionConfigurationShape.custom_rule_sets.safeParse(fields.custom_rule_sets);
  if (!custom.success) {
    problems.push(...zodProblems(custom.error, '/custom_rule_sets', 'rule_set_invalid'));
  } else {
    problems.push(...customRuleSetIdProblems(custom.data ?? []));
  }
  const root = PermissionConfigurationShape.project_root.safeParse(fields.project_root);
  if (!root.success) {
    problems.push({
      code: 'project_root_invalid',
      pointer: '/project_root',
      message: 'project_root must be an absolute POSIX path (it starts with "/")',
    });
  }
  return problems;
}
