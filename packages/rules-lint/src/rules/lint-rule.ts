import type { ApprovalMode } from '@airlock/core';
import type { RuleEntry } from '../analysis/rule-entry.js';
import type { ToolCatalog } from '../catalog/tool-catalog.js';
import type { Fix, Severity } from '../findings.js';
import type { PermissionRuleEntry } from '../permissions/permission-entries.js';
import type { PointerPart } from '../source/document.js';

/** The families of lint rules, as folder names under `rules/`. */
export const RULE_CATEGORIES = ['correctness', 'suspicious', 'style'] as const;
/** A lint rule's family: correctness (a rule does not do what it says), suspicious, style. */
export type RuleCategory = (typeof RULE_CATEGORIES)[number];

/** What a lint rule sees: the rules that validate on their own, the mode, and known tools. */
export interface LintContext {
  /** Every rule of the list that the kernel would accept on its own, with its index. */
  readonly rules: readonly RuleEntry[];
  /** Length of the rule list in the file, broken rules included. */
  readonly listLength: number;
  /** The profile's `approval_mode` when the file declares one. */
  readonly mode: ApprovalMode | undefined;
  /** The profile's `tool_aliases` (wire name to execution name); rules see the resolved names. */
  readonly toolAliases: Readonly<Record<string, string>>;
  /** Known tools (from `--tools` and the profile's `tool_names`), or undefined when none are known. */
  readonly tools: ToolCatalog | undefined;
  /** The profile's `tool_names` as written, when it declares them: a model's call to any other tool is refused. */
  readonly toolNames?: readonly string[];
  /**
   * The file's permission rules (spec 003): a profile's `custom_rule_sets`, a custom rule set
   * file's or an overlay document's rules, every rule object as written. Absent: none.
   */
  readonly permissionRules?: readonly PermissionRuleEntry[];
  /**
   * A profile's `project_root` as written, or null when the profile sets none. Absent when the
   * file cannot tell: a bare list, or a permission file whose profile is elsewhere.
   */
  readonly projectRoot?: string | null | undefined;
  /** A profile's `permission_rule_set` when it is text: the rule set its runs select. */
  readonly permissionRuleSet?: string;
  /** A profile's `custom_rule_sets` as written, when it is an array. */
  readonly customRuleSets?: readonly unknown[];
}

/** One thing a lint rule reports; the linter adds severity and location. */
export interface LintReport {
  /** The finding's code when it is not the rule's id (only `analysis-incomplete`). */
  readonly code?: string;
  readonly pointer: string;
  /** Point at the property's key rather than its value. */
  readonly part?: PointerPart;
  readonly message: string;
  readonly fix?: Fix;
  /** This finding's severity when it differs from the rule's default (a config setting still wins). */
  readonly severity?: Severity;
}

/** A lint rule's documentation; `bad` and `good` are whole rule files, run by a test. */
export interface RuleDocs {
  /** One line: what the rule finds. */
  readonly summary: string;
  /** A paragraph: what is wrong, why it matters, what to do. */
  readonly description: string;
  /** The exact semantics where the rule decides a language question. */
  readonly semantics?: string;
  /** A rule file (JSON text) on which the rule reports. */
  readonly bad: string;
  /** A corrected rule file on which it does not. */
  readonly good: string;
  /** A tool catalog (the `--tools` file's JSON value) the examples need. */
  readonly tools?: unknown;
}

/** A lint rule of the catalog: identity, default severity, docs, fix kind and check. */
export interface LintRule {
  readonly id: string;
  readonly category: RuleCategory;
  readonly severity: Severity;
  /** Whether findings carry a fix, and whether it keeps every decision the same. */
  readonly fixKind: 'safe' | 'unsafe' | 'none';
  readonly docs: RuleDocs;
  check(context: LintContext): LintReport[];
}
