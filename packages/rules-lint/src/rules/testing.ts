import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluatePermissions, type PermissionRule } from '@airlock/core';
import { parseToolCatalog, type ToolCatalog } from '../catalog/tool-catalog.js';
import type { Finding } from '../findings.js';
import { lintText } from '../lint.js';
import type { LintRule } from './lint-rule.js';

/** Lints a text with one lint rule and returns that rule's findings (declaration problems dropped). */
export function lintWith(
  rule: LintRule,
  text: string,
  options: { fileName?: string; tools?: unknown } = {},
): Finding[] {
  let tools: ToolCatalog | undefined;
  if (options.tools !== undefined) {
    const parsed = parseToolCatalog(options.tools);
    if (!parsed.ok) throw new Error(parsed.message);
    tools = parsed.catalog;
  }
  const outcome = lintText(options.fileName ?? 'example.json', text, {
    rules: [rule],
    ...(tools ? { tools } : {}),
  });
  if (!outcome.ok) throw new Error(outcome.message);
  return outcome.findings.filter((finding) => finding.code === rule.id);
}

/**
 * Lints `fixtures/NAME` of a rule folder with that rule, passing
 * `fixtures/tools.json` as the tool catalog when the folder has one.
 */
export function lintFixture(rule: LintRule, folder: string, name: string): Finding[] {
  const fixtures = join(folder, 'fixtures');
  const toolsPath = join(fixtures, 'tools.json');
  const tools = existsSync(toolsPath) ? JSON.parse(readFileSync(toolsPath, 'utf8')) : undefined;
  return lintWith(rule, readFileSync(join(fixtures, name), 'utf8'), { fileName: name, tools });
}

/**
 * What core decides for a Bash `command` (`ls` by default) made in `cwd` under `rules` (a
 * conversation overlay of the autonomous set), project root /home/dev/app: the runtime
 * behaviour a working_directory finding describes.
 */
export function decideBashIn(cwd: string, rules: PermissionRule[], command = 'ls') {
  return evaluatePermissions({
    toolName: 'Bash',
    input: { command },
    manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
    projectRoot: '/home/dev/app',
    workingDirectory: cwd,
    ruleSetId: 'autonomous',
    customRuleSets: undefined,
    approvalMode: 'bypass',
    overlays: { conversation: [{ ruleSetId: 'autonomous', rules }] },
  });
}
