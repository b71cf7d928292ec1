/**
 * @airlock/rules-lint: lint Airlock approval rule files. The CLI (`rules-lint`)
 * is the main surface; these exports let editors and tools embed the linter.
 */

export { type ParsedCatalog, parseToolCatalog, type ToolCatalog } from './catalog/tool-catalog.js';
export { type CliIo, EXIT, processIo, UsageError } from './cli/cli-io.js';
export { runCli, USAGE } from './cli/run-cli.js';
export { type EvalCall, type EvalOutput, evaluateCall } from './evaluate/evaluate-call.js';
export { type ExampleRun, runExamples } from './examples/run-examples.js';
export type {
  Finding,
  FindingSource,
  Fix,
  FixOperation,
  Severity,
  SourceLocation,
} from './findings.js';
export { applyFix, fixEdits, type TextEdit } from './fixes/fix-edits.js';
export { findUncoveredText, globIncluded, toolPatternIncluded } from './glob/inclusion.js';
export { type LintOptions, type LintOutcome, lintDocument, lintText } from './lint.js';
export { type LanguageServerOptions, startLanguageServer } from './lsp/server.js';
export { type FileReport, renderJson } from './reporters/json.js';
export { renderPretty } from './reporters/pretty.js';
export { renderSarif } from './reporters/sarif.js';
export { type RuleFile, readRuleFile } from './rule-file.js';
export { LINT_RULES, lintRuleById } from './rules/catalog.js';
export type {
  LintContext,
  LintReport,
  LintRule,
  RuleCategory,
  RuleDocs,
} from './rules/lint-rule.js';
export { ruleFileSchema } from './schema/rule-file-schema.js';
