import { ruleEntries } from './analysis/rule-entry.js';
import { mergeCatalogs, resolvedCatalog, type ToolCatalog } from './catalog/tool-catalog.js';
import type { RuleSetting } from './config/lint-config.js';
import { runExamples } from './examples/run-examples.js';
import { compareFindings, type Finding, type SourceLocation } from './findings.js';
import { withFingerprints } from './fingerprint.js';
import { permissionRuleEntries } from './permissions/permission-entries.js';
import { permissionRuleLists } from './permissions/permission-file.js';
import { type RuleFile, readRuleFile, runningMode } from './rule-file.js';
import { LINT_RULES } from './rules/catalog.js';
import type { LintContext, LintRule } from './rules/lint-rule.js';
import { locatePointer, parseDocument, type SourceDocument } from './source/document.js';
import { duplicateKeyFindings } from './source/duplicate-key-findings.js';
import { DUPLICATE_KEY } from './source/duplicate-keys.js';
import { inexactNumberFindings } from './source/inexact-number-findings.js';
import { applySuppressions } from './suppress/suppressions.js';

/** Options of one lint run. */
export interface LintOptions {
  /** Tools from `--tools CATALOG.json`, joined with the profile's own. */
  readonly tools?: ToolCatalog;
  /** The lint rules to run (default: the whole catalog). */
  readonly rules?: readonly LintRule[];
  /** Severity or `off` per lint rule id (from the config file); others keep their defaults. */
  readonly settings?: Readonly<Record<string, RuleSetting>>;
}

/** A linted file, or the one-line reason it is not JSON (with where). */
export type LintOutcome =
  | { ok: true; document: SourceDocument; file: RuleFile; findings: Finding[] }
  | { ok: false; message: string; location: SourceLocation };

/** Problem codes whose pointer names a key that should not be there: point at the key. */
const KEY_PROBLEMS = new Set([
  'unknown_key',
  'hook_event_unknown',
  'hook_key_unknown',
  'contract_key_unknown',
  'unrecognized_keys',
]);

/**
 * Whether a problem names a key rather than its value: a key that should not
 * be there, or a costly `patternProperties` pattern (the key is the culprit,
 * not its subschema; a pointer ending in `pattern` or `uniqueItems` names
 * that keyword's value, even under a pattern spelled so).
 */
function pointsAtKey(problem: { readonly code: string; readonly pointer: string }): boolean {
  if (KEY_PROBLEMS.has(problem.code)) return true;
  const [, parent, last] = /\/([^/]*)\/([^/]*)$/.exec(problem.pointer) ?? [];
  return (
    problem.code === 'tool_manifest_invalid' &&
    parent === 'patternProperties' &&
    last !== 'pattern' &&
    last !== 'uniqueItems'
  );
}

/**
 * Lints one rule file's text: the kernel's declaration problems (errors),
 * then every lint rule on the rules that validate on their own. Never
 * throws; findings are sorted by position.
 */
export function lintText(fileName: string, text: string, options: LintOptions = {}): LintOutcome {
  const parsed = parseDocument(fileName, text);
  if (!parsed.ok) return parsed;
  const { document } = parsed;
  const file = readRuleFile(document.value);
  return { ok: true, document, file, findings: lintDocument(document, file, options) };
}

/**
 * What the lint rules read of a profile's permission keys: `project_root`
 * (null when it sets none, undefined when it is not text: a declaration
 * error says so), the selected rule set and the custom sets as written.
 */
function profilePermissions(
  value: unknown,
): Pick<LintContext, 'projectRoot' | 'permissionRuleSet' | 'customRuleSets'> {
  const profile = value as Record<string, unknown>;
  const root = profile.project_root;
  const selected = profile.permission_rule_set;
  const sets = profile.custom_rule_sets;
  return {
    projectRoot: root === undefined ? null : typeof root === 'string' ? root : undefined,
    ...(typeof selected === 'string' ? { permissionRuleSet: selected } : {}),
    ...(Array.isArray(sets) ? { customRuleSets: sets } : {}),
  };
}

/**
 * Runs the lint rules (the whole catalog unless `options.rules` names some)
 * on a context under the config's settings: a rule or a code set `off` is
 * left out, a setting replaces the default severity. Unsorted.
 */
export function lintRuleFindings(
  document: SourceDocument,
  context: LintContext,
  options: LintOptions = {},
): Finding[] {
  const findings: Finding[] = [];
  for (const rule of options.rules ?? LINT_RULES) {
    if (options.settings?.[rule.id] === 'off') continue;
    for (const report of rule.check(context)) {
      const code = report.code ?? rule.id;
      const setting = options.settings?.[code];
      if (setting === 'off') continue;
      findings.push({
        code,
        source: 'lint',
        severity: setting ?? report.severity ?? rule.severity,
        message: report.message,
        pointer: report.pointer,
        location: locatePointer(document, report.pointer, report.part),
        ...(report.fix ? { fix: report.fix } : {}),
      });
    }
  }
  return findings;
}

/** Lints an already parsed document. */
export function lintDocument(
  document: SourceDocument,
  file: RuleFile,
  options: LintOptions = {},
): Finding[] {
  const findings: Finding[] = file.problems.map((problem) => ({
    code: problem.code,
    source: 'declaration',
    severity: 'error',
    message: problem.message,
    pointer: problem.pointer,
    location: locatePointer(document, problem.pointer, pointsAtKey(problem) ? 'key' : 'value'),
  }));
  findings.push(...duplicateKeyFindings(document, options.settings?.[DUPLICATE_KEY]));
  findings.push(...inexactNumberFindings(document));
  if (file.examples !== undefined) {
    // A malformed examples block is reported here as `test` would, without running any example.
    const shape = runExamples({
      document,
      examples: file.examples,
      policy: undefined,
      mode: runningMode(file),
    });
    findings.push(...shape.findings);
  }
  const context: LintContext = {
    rules: ruleEntries(file.rules, file.rulesPointer),
    listLength: Array.isArray(file.rules) ? file.rules.length : 0,
    mode: runningMode(file),
    toolAliases: file.toolAliases,
    tools: mergeCatalogs(resolvedCatalog(options.tools, file.toolAliases), file.declaredTools),
    ...(file.toolNames === undefined ? {} : { toolNames: file.toolNames }),
    permissionRules: permissionRuleEntries(permissionRuleLists(document.value, null)),
    ...(file.kind === 'profile' ? profilePermissions(document.value) : {}),
  };
  findings.push(...lintRuleFindings(document, context, options));
  return withFingerprints(
    document.text,
    applySuppressions(document, findings, { reportUnused: options.rules === undefined }).sort(
      compareFindings,
    ),
  );
}
